#include "shm_coll_config.h"
#include "shm_config.h"

#include "../base/ivc_atomic.h"
#include "../base/ivc_log.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* Defaults measured with bench/coll.c (README "Tunables"). */
static const ivc_cfg_entry_t coll_entries[] = {
    {"SECTIONS", "yes",
     "ivcrun puts what each rank writes for its peers (its shared-memory channel block: eager "
     "records, rendezvous chunks, its counters; its collective area) in a write-exclusive "
     "section: a sealed memory file that its co-located peers map read-only, so that no other "
     "rank or process can write it (src/region/region_sect.h); no = in the shared region "
     "file, as regions made by other launchers or by hand have them. Not with migration "
     "(--migrate, IVC_MIGRATE=1)",
     IVC_CFG_BOOL, 0, 0, offsetof(ivc_coll_config_t, sections)},
    {"REPORT_COLL", "no",
     "each rank prints what its shared-memory collectives cost at MPI_Finalize, per family "
     "(barrier, bcast, reduce, allreduce, reduce_scatter, gather, scatter, alltoall): calls, "
     "bytes copied into its area, bytes read out of others' areas, bytes of operands "
     "combined, publications (rounds) and communicator set-ups",
     IVC_CFG_BOOL, 0, 0, offsetof(ivc_coll_config_t, report)},
    {"COLL_SHM", "yes",
     "collectives among ranks that share the region exchange data through per-rank areas in "
     "it; no = point-to-point algorithms only",
     IVC_CFG_BOOL, 0, 0, offsetof(ivc_coll_config_t, shm)},
    {"COLL_AREA", "256K",
     "data bytes of each rank's collective area in the region (multiple of IVC_COLL_CHUNK); "
     "larger operations run in pieces of this size",
     IVC_CFG_SIZE, 4096, 1u << 30, offsetof(ivc_coll_config_t, area)},
    {"COLL_CHUNK", "16K", "pipeline unit of shared-memory broadcasts (multiple of 64)",
     IVC_CFG_SIZE, 64, 1u << 30, offsetof(ivc_coll_config_t, chunk)},
    {"COLL_SPLIT_MIN", "4K",
     "allreduce of at least this many bytes: each rank reduces "
     "one slice (partitioned) instead of every rank reducing everything; between 2 ranks "
     "from 32K at least",
     IVC_CFG_SIZE, 0, UINT64_MAX, offsetof(ivc_coll_config_t, split_min)},
    {"COLL_BCAST_P2P", "0",
     "broadcasts of at least this many bytes use the point-to-point tree instead of the "
     "shared area; 0 = never",
     IVC_CFG_SIZE, 0, UINT64_MAX, offsetof(ivc_coll_config_t, bcast_p2p)},
    {"COLL_STREAM_MIN", "auto",
     "contiguous data of at least this many bytes is written into a collective area with "
     "non-temporal stores, so that readers on other cores fetch it from memory; auto = a "
     "quarter of the last-level cache when one of at least 64 MiB is shared by at least 8 "
     "CPUs, else 8K (base/ivc_topo.h); or a size",
     IVC_CFG_STRING, 0, 0, offsetof(ivc_coll_config_t, stream_text)},
    {"COLL_ROOTED_P2P", "auto",
     "Bcast, Reduce, Gather and Scatter of at most this many bytes use point-to-point, whose "
     "eager messages let a root run ahead instead of waiting for its readers to release its "
     "area; auto = the eager limit when a host's ranks outnumber its cores, off otherwise, "
     "and a Bcast between two members up to 256 bytes; off; or a size",
     IVC_CFG_STRING, 0, 0, offsetof(ivc_coll_config_t, rooted)},
    {"COLL_REDUCE_SPLIT", "auto",
     "Reduce on 4 or more ranks from IVC_COLL_SPLIT_MIN bytes is partitioned as Allreduce "
     "is (each rank reduces one slice, the root copies the slices), which spreads the work "
     "over the cores but adds a round: auto = when a host's ranks do not outnumber its "
     "cores; yes; no",
     IVC_CFG_STRING, 0, 0, offsetof(ivc_coll_config_t, reduce_split_text)},
};

const ivc_cfg_table_t ivc_coll_config_table = {"collectives", coll_entries,
                                               sizeof(coll_entries) / sizeof(coll_entries[0])};

