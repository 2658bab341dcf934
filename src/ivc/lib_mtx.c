/* libivc minitransactions: compare items and write items over region memory, committed all
 * or nothing.
 *
 * Locks: one word per hashed cache line (lock[(off / 64) & (nlocks - 1)]); a commit
 * try-locks the words of every line its items touch, in ascending index order, with one
 * CAS each and never waits: a word held by another live endpoint ends the commit with
 * IVC_MTX_LOCK_FAILED after releasing what it took (so commits cannot deadlock). With all
 * locks held it evaluates the compares; only if all hold does it write.
 *
 * Dying midway: a commit with a single naturally aligned write of 1, 2, 4 or 8 bytes does
 * it with one atomic store (it happened or not). Any other commit's writes go first into
 * the committer's redo log (published VALID with a
 * release store), then to their places, then the log is emptied and the locks released.
 * A committer that meets a lock of a dead endpoint (no longer alive, lib_open.c) applies
 * that endpoint's log if it is still VALID (the dead one's writes then happen completely),
 * empties it and frees the lock: every lock of the dead is freed the same way, and since
 * they are freed only after the log is applied, nobody sees half of a dead commit. One
 * recoverer at a time (a CAS on the log's state word, recoverable itself). */
#define _GNU_SOURCE
#include "lib.h"

#include "../base/ivc_log.h"
#include "../base/ivc_wait.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MTX_MAX_ITEMS 64
#define MTX_MAX_LEN   4096u
#define MTX_MAX_LOCKS 512 /* distinct lock words one commit may take */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Checks the items and lists the lock words they need, sorted and unique. Returns how
 * many, or -EINVAL / -E2BIG. */
static int mtx_plan(ivc_t *ivc, const ivc_mtx_item_t *items, int n, uint32_t *locks,
                    uint64_t *log_bytes)
{
    if (n < 1 || n > MTX_MAX_ITEMS || items == NULL)
        return -EINVAL;
    int nl = 0;
    uint64_t bytes = 0;
    for (int i = 0; i < n; i++) {
        const ivc_mtx_item_t *it = &items[i];
        uint32_t f = it->flags;
        if (it->len == 0 || it->len > MTX_MAX_LEN || f == 0 ||
            (f & ~(IVC_MTX_CMP | IVC_MTX_WRITE | IVC_MTX_READ)) != 0 ||
            ((f & IVC_MTX_CMP) && it->cmp == NULL) || ((f & IVC_MTX_WRITE) && it->wr == NULL) ||
            ((f & IVC_MTX_READ) && it->rd == NULL) || !ivclib_in_heap(ivc, it->off, it->len))
            return -EINVAL;
        if (f & IVC_MTX_WRITE)
            bytes += sizeof(ivclib_logrec_t) + ((it->len + 7u) & ~7u);
        for (uint64_t line = it->off / IVC_CACHE_LINE;
             line <= (it->off + it->len - 1) / IVC_CACHE_LINE; line++) {
            if (nl == MTX_MAX_LOCKS)
                return -EINVAL;
            locks[nl++] = (uint32_t)(line & (ivc->nlocks - 1));
        }
    }
    if (sizeof(ivclib_log_t) + bytes > ivc->log_size)
        return -E2BIG;
    if (nl > 16) {
        qsort(locks, (size_t)nl, sizeof(*locks), cmp_u32);
    } else { /* the usual handful: insertion sort, no call */
        for (int i = 1; i < nl; i++) {
            uint32_t v = locks[i];
            int j = i - 1;
            for (; j >= 0 && locks[j] > v; j--)
                locks[j + 1] = locks[j];
            locks[j + 1] = v;
        }
    }
    int u = 0;
    for (int i = 0; i < nl; i++)
        if (u == 0 || locks[u - 1] != locks[i])
            locks[u++] = locks[i];
    *log_bytes = bytes;
    return u;
}

static void mtx_unlock(ivc_t *ivc, const uint32_t *locks, int n)
{
    for (int i = 0; i < n; i++)
        /* R21: publishes this commit's writes; pairs with the next holder's CAS. */
        ivc_store_release(ivclib_lock(ivc, locks[i]), 0);
}

