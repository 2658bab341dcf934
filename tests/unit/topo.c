/* The rule behind IVC_STREAM_MIN=auto and IVC_COLL_STREAM_MIN=auto (base/ivc_topo.h): which
 * cache topologies get plain stores up to a quarter of the last-level cache, and which keep
 * the small-machine choice. */
#include "test_util.h"

#include "base/ivc_topo.h"

#include <stdint.h>
#include <string.h>

#define MIB ((uint64_t)1 << 20)

static void expect(uint64_t llc, uint32_t cpus, uint32_t online, uint64_t want, const char *what)
{
    ivc_topo_t t = {.llc_bytes = llc, .llc_level = 3, .llc_cpus = cpus, .online = online};
    char why[256] = "";
    uint64_t got = ivc_topo_stream_min_of(&t, 12345, why, sizeof why);
    T_EQ(want, got, what);
    T_TRUE(strlen(why) > 0, "a reason is given");
}

int main(void)
{
    /* The development VM of 2026-11-30: 2 vCPUs that share a 260 MiB L3. */
    expect(260 * MIB, 2, 2, 65 * MIB, "260 MiB L3 shared by all 2 CPUs");
    /* The 16-core host: one 300 MiB L3 for all. */
    expect(300 * MIB, 16, 16, 75 * MIB, "300 MiB L3 shared by 16 of 16 CPUs");
    /* A large L3 of one complex out of several: shared by 8, trusted. */
    expect(96 * MIB, 8, 32, 24 * MIB, "96 MiB L3 shared by 8 of 32 CPUs");
    /* Shared by only some of a few CPUs: per-complex, the small-machine choice. */
    expect(96 * MIB, 4, 8, 12345, "96 MiB L3 shared by 4 of 8 CPUs");
    /* Small caches, however shared: the AMD development VM's 32 MiB. */
    expect(32 * MIB, 2, 2, 12345, "32 MiB L3 shared by 2 of 2 CPUs");
    expect(32 * MIB, 64, 64, 12345, "32 MiB L3 shared by 64 of 64 CPUs");
    /* Unknown topology. */
    expect(0, 0, 0, 12345, "unknown topology");
    return 0;
}
