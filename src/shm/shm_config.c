#include "shm_config.h"

#include "shm_coll_config.h"
#include "shm_rma_config.h"

#include "../base/ivc_log.h"
#include "../base/ivc_topo.h"
#include "../region/region.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Checksums are on by default where a build looks for bugs (ASan, as IVC_SANITIZE builds
 * with) and off otherwise, by measured cost (shm_csum.h; README "Tunables"). */
#if defined(__SANITIZE_ADDRESS__)
#define CHECKSUM_DEFAULT "yes"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CHECKSUM_DEFAULT "yes"
#endif
#endif
#ifndef CHECKSUM_DEFAULT
#define CHECKSUM_DEFAULT "no"
#endif

/* Defaults chosen by measurement; README "Tunables" gives the figures behind them. */
static const ivc_cfg_entry_t shm_entries[] = {
    {"EAGER_LIMIT", "16K",
     "largest message sent eagerly through the ring (at least 64); larger ones use "
     "rendezvous, and so do those above 4 KiB from a buffer in the shared heap (one copy); "
     "unset, it shrinks to what IVC_RING_SIZE holds",
     IVC_CFG_SIZE, 0, 1u << 20, offsetof(ivc_shm_config_t, eager_limit)},
    {"RING_SIZE", "128K", "eager ring bytes per ordered pair of co-located ranks (power of two)",
     IVC_CFG_SIZE, 4096, 1u << 30, offsetof(ivc_shm_config_t, ring_size)},
    {"CHUNK_SIZE", "16K", "rendezvous pipeline chunk bytes (multiple of 64)", IVC_CFG_SIZE, 64,
     1u << 30, offsetof(ivc_shm_config_t, chunk_size)},
    {"CHUNKS", "0",
     "rendezvous pipeline chunks per ordered pair (power of two); 0 = auto: "
     "1 MiB of chunks while at most 16 ranks share the region, 256 KiB beyond",
     IVC_CFG_UINT, 0, 1024, offsetof(ivc_shm_config_t, nchunks)},
    {"STREAM_MIN", "auto",
     "rendezvous messages at least this large, and eager ones from 8 KiB, are copied into "
     "the region with non-temporal stores, which do not leave the data in the sender's cache; "
     "auto = a quarter of the last-level cache when one of at least 64 MiB is shared by at "
     "least 8 CPUs or by every online CPU (the reader finds the data there), else 0 "
     "(base/ivc_topo.h); or a size",
     IVC_CFG_STRING, 0, 0, offsetof(ivc_shm_config_t, stream_text)},
    {"CHECKSUM", CHECKSUM_DEFAULT,
     "eager records and rendezvous chunks carry a CRC32C check word, so that data corrupted "
     "in the region is reported (the sender is failed), never delivered; must be alike on "
     "every rank",
     IVC_CFG_BOOL, 0, 0, offsetof(ivc_shm_config_t, checksum)},
    {"ONE_COPY", "yes",
     "a rendezvous whose send or receive buffer lies in the shared heap (MPI_Alloc_mem, "
     "IVC_SHARED_HEAP) is copied once, straight between the two buffers, instead of twice "
     "through the pipeline",
     IVC_CFG_BOOL, 0, 0, offsetof(ivc_shm_config_t, one_copy)},
    {"REPORT_PATH", "no",
     "at MPI_Finalize each rank prints, per message size (powers of two), how many "
     "rendezvous messages it sent and received by each path: one-copy read, one-copy write, "
     "pipeline",
     IVC_CFG_BOOL, 0, 0, offsetof(ivc_shm_config_t, report_path)},
};

const ivc_cfg_table_t ivc_shm_config_table = {"shared-memory channel", shm_entries,
                                              sizeof(shm_entries) / sizeof(shm_entries[0])};