/* Replays a log whose state this process owns (RECOVERING by it). */
static int log_apply(ivc_t *ivc, ivclib_log_t *log)
{
    uint32_t nrec = log->nrec, bytes = log->bytes;
    if (bytes > ivc->log_size - sizeof(ivclib_log_t))
        return -EPROTO;
    const uint8_t *p = (const uint8_t *)(log + 1), *end = p + bytes;
    /* Validate every record first: a damaged log is not half applied. */
    for (int pass = 0; pass < 2; pass++) {
        const uint8_t *q = p;
        for (uint32_t i = 0; i < nrec; i++) {
            if ((size_t)(end - q) < sizeof(ivclib_logrec_t))
                return -EPROTO;
            ivclib_logrec_t rec;
            memcpy(&rec, q, sizeof(rec));
            uint64_t padded = ((uint64_t)rec.len + 7) & ~7ull;
            if (rec.len == 0 || rec.len > MTX_MAX_LEN || !ivclib_in_heap(ivc, rec.off, rec.len) ||
                (uint64_t)(end - q) - sizeof(rec) < padded)
                return -EPROTO;
            if (pass == 1)
                memcpy(ivc->region.base + rec.off, q + sizeof(rec), rec.len);
            q += sizeof(rec) + padded;
        }
    }
    return 0;
}

int ivclib_log_recover(ivc_t *ivc, uint32_t id, uint64_t dead_who)
{
    if (id >= ivc->nendpoints)
        return -EPROTO;
    ivclib_log_t *log = ivclib_log(ivc, id);
    uint64_t mine = ivclib_log_recovering(ivc->id, ivc->gen);
    for (;;) {
        uint64_t st = ivc_load_acquire(&log->state);
        if (st == IVCLIB_LOG_EMPTY)
            return 0;
        if (dead_who != 0 && log->who != dead_who)
            return 0; /* the log is another (live) incarnation's */
        if (st != IVCLIB_LOG_VALID) {
            if ((st & 0xff) != IVCLIB_LOG_RECOVERING) {
                /* Not a state of the protocol: overwritten. Nothing to apply. */
                ivc_cas(&log->state, &st, IVCLIB_LOG_EMPTY);
                return -EPROTO;
            }
            uint32_t rid = (uint32_t)(st >> 32) - 1;
            if (st != mine && rid < ivc->nendpoints) {
                /* Another recoverer: alive if its slot's incarnation matches and it runs. */
                uint32_t rgen = ivc_load_acquire(&ivclib_ep(ivc, rid)->gen);
                if (((rgen & 0xffffffu) == ((st >> 8) & 0xffffffu)) &&
                    ivclib_alive(ivc, ivclib_who(rid, rgen)))
                    return -EAGAIN;
            }
        }
        /* Acquire (in the CAS): sees the records the owner published with R22. */
        if (!ivc_cas(&log->state, &st, mine))
            continue;
        int rc = log_apply(ivc, log);
        if (rc != 0)
            ivc_error("libivc: the minitransaction log of endpoint %u is damaged; its writes are "
                      "dropped and its locks freed",
                      id);
        /* Emptied either way: a damaged log would otherwise hold its locks forever. */
        ivc_store_release(&log->state, IVCLIB_LOG_EMPTY);
        return rc;
    }
}

/* A lock word held by `holder`: frees it if the holder is dead (after its log). Returns 1
 * when freed, 0 when not. */
static int mtx_recover_lock(ivc_t *ivc, uint32_t idx, uint64_t holder)
{
    uint32_t id = ivclib_who_id(holder);
    if (id >= ivc->nendpoints) {
        /* Not a who at all: the word was overwritten. Take it back. */
        ivc_error("libivc: minitransaction lock %u holds an impossible owner; freed", idx);
        return ivc_cas(ivclib_lock(ivc, idx), &holder, 0);
    }
    if (ivclib_alive(ivc, holder))
        return 0;
    int rc = ivclib_log_recover(ivc, id, holder);
    if (rc != 0 && rc != -EPROTO)
        return 0;
    return ivc_cas(ivclib_lock(ivc, idx), &holder, 0);
}

/* Writes a naturally aligned item of 1, 2, 4 or 8 bytes with one single-copy atomic
 * store (relaxed: the lock's release store R21 publishes it). Returns 0 for other items. */
static int single_store(uint8_t *base, const ivc_mtx_item_t *it)
{
    void *at = base + it->off;
    if (it->off % it->len != 0)
        return 0;
    switch (it->len) {
    case 1: {
        uint8_t v;
        memcpy(&v, it->wr, 1);
        ivc_store_relaxed((IVC_ATOMIC(uint8_t) *)at, v);
        return 1;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, it->wr, 2);
        ivc_store_relaxed((IVC_ATOMIC(uint16_t) *)at, v);
        return 1;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, it->wr, 4);
        ivc_store_relaxed((IVC_ATOMIC(uint32_t) *)at, v);
        return 1;
    }
    case 8: {
        uint64_t v;
        memcpy(&v, it->wr, 8);
        ivc_store_relaxed((IVC_ATOMIC(uint64_t) *)at, v);
        return 1;
    }
    default: return 0;
    }
}

