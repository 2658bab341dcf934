#include "lib_config.h"

#include "../base/ivc_log.h"

#include <errno.h>
#include <stddef.h>

#define ROW(name, dflt, help, type, lo, hi, field)                                                 \
    {name, dflt, help, type, lo, hi, offsetof(ivclib_config_t, field)}

static const ivc_cfg_entry_t lib_entries[] = {
    ROW("LIB_ENDPOINTS", "64", "libivc endpoint ids in a region (set by the first libivc process)",
        IVC_CFG_UINT, 2, 4096, endpoints),
    ROW("LIB_CHANNELS", "256", "libivc channel slots in a region", IVC_CFG_UINT, 1, 65536,
        channels),
    ROW("LIB_RING_SIZE", "64K", "bytes of each direction of a libivc channel (power of two)",
        IVC_CFG_SIZE, 4096, 1 << 30, ring_size),
    ROW("LIB_PORTS", "64", "libivc datagram port slots in a region", IVC_CFG_UINT, 1, 65536, ports),
    ROW("LIB_LANES", "8", "sender lanes per libivc port (senders served at once)", IVC_CFG_UINT, 1,
        64, lanes),
    ROW("LIB_LANE_SIZE", "16K", "bytes of each lane of a port (power of two); a datagram may be "
        "up to a quarter of it", IVC_CFG_SIZE, 1024, 1 << 30, lane_size),
    ROW("LIB_BARRIERS", "64", "libivc barrier slots in a region", IVC_CFG_UINT, 1, 65536, barriers),
    ROW("LIB_OBJECTS", "64", "named shared blocks (ivc_shm_get) in a region", IVC_CFG_UINT, 1,
        65536, objects),
    ROW("LIB_LOCKS", "4096", "minitransaction lock words (power of two; cache lines hash onto "
        "them)", IVC_CFG_UINT, 64, 1 << 24, locks),
    ROW("LIB_LOG_SIZE", "4K", "bytes of each endpoint's minitransaction redo log: bounds the "
        "bytes one commit writes", IVC_CFG_SIZE, 256, 1 << 20, log_size),
    ROW("LIB_SPIN", "100", "polls with a pause before a blocking libivc call yields the CPU "
        "(more helps latency on idle cores, less helps when processes share cores)",
        IVC_CFG_UINT, 0, 1u << 30, spin),
    ROW("LIB_YIELDS", "50", "sched_yield rounds before a blocking libivc call sleeps",
        IVC_CFG_UINT, 0, 1u << 30, yields),
    ROW("LIB_SLEEP_MAX", "500", "longest sleep (microseconds) of a blocking libivc call's "
        "backoff without a doorbell; sleeps start at 1 and double", IVC_CFG_UINT, 1, 1000000, sleep_max_us),
    ROW("LIB_WAIT_TIMEOUT", "100", "ms a blocking libivc call sleeps on its doorbell at most "
        "before it looks again (peers ring it; a safety net, and how soon it sees a peer that "
        "died)", IVC_CFG_UINT, 1, 3600000, wait_timeout_ms),
    ROW("LIB_HEARTBEAT_PERIOD", "100", "ms between a libivc endpoint's heartbeats", IVC_CFG_UINT,
        10, 10000, heartbeat_ms),
    ROW("LIB_LIVENESS_TIMEOUT", "5000", "ms an endpoint's heartbeat may stand still before its "
        "peers call it dead (processes on one kernel are seen at once through file locks)",
        IVC_CFG_UINT, 100, 3600000, liveness_ms),
    ROW("LIB_EVENT_PERIOD", "1000", "microseconds between the looks of the watcher behind "
        "ivc_event_fd", IVC_CFG_UINT, 10, 1000000, event_us),
    ROW("LIB_REGION_SIZE", "64M", "bytes of a region file ivc_open creates (IVC_OPEN_CREATE)",
        IVC_CFG_SIZE, 1 << 20, 1ull << 40, region_size),
};

const ivc_cfg_table_t ivclib_config_table = {"libivc", lib_entries,
                                             sizeof(lib_entries) / sizeof(lib_entries[0])};

static int pow2(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

int ivclib_config_load(ivclib_config_t *c)
{
    int rc = ivc_cfg_load(&ivclib_config_table, c);
    if (rc != 0)
        return rc;
    if (!pow2(c->ring_size) || !pow2(c->lane_size) || !pow2(c->locks)) {
        ivc_error("IVC_LIB_RING_SIZE, IVC_LIB_LANE_SIZE and IVC_LIB_LOCKS must be powers of two "
                  "(%llu, %llu, %llu)",
                  (unsigned long long)c->ring_size, (unsigned long long)c->lane_size,
                  (unsigned long long)c->locks);
        return -EINVAL;
    }
    c->log_size = (c->log_size + 63) & ~63ull;
    return 0;
}
