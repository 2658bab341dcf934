/* Tunables and region sizing of the shared-memory channel. */
#ifndef IVC_SHM_CONFIG_H
#define IVC_SHM_CONFIG_H

#include "../base/ivc_config.h"

#include <stdint.h>

typedef struct ivc_shm_config {
    uint64_t eager_limit; /* IVC_EAGER_LIMIT: largest message sent eagerly */
    uint64_t ring_size;   /* IVC_RING_SIZE: eager ring bytes per ordered pair */
    uint64_t chunk_size;  /* IVC_CHUNK_SIZE: rendezvous pipeline chunk bytes */
    uint64_t nchunks;     /* IVC_CHUNKS: pipeline chunks per ordered pair; 0 = auto */
    uint64_t stream_min;  /* IVC_STREAM_MIN resolved: rendezvous messages from this size are
                           * copied into the pipeline with streaming stores */
    const char *stream_text; /* IVC_STREAM_MIN as written: auto or a size */
    int checksum;         /* IVC_CHECKSUM: records and chunks carry check words (shm_csum.h) */
    int one_copy;         /* IVC_ONE_COPY: rendezvous copies once through the shared heap */
    int report_path;      /* IVC_REPORT_PATH: print the rendezvous path counters at the end */
    /* Not a tunable: set by the coordinator when VMs may migrate (coord/coord_move.h): the
     * channel is sparse (ivc_shm_chan_create) and has no shared heap. */
    int sparse;
} ivc_shm_config_t;

/* Smallest IVC_EAGER_LIMIT: a receive block's largest record must span two cache lines
 * (the check in ivc_shm_chan_connect), and smaller limits only turn tiny messages into
 * rendezvous, which costs three records instead of one. */
#define IVC_SHM_EAGER_MIN 64u
/* A message from a contiguous buffer in this rank's shared heap (MPI_Alloc_mem,
 * IVC_SHARED_HEAP) larger than this takes the one-copy rendezvous even below the eager
 * limit: at 8-16 KiB one copy beats the ring's two (README, "Tunables"). */
#define IVC_SHM_ONE_COPY_MIN 4096u

/* Smallest eager payload copied into the ring with streaming stores (when IVC_STREAM_MIN
 * allows them): with the two vCPUs of the AMD development VM far apart, latency 8/16 KiB
 * 1.57/2.24 µs against 4.64/8.89 with plain stores, bandwidth 1.6-1.8x; at 2-4 KiB
 * streaming halved latency there but cost 8-46% of bandwidth (README, "Streaming stores"). */
#define IVC_SHM_EAGER_STREAM_MIN 8192u

/* Largest eager payload copied into the ring with 8-byte stores (ivc_copy_words) instead of
 * memcpy, whose 16-32-byte stores straddle the record's cache lines (the payload starts 48
 * bytes into the first), the likely cause of a further transfer from the writer's core at
 * some sizes: with the two vCPUs of the AMD development VM far apart, latency
 * 64/72/96 B 0.36/0.37/0.40 µs against 0.56/0.56/0.58, 384 B-1 KiB 0.90-0.96x; close
 * together 64/72 B 0.12 against 0.16 µs; no size slower (best of 3 per placement); 2 KiB
 * neutral, 4 KiB 1.06x, hence 1 KiB. */
#define IVC_SHM_EAGER_WORDS_MAX 1024u

/* What one receiver's block looks like: the tunables resolved for a number of co-located
 * ranks. Written into the block (ivc_rxblock_t) so that senders use the receiver's view. */
typedef struct ivc_shm_geometry {
    uint64_t ring_size;
    uint64_t max_record; /* ring slack: header + eager limit, on whole lines */
    uint64_t chunk_size;
    uint64_t nchunks;
    uint64_t inbox_stride;
    uint64_t block_bytes;
} ivc_shm_geometry_t;

extern const ivc_cfg_table_t ivc_shm_config_table;

/* Resolves a streaming-store threshold written as "auto" (base/ivc_topo.h; `small` on small
 * or unknown machines) or a size, for IVC_<name>. Returns 0 or -EINVAL (logged). */
int ivc_shm_parse_stream_min(const char *name, const char *text, uint64_t small, uint64_t *out);

/* Loads and cross-checks the table (e.g. a ring must hold two eager records).
 * Returns 0 or -EINVAL after logging which variables disagree. */
int ivc_shm_config_load(ivc_shm_config_t *cfg);

/* Resolves the tunables for a receiver with `nlocal` co-located ranks. With IVC_CHUNKS
 * unset, each pair gets a 1 MiB pipeline while at most 16 ranks share the region (measured:
 * twice the bandwidth of 256 KiB), and 256 KiB beyond that to bound the region's size. */
void ivc_shm_geometry(const ivc_shm_config_t *cfg, uint32_t nlocal, ivc_shm_geometry_t *geo);

/* Region size that holds a job of `world` ranks all sharing it, rounded up to a power of
 * two (ivshmem BARs must be one); 0 with -EINVAL logged if the tunables are invalid. */
uint64_t ivc_shm_region_bytes(uint32_t world);

/* Bytes of one rank's write-exclusive section (region_sect.h) for `nlocal` co-located ranks
 * of a job of `world` under the current settings (its membership record, channel block and
 * collective area, each page-aligned), rounded up to a page; 0 when sections are off
 * (IVC_SECTIONS=no), nlocal < 2, or the settings are invalid (logged). Launchers size
 * sections with it: ivcrun, and ivc-vm through `ivc-info --section-size`. */
uint64_t ivc_shm_section_bytes(uint32_t nlocal, uint32_t world);

/* Parses a region size as the IVC_* size tunables are written (bytes, K/M/G suffixes).
 * Returns 0 or -EINVAL/-ERANGE (nothing logged). */
int ivc_shm_parse_region_size(const char *text, uint64_t *out);

/* The size of a new region for `world` ranks: IVC_REGION_SIZE when set, else
 * ivc_shm_region_bytes(world). Returns 0, or -EINVAL after logging what is wrong. */
int ivc_shm_job_region_size(uint32_t world, uint64_t *out);

#endif