int ivc_coll_config_load(ivc_coll_config_t *cfg)
{
    int rc = ivc_cfg_load(&ivc_coll_config_table, cfg);
    if (rc != 0)
        return rc;
    if (ivc_shm_parse_stream_min("COLL_STREAM_MIN", cfg->stream_text, IVC_COLL_STREAM_SMALL,
                                 &cfg->stream_min) != 0)
        return -EINVAL;
    if (cfg->chunk % IVC_CACHE_LINE) {
        ivc_error("IVC_COLL_CHUNK=%llu must be a multiple of %d", (unsigned long long)cfg->chunk,
                  IVC_CACHE_LINE);
        return -EINVAL;
    }
    if (strcmp(cfg->rooted, "auto") == 0) {
        cfg->rooted_p2p = UINT64_MAX;
    } else if (strcmp(cfg->rooted, "off") == 0) {
        cfg->rooted_p2p = 0;
    } else {
        ivc_cfg_entry_t e = {"COLL_ROOTED_P2P", "", "", IVC_CFG_SIZE, 0, UINT64_MAX - 1, 0};
        if (ivc_cfg_parse_value(&e, cfg->rooted, &cfg->rooted_p2p) != 0) {
            ivc_error("IVC_COLL_ROOTED_P2P=%s must be auto, off or a size", cfg->rooted);
            return -EINVAL;
        }
    }
    if (strcmp(cfg->reduce_split_text, "auto") == 0) {
        cfg->reduce_split = -1;
    } else {
        ivc_cfg_entry_t e = {"COLL_REDUCE_SPLIT", "", "", IVC_CFG_BOOL, 0, 0, 0};
        int v = 0;
        if (ivc_cfg_parse_value(&e, cfg->reduce_split_text, &v) != 0) {
            ivc_error("IVC_COLL_REDUCE_SPLIT=%s must be auto, yes or no", cfg->reduce_split_text);
            return -EINVAL;
        }
        cfg->reduce_split = v != 0;
    }
    if (cfg->area % cfg->chunk || cfg->area / cfg->chunk < 2) {
        ivc_error("IVC_COLL_AREA=%llu must be a multiple of IVC_COLL_CHUNK=%llu, at least twice it",
                  (unsigned long long)cfg->area, (unsigned long long)cfg->chunk);
        return -EINVAL;
    }
    return 0;
}

uint64_t ivc_coll_ctl_used(uint32_t nlocal)
{
    return 16 + (uint64_t)nlocal * 8 + 8;
}

uint64_t ivc_coll_ctl_bytes(uint32_t nlocal)
{
    return (ivc_coll_ctl_used(nlocal) + IVC_CACHE_LINE - 1) / IVC_CACHE_LINE * IVC_CACHE_LINE;
}

uint64_t ivc_coll_csum_words(const ivc_coll_config_t *cfg, uint32_t nlocal)
{
    uint64_t slots = cfg->chunk ? cfg->area / cfg->chunk : 0;
    return slots > nlocal ? slots : nlocal;
}

/* Each bank: control words, data, check words (cut to a cache line). */
static uint64_t bank_bytes(const ivc_coll_config_t *cfg, uint32_t nlocal, uint64_t data)
{
    uint64_t csum = ivc_coll_csum_words(cfg, nlocal) * 8;
    return ivc_coll_ctl_bytes(nlocal) + data +
           (csum + IVC_CACHE_LINE - 1) / IVC_CACHE_LINE * IVC_CACHE_LINE;
}

uint64_t ivc_coll_small_bytes(const ivc_coll_config_t *cfg)
{
    return cfg->chunk < IVC_COLL_SMALL_MAX ? cfg->chunk : IVC_COLL_SMALL_MAX;
}

uint64_t ivc_coll_bank_off(const ivc_coll_config_t *cfg, uint32_t nlocal, uint32_t b)
{
    /* The small banks first: a read of up to IVC_COLL_AREA bytes from any bank's data (a
     * reader whose count does not match the publisher's) stays inside the area. */
    uint64_t small = bank_bytes(cfg, nlocal, ivc_coll_small_bytes(cfg));
    if (b == IVC_COLL_BANKS)
        return (IVC_COLL_BANKS - 1) * small + bank_bytes(cfg, nlocal, cfg->area);
    return b == 0 ? (IVC_COLL_BANKS - 1) * small : (b - 1) * small;
}

uint64_t ivc_coll_area_bytes(const ivc_coll_config_t *cfg, uint32_t nlocal)
{
    uint64_t end = ivc_coll_bank_off(cfg, nlocal, IVC_COLL_BANKS);
    return (end + 4095) / 4096 * 4096;
}
