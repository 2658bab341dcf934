/* Tunables of the shared-memory collectives and the size of each rank's collective area.
 *
 * The table lives in the shm layer (not in the MPI layer that runs the collectives) because
 * region sizing (ivc_shm_region_bytes, used by ivcrun) must account for the areas. */
#ifndef IVC_SHM_COLL_CONFIG_H
#define IVC_SHM_COLL_CONFIG_H

#include "../base/ivc_config.h"

#include <stdint.h>

typedef struct ivc_coll_config {
    int shm;             /* IVC_COLL_SHM: shared-memory algorithms for co-located ranks */
    int sections;        /* IVC_SECTIONS: ivcrun makes write-exclusive sections */
    int report;          /* IVC_REPORT_COLL: print the collectives' counts at MPI_Finalize */
    uint64_t area;       /* IVC_COLL_AREA: data bytes of each rank's collective area */
    uint64_t chunk;      /* IVC_COLL_CHUNK: pipeline unit of large broadcasts */
    uint64_t split_min;  /* IVC_COLL_SPLIT_MIN: partitioned allreduce from this size */
    uint64_t bcast_p2p;  /* IVC_COLL_BCAST_P2P: broadcasts from this size use point-to-point */
    const char *stream_text; /* IVC_COLL_STREAM_MIN as written: auto or a size */
    uint64_t stream_min; /* IVC_COLL_STREAM_MIN resolved: publications from this size use streaming
                          * stores */
    const char *rooted;  /* IVC_COLL_ROOTED_P2P as given: auto, off or a size */
    uint64_t rooted_p2p; /* ...parsed: rooted operations up to this size use point-to-point;
                          * 0 = off, UINT64_MAX = auto */
    const char *reduce_split_text; /* IVC_COLL_REDUCE_SPLIT as given: auto, yes or no */
    int reduce_split;    /* ...parsed: 1 yes, 0 no, -1 auto */
} ivc_coll_config_t;

extern const ivc_cfg_table_t ivc_coll_config_table;

/* IVC_COLL_STREAM_MIN=auto where the cache topology does not vouch for plain stores
 * (base/ivc_topo.h): publications from 8 KiB stream, as eager records of the channel do
 * (IVC_SHM_EAGER_STREAM_MIN). On the AMD development VM, 2 ranks, `bench/coll` (best of
 * 2-3 rounds per placement): with the two vCPUs far apart, Bcast, Reduce, Reduce_scatter
 * and Allgather of 8 KiB take 0.25-0.45x the time they took with plain stores (16 KiB was
 * the threshold), Allreduce 0.53x; close together 0.91-1.17x, Reduce_scatter and
 * Allreduce 1.39-1.44x, still ahead of MPICH and Open MPI there. From 2-4 KiB streaming
 * also halves the far figures but costs 1.2-1.7x close, where Open MPI would lead. */
#define IVC_COLL_STREAM_SMALL (8u << 10)

/* Loads and cross-checks the table (the chunk must divide the area).
 * Returns 0 or -EINVAL after logging which variable is wrong. */
int ivc_coll_config_load(ivc_coll_config_t *cfg);

/* Bytes of a bank's control words: the tag and fill words, two 32-bit acknowledgement
 * words per co-located rank and the length word. */
uint64_t ivc_coll_ctl_used(uint32_t nlocal);

/* The same rounded to a cache line: where a bank's line-aligned data starts. */
uint64_t ivc_coll_ctl_bytes(uint32_t nlocal);

/* Check words after the data of an area (IVC_CHECKSUM): one per block a reader may read
 * alone (a rank's share of a scatter, an all-to-all or a partitioned allreduce) or per slot
 * of a streamed broadcast, whichever needs more. */
uint64_t ivc_coll_csum_words(const ivc_coll_config_t *cfg, uint32_t nlocal);

/* Banks of an area (coll_impl.h): bank 0 has IVC_COLL_AREA data bytes and comes last, the
 * others ivc_coll_small_bytes() each (IVC_COLL_CHUNK, at most IVC_COLL_SMALL_MAX); every bank
 * has its control words first and its check words last. */
#define IVC_COLL_BANKS     8
#define IVC_COLL_SMALL_MAX (16u << 10)

/* Data bytes of each small bank. */
uint64_t ivc_coll_small_bytes(const ivc_coll_config_t *cfg);

/* Offset of bank b in an area (b == IVC_COLL_BANKS: the end of the last one). */
uint64_t ivc_coll_bank_off(const ivc_coll_config_t *cfg, uint32_t nlocal, uint32_t b);

/* Bytes of one rank's collective area in a job with `nlocal` co-located ranks: every bank,
 * a multiple of 4096. */
uint64_t ivc_coll_area_bytes(const ivc_coll_config_t *cfg, uint32_t nlocal);

#endif
