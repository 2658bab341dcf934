/* The only place that names memory orders (STYLE.md "The shared region").
 *
 * Shared fields are declared with the IVC_ATOMIC() type so that a plain access is a
 * compile error; code reads and writes them through these helpers, and every acquire
 * and release at a call site names its partner in a comment. */
#ifndef IVC_ATOMIC_H
#define IVC_ATOMIC_H

#include <stdatomic.h>
#include <stdint.h>

#define IVC_ATOMIC(T) _Atomic(T)

#define IVC_CACHE_LINE   64
#define IVC_ALIGNED_LINE __attribute__((aligned(IVC_CACHE_LINE)))

/* Publishes everything written before it to a reader that loads with acquire. */
#define ivc_store_release(p, v) atomic_store_explicit((p), (v), memory_order_release)
/* Sees everything the partner's release store published. */
#define ivc_load_acquire(p) atomic_load_explicit((p), memory_order_acquire)
/* Single-copy atomic access with no ordering: counters, statistics, hints. */
#define ivc_load_relaxed(p)     atomic_load_explicit((p), memory_order_relaxed)
#define ivc_store_relaxed(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)
/* Read-modify-write operations; acq_rel unless the call site says otherwise. */
#define ivc_fetch_add(p, v) atomic_fetch_add_explicit((p), (v), memory_order_acq_rel)
#define ivc_exchange(p, v)  atomic_exchange_explicit((p), (v), memory_order_acq_rel)
#define ivc_cas(p, expp, v)                                                                        \
    atomic_compare_exchange_strong_explicit((p), (expp), (v), memory_order_acq_rel,                \
                                            memory_order_acquire)
#define ivc_fence_seq_cst() atomic_thread_fence(memory_order_seq_cst)

/* Compiler-only barrier for plain (non-shared) data around polling loops. */
#define ivc_compiler_barrier() atomic_signal_fence(memory_order_seq_cst)

static inline void ivc_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield" ::: "memory");
#endif
}

#endif
