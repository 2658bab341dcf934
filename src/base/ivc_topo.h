/* What the library can see of the machine's caches, for choices that help one machine and
 * hurt another (issue 14: non-temporal stores).
 *
 * Non-temporal (streaming) stores send copied data to memory instead of leaving it dirty in
 * the writer's cache. That pays when the reader would otherwise snoop it line by line out of
 * a cache it does not share, and costs when writer and reader share a last-level cache that
 * holds the data anyway. Measured: on the 2-vCPU development VM (AMD EPYC, a 32 MiB L3 that
 * the guest is told both vCPUs share, but the host may place them on different core
 * complexes) streaming stores keep rendezvous bandwidth at 11-20 GB/s where plain stores
 * fell to 2-5 GB/s; on a 16-core Xeon host (one socket, one 300 MiB L3 shared by every core)
 * they cost up to 35% of bandwidth from 8 KiB to 4 MiB (README, "Tunables").
 *
 * The rule (ivc_topo_stream_min): a last-level cache of at least 64 MiB that at least 8
 * online CPUs, or all of them, share is trusted to be one cache: plain stores up to a
 * quarter of it (larger copies would evict what they need anyway); anything smaller or
 * shared by only some of a few CPUs (per-complex L3s, unknown topology) keeps the measured
 * small-machine choice. "All of them" admits small VMs on hosts with one large L3: on the
 * 2-vCPU development VM of 2026-11-30 (Intel Xeon, a 260 MiB L3 shared by both vCPUs) plain
 * stores gave rendezvous bandwidth 1.16-1.33x and latency 0.74-0.92x from 64 KiB, Reduce,
 * Allgather and Alltoall 0.59-0.90x from 16-32 KiB and Bcast 0.66-0.77x from 128 KiB; the
 * AMD VM's 32 MiB L3 stays small. */
#ifndef IVC_TOPO_H
#define IVC_TOPO_H

#include <stddef.h>
#include <stdint.h>

typedef struct ivc_topo {
    uint64_t llc_bytes; /* size of the highest-level data or unified cache of cpu0; 0 unknown */
    uint32_t llc_level;
    uint32_t llc_cpus;  /* CPUs that share it (its shared_cpu_list) */
    uint32_t online;    /* online CPUs */
} ivc_topo_t;

/* Reads /sys/devices/system/cpu. Returns 0, or -ENOENT (fields then 0) when it cannot. */
int ivc_topo_read(ivc_topo_t *t);

/* The threshold an "auto" streaming-store tunable resolves to: `small` (the measured choice
 * for small or unknown machines) or a quarter of a large shared LLC. Writes one line saying
 * why into why[n] (may be NULL). */
uint64_t ivc_topo_stream_min(uint64_t small, char *why, size_t n);
/* The same rule for a given topology (llc_bytes 0: unknown). */
uint64_t ivc_topo_stream_min_of(const ivc_topo_t *t, uint64_t small, char *why, size_t n);

/* The CPUs this process may run on: its affinity mask's count, or the online CPUs when the
 * mask is unknown (then *known = 0). mask (may be NULL) receives the mask in `words` 64-bit
 * words, all zero when unknown. */
int ivc_topo_my_cpus(uint64_t *mask, int words, int *known);

#endif
