/* Check words of the shared-memory channel (IVC_CHECKSUM; framing in shm_ring.h and
 * shm_pipe.h).
 *
 * A check word is 64 bits of three interleaved CRC32C lanes over the data, folded with the
 * length and a seed: lane k takes the 8-byte words k, k+3, k+6, ...; the last partial word
 * goes, zero-padded, into lane 2; two more CRC steps fold the lanes and the length into each
 * half of the result. Three lanes keep the CRC unit busy (latency 3, one per cycle), so with
 * SSE4.2 it runs at about 25 GB/s here (fused with a copy about 20 GB/s; a 64-bit
 * multiply-fold hash measured 15 GB/s). Without SSE4.2 (checked at run time: a VM's CPU
 * model may hide it) a table-driven CRC computes the same function, so ranks whose CPUs
 * differ still agree.
 *
 * It detects corruption (a scribbling co-tenant, a stale or torn chunk), not forgery: the
 * function is public and unkeyed, so a writer that wants to forge data can forge the check
 * word too. The seed binds a check word to the position it was written for (ring position,
 * chunk counter), so a stale record or chunk left in place does not verify. */
#ifndef IVC_SHM_CSUM_H
#define IVC_SHM_CSUM_H

#include <stdint.h>

/* Computes the check word of `len` bytes at `src` with `seed`, copying them to `dst` on the
 * way when `dst` is not NULL (the bytes checked are exactly the bytes copied, however `src`
 * changes meanwhile). dst and src must not overlap. Returns the check word. */
uint64_t ivc_shm_csum_copy(void *dst, const void *src, uint64_t len, uint64_t seed);

/* Chooses the implementation: the CRC32C instruction when the CPU has it, unless
 * `force_soft`. Called at start-up (ivc_shm_chan_create); ivc_shm_csum_copy also works
 * before. Returns 1 when the instruction is used, 0 for the table-driven code. */
int ivc_shm_csum_select(int force_soft);

#endif