static int is_pow2(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

/* Largest ring record: header plus an eager payload, on whole cache lines. */
static uint64_t max_record(const ivc_shm_config_t *cfg)
{
    return align_up(sizeof(ivc_rec_t) + cfg->eager_limit, IVC_CACHE_LINE);
}

int ivc_shm_parse_stream_min(const char *name, const char *text, uint64_t small, uint64_t *out)
{
    if (strcmp(text, "auto") == 0) {
        *out = ivc_topo_stream_min(small, NULL, 0);
        return 0;
    }
    ivc_cfg_entry_t e = {name, "", "", IVC_CFG_SIZE, 0, UINT64_MAX, 0};
    if (ivc_cfg_parse_value(&e, text, out) != 0) {
        ivc_error("IVC_%s=%s must be auto or a size (%s)", name, text, ivc_cfg_size_syntax());
        return -EINVAL;
    }
    return 0;
}

int ivc_shm_config_load(ivc_shm_config_t *cfg)
{
    int rc = ivc_cfg_load(&ivc_shm_config_table, cfg);
    if (rc != 0)
        return rc;
    cfg->sparse = 0; /* the coordinator's choice, not a tunable */
    if (ivc_shm_parse_stream_min("STREAM_MIN", cfg->stream_text, 0, &cfg->stream_min) != 0)
        return -EINVAL;
    if (cfg->eager_limit < IVC_SHM_EAGER_MIN) {
        ivc_error("IVC_EAGER_LIMIT=%llu is too small: the smallest eager limit is %u bytes "
                  "(larger messages go by rendezvous anyway)",
                  (unsigned long long)cfg->eager_limit, IVC_SHM_EAGER_MIN);
        return -EINVAL;
    }
    if (!is_pow2(cfg->ring_size)) {
        ivc_error("IVC_RING_SIZE=%llu must be a power of two", (unsigned long long)cfg->ring_size);
        return -EINVAL;
    }
    if (cfg->nchunks == 1 || (cfg->nchunks != 0 && !is_pow2(cfg->nchunks))) {
        ivc_error("IVC_CHUNKS=%llu must be 0 (auto) or a power of two from 2",
                  (unsigned long long)cfg->nchunks);
        return -EINVAL;
    }
    if (cfg->chunk_size % IVC_CACHE_LINE) {
        ivc_error("IVC_CHUNK_SIZE=%llu must be a multiple of %d",
                  (unsigned long long)cfg->chunk_size, IVC_CACHE_LINE);
        return -EINVAL;
    }
    /* The ring must take two of the largest records plus the one-line guard at the tail
     * (shm_ring.h), or a sender could wait for room that lazy head updates never give.
     * The default eager limit gives way to a small ring; one the user set does not. */
    const char *set = getenv("IVC_EAGER_LIMIT");
    uint64_t fit = cfg->ring_size / 2 - IVC_CACHE_LINE;
    if ((set == NULL || *set == '\0') && cfg->ring_size < 2 * (max_record(cfg) + IVC_CACHE_LINE) &&
        fit >= align_up(sizeof(ivc_rec_t) + IVC_SHM_EAGER_MIN, IVC_CACHE_LINE))
        cfg->eager_limit = fit - sizeof(ivc_rec_t);
    if (cfg->ring_size < 2 * (max_record(cfg) + IVC_CACHE_LINE)) {
        ivc_error("IVC_RING_SIZE=%llu is too small for IVC_EAGER_LIMIT=%llu: the ring needs at "
                  "least %llu bytes",
                  (unsigned long long)cfg->ring_size, (unsigned long long)cfg->eager_limit,
                  (unsigned long long)(2 * (max_record(cfg) + IVC_CACHE_LINE)));
        return -EINVAL;
    }
    return 0;
}

/* Pipeline bytes per pair when IVC_CHUNKS is auto. */
#define PIPE_BYTES_FEW  (1u << 20)
#define PIPE_BYTES_MANY (256u << 10)
#define PIPE_FEW_RANKS  16

void ivc_shm_geometry(const ivc_shm_config_t *cfg, uint32_t nlocal, ivc_shm_geometry_t *geo)
{
    uint64_t nchunks = cfg->nchunks;
    if (nchunks == 0) {
        uint64_t budget = nlocal <= PIPE_FEW_RANKS ? PIPE_BYTES_FEW : PIPE_BYTES_MANY;
        for (nchunks = 2; nchunks < 1024 && (nchunks * 2) * cfg->chunk_size <= budget;)
            nchunks *= 2;
    }
    geo->ring_size = cfg->ring_size;
    geo->max_record = max_record(cfg);
    geo->chunk_size = cfg->chunk_size;
    geo->nchunks = nchunks;
    geo->inbox_stride = align_up(sizeof(ivc_inbox_ctl_t) + cfg->ring_size + geo->max_record +
                                     nchunks * cfg->chunk_size,
                                 4096);
    geo->block_bytes = 4096 + (uint64_t)(nlocal > 0 ? nlocal - 1 : 0) * geo->inbox_stride;
}

uint64_t ivc_shm_region_bytes(uint32_t world)
{
    ivc_shm_config_t cfg;
    if (ivc_shm_config_load(&cfg) != 0)
        return 0;
    ivc_coll_config_t ccfg;
    if (ivc_coll_config_load(&ccfg) != 0)
        return 0;
    ivc_rma_config_t rcfg;
    if (ivc_rma_config_load(&rcfg) != 0)
        return 0;
    /* Each rank reserves its RMA arena (mpi/mpi_mem.c), aligned to a page. */
    uint64_t arena = ivc_rma_arena_bytes(&rcfg);
    arena += arena ? 4096 : 0;
    ivc_shm_geometry_t geo;
    ivc_shm_geometry(&cfg, world, &geo);
    /* Each rank also reserves its collective area (mpi/coll_shm.c), aligned to a page. */
    uint64_t coll = ccfg.shm ? ivc_coll_area_bytes(&ccfg, world) + 4096 : 0;
    uint64_t need = ivc_region_fixed_bytes(world) + (uint64_t)world * (geo.block_bytes + 4096) +
                    (uint64_t)world * coll + (uint64_t)world * arena + (1u << 20);
    uint64_t size = IVC_REGION_MIN_SIZE;
    while (size < need)
        size <<= 1;
    return size;
}

uint64_t ivc_shm_section_bytes(uint32_t nlocal, uint32_t world)
{
    ivc_shm_config_t cfg;
    ivc_coll_config_t ccfg;
    if (nlocal < 2 || ivc_shm_config_load(&cfg) != 0 || ivc_coll_config_load(&ccfg) != 0 ||
        !ccfg.sections)
        return 0;
    ivc_shm_geometry_t geo;
    ivc_shm_geometry(&cfg, nlocal, &geo);
    uint64_t need = ivc_sect_member_bytes(world > nlocal ? world : nlocal) + geo.block_bytes +
                    4096 + (ccfg.shm ? ivc_coll_area_bytes(&ccfg, nlocal) + 4096 : 0);
    return (need + 4095) / 4096 * 4096;
}

int ivc_shm_parse_region_size(const char *text, uint64_t *out)
{
    static const ivc_cfg_entry_t entry = {
        .name = "REGION_SIZE", .type = IVC_CFG_SIZE, .min = 1, .max = UINT64_MAX};
    return ivc_cfg_parse_value(&entry, text, out);
}

int ivc_shm_job_region_size(uint32_t world, uint64_t *out)
{
    const char *env = getenv("IVC_REGION_SIZE");
    if (env != NULL && *env != '\0') {
        if (ivc_shm_parse_region_size(env, out) != 0) {
            ivc_error("IVC_REGION_SIZE=%s is not a size (bytes, optionally with a K, M or G "
                      "suffix)",
                      env);
            return -EINVAL;
        }
        return 0;
    }
    *out = ivc_shm_region_bytes(world);
    return *out != 0 ? 0 : -EINVAL;
}