int ivc_mtx_commit(ivc_t *ivc, ivc_mtx_item_t *items, int n)
{
    uint32_t locks[MTX_MAX_LOCKS];
    uint64_t log_bytes;
    int nl = mtx_plan(ivc, items, n, locks, &log_bytes);
    if (nl < 0)
        return nl;
    int held = 0;
    for (; held < nl; held++) {
        IVC_ATOMIC(uint64_t) *w = ivclib_lock(ivc, locks[held]);
        uint64_t cur = 0;
        /* Acquire (in the CAS): sees the previous holder's writes (R21). */
        if (ivc_cas(w, &cur, ivc->who))
            continue;
        /* Held. Look at the holder's liveness at most every millisecond: a contended lock
         * is the common case and a look may cost a system call. */
        uint64_t now = ivc_now_ns();
        if (now - ivc->mtx_live_ns >= IVCLIB_CHECK_NS) {
            ivc->mtx_live_ns = now;
            if (mtx_recover_lock(ivc, locks[held], cur)) {
                cur = 0;
                if (ivc_cas(w, &cur, ivc->who))
                    continue;
            }
        }
        mtx_unlock(ivc, locks, held);
        return IVC_MTX_LOCK_FAILED;
    }
    uint8_t *base = ivc->region.base;
    int ok = 1;
    /* Compares first, then reads: a read buffer may be the compare value (read the
     * current value back for the next attempt). */
    for (int i = 0; i < n; i++) {
        ivc_mtx_item_t *it = &items[i];
        if ((it->flags & IVC_MTX_CMP) && memcmp(base + it->off, it->cmp, it->len) != 0)
            ok = 0;
    }
    for (int i = 0; i < n; i++)
        if (items[i].flags & IVC_MTX_READ)
            memcpy(items[i].rd, base + items[i].off, items[i].len);
    if (!ok) {
        mtx_unlock(ivc, locks, nl);
        return IVC_MTX_COMPARE_FAILED;
    }
    int nw = 0, last = -1;
    for (int i = 0; i < n; i++)
        if (items[i].flags & IVC_MTX_WRITE)
            nw++, last = i;
    if (nw == 1 && single_store(base, &items[last])) {
        /* One naturally aligned write of 1, 2, 4 or 8 bytes is one store: a committer
         * that dies has made it or not, so it needs no log. */
    } else if (log_bytes > 0) {
        ivclib_log_t *log = ivclib_log(ivc, ivc->id);
        uint8_t *p = (uint8_t *)(log + 1);
        uint32_t nrec = 0;
        for (int i = 0; i < n; i++) {
            ivc_mtx_item_t *it = &items[i];
            if (!(it->flags & IVC_MTX_WRITE))
                continue;
            ivclib_logrec_t rec = {it->off, it->len, 0};
            memcpy(p, &rec, sizeof(rec));
            memcpy(p + sizeof(rec), it->wr, it->len);
            p += sizeof(rec) + ((it->len + 7u) & ~7u);
            nrec++;
        }
        log->who = ivc->who;
        log->nrec = nrec;
        log->bytes = (uint32_t)log_bytes;
        /* R22: the log is complete; pairs with the recoverer's CAS in ivclib_log_recover. */
        ivc_store_release(&log->state, IVCLIB_LOG_VALID);
        for (int i = 0; i < n; i++)
            if (items[i].flags & IVC_MTX_WRITE)
                memcpy(base + items[i].off, items[i].wr, items[i].len);
        ivc_store_release(&log->state, IVCLIB_LOG_EMPTY);
    }
    mtx_unlock(ivc, locks, nl);
    return IVC_MTX_COMMITTED;
}

int ivc_mtx_retry(ivc_t *ivc, ivc_mtx_item_t *items, int n, int timeout_ms)
{
    uint64_t deadline = 0; /* read the clock only once a commit failed */
    uint32_t backoff = 1, seed = ivc->id * 2654435761u + 1;
    for (;;) {
        int rc = ivc_mtx_commit(ivc, items, n);
        if (rc != IVC_MTX_LOCK_FAILED)
            return rc;
        if (timeout_ms >= 0) {
            uint64_t now = ivc_now_ns();
            if (deadline == 0)
                deadline = now + (uint64_t)timeout_ms * 1000000ull;
            else if (now >= deadline)
                return -ETIMEDOUT;
        }
        /* Exponential backoff with jitter: pause a random number of times up to `backoff`,
         * doubling to 1024 pauses; past that, give the core away (the holder may need it). */
        seed = seed * 1103515245u + 12345u;
        uint32_t spins = 1 + (seed >> 8) % backoff;
        if (backoff < 1024) {
            for (uint32_t i = 0; i < spins; i++)
                ivc_cpu_relax();
            backoff *= 2;
        } else {
            sched_yield();
        }
    }
}
