/* libivc minitransactions: 4 processes increment 8 shared counters (each picks counters by
 * a pattern, so several share each) 20000 times with compare-and-write commits through
 * ivc_mtx_retry; the totals must be exact (a lost or doubled update fails). Then each
 * outcome, the item checks, and the recovery of a committer killed between publishing its
 * redo log and applying it: its lock is freed and its writes are applied, all of them. */
#include "ivc_test.h"

#include "ivc/lib.h"

#include <errno.h>
#include <stdint.h>

#define NPROC 4
#define INCS 20000
#define NCNT 8

static int incrementer(void *arg)
{
    unsigned me = (unsigned)(uintptr_t)arg;
    char name[16];
    snprintf(name, sizeof(name), "inc%u", me);
    ivc_t *ivc = t_open(name);
    uint64_t off;
    T_RC(ivc_shm_get(ivc, "counters", NCNT * 64, &off, NULL));
    for (unsigned i = 0; i < INCS; i++) {
        /* Two counters per commit, 64 bytes apart: two locks. */
        unsigned c1 = (me + i) % NCNT, c2 = (me * 3 + i * 5 + 1) % NCNT;
        if (c2 == c1)
            c2 = (c1 + 1) % NCNT;
        uint64_t old[2], neu[2];
        ivc_mtx_item_t it[2];
        memcpy(&old[0], ivc_ptr(ivc, off + c1 * 64, 8), 8);
        memcpy(&old[1], ivc_ptr(ivc, off + c2 * 64, 8), 8);
        for (;;) {
            neu[0] = old[0] + 1;
            neu[1] = old[1] + 1;
            it[0] = (ivc_mtx_item_t){off + c1 * 64, 8,
                                     IVC_MTX_CMP | IVC_MTX_WRITE | IVC_MTX_READ, &old[0],
                                     &neu[0], &old[0]};
            it[1] = (ivc_mtx_item_t){off + c2 * 64, 8,
                                     IVC_MTX_CMP | IVC_MTX_WRITE | IVC_MTX_READ, &old[1],
                                     &neu[1], &old[1]};
            int rc = ivc_mtx_retry(ivc, it, 2, 60000);
            if (rc == IVC_MTX_COMMITTED)
                break;
            if (rc != IVC_MTX_COMPARE_FAILED)
                T_FAIL("commit: %d", rc); /* old[] now holds the current values: again */
        }
    }
    ivc_close(ivc);
    return 0;
}

/* Takes the lock of `off`, publishes a redo log writing `val` there and 64 bytes on, and
 * dies before applying it: a committer killed in the middle. */
static int half_committer(void *arg)
{
    uint64_t off = *(uint64_t *)arg;
    ivc_t *ivc = t_open("half");
    uint64_t who = ivclib_who(ivc->id, ivc->gen);
    for (int k = 0; k < 2; k++) {
        uint32_t idx = (uint32_t)(((off + k * 64) / 64) & (ivc->nlocks - 1));
        uint64_t zero = 0;
        if (!ivc_cas(ivclib_lock(ivc, idx), &zero, who))
            return 2;
    }
    ivclib_log_t *log = ivclib_log(ivc, ivc->id);
    uint8_t *p = (uint8_t *)(log + 1);
    uint64_t val = 777;
    for (int k = 0; k < 2; k++) {
        ivclib_logrec_t rec = {off + k * 64, 8, 0};
        memcpy(p, &rec, sizeof(rec));
        memcpy(p + sizeof(rec), &val, 8);
        p += sizeof(rec) + 8;
    }
    log->who = who;
    log->nrec = 2;
    log->bytes = 2 * (sizeof(ivclib_logrec_t) + 8);
    ivc_store_release(&log->state, IVCLIB_LOG_VALID);
    raise(SIGKILL);
    return 1;
}

int main(void)
{
    t_region_init("mtx", 110);
    pid_t pids[NPROC];
    for (unsigned i = 0; i < NPROC; i++)
        pids[i] = t_fork(incrementer, (void *)(uintptr_t)i);
    for (unsigned i = 0; i < NPROC; i++)
        T_EQ(0, t_wait(pids[i]), "incrementer");
    ivc_t *ivc = t_open("checker");
    uint64_t off;
    T_RC(ivc_shm_get(ivc, "counters", NCNT * 64, &off, NULL));
    uint64_t sum = 0;
    for (unsigned c = 0; c < NCNT; c++) {
        uint64_t v;
        memcpy(&v, ivc_ptr(ivc, off + c * 64, 8), 8);
        sum += v;
    }
    T_EQ(2ull * NPROC * INCS, sum, "sum of the counters");

    /* Outcomes and checks. */
    uint64_t a = 5, b = 6, r = 0;
    memcpy(ivc_ptr(ivc, off, 8), &a, 8);
    ivc_mtx_item_t it = {off, 8, IVC_MTX_CMP | IVC_MTX_WRITE, &b, &b, NULL};
    T_EQ(IVC_MTX_COMPARE_FAILED, ivc_mtx_commit(ivc, &it, 1), "compare fails");
    it.cmp = &a;
    T_EQ(IVC_MTX_COMMITTED, ivc_mtx_commit(ivc, &it, 1), "compare holds");
    it = (ivc_mtx_item_t){off, 8, IVC_MTX_READ, NULL, NULL, &r};
    T_EQ(IVC_MTX_COMMITTED, ivc_mtx_commit(ivc, &it, 1), "read");
    T_EQ(6, r, "value read");
    ivc_t *other = t_open("other");
    uint32_t idx = (uint32_t)((off / 64) & (ivc->nlocks - 1));
    ivc_store_release(ivclib_lock(other, idx), other->who); /* other holds the line */
    T_EQ(IVC_MTX_LOCK_FAILED, ivc_mtx_commit(ivc, &it, 1), "lock held by a live endpoint");
    T_EQ(-ETIMEDOUT, ivc_mtx_retry(ivc, &it, 1, 20), "retry gives up");
    ivc_store_release(ivclib_lock(other, idx), 0);
    ivc_close(other);
    it.len = 0;
    T_EQ(-EINVAL, ivc_mtx_commit(ivc, &it, 1), "len 0");
    it = (ivc_mtx_item_t){0, 8, IVC_MTX_READ, NULL, NULL, &r};
    T_EQ(-EINVAL, ivc_mtx_commit(ivc, &it, 1), "offset in the region header");
    it = (ivc_mtx_item_t){off, 8, IVC_MTX_WRITE, NULL, NULL, NULL};
    T_EQ(-EINVAL, ivc_mtx_commit(ivc, &it, 1), "write without a value");
    static uint8_t bigv[4096];
    uint64_t bigoff;
    T_RC(ivc_shm_get(ivc, "big", 8 * 4096, &bigoff, NULL));
    ivc_mtx_item_t many[8];
    for (int k = 0; k < 8; k++)
        many[k] = (ivc_mtx_item_t){bigoff + k * 4096, 4096, IVC_MTX_WRITE, NULL, bigv, NULL};
    T_EQ(-E2BIG, ivc_mtx_commit(ivc, many, 8), "more writes than the log holds");

    /* Recovery of a committer killed between its log and its writes. */
    uint64_t roff;
    T_RC(ivc_shm_get(ivc, "recover", 128, &roff, NULL));
    pid_t pid = t_fork(half_committer, &roff);
    T_EQ(128 + SIGKILL, t_wait(pid), "half committer");
    uint64_t v0 = 0, v1 = 0, expect = 777;
    memcpy(&v0, ivc_ptr(ivc, roff, 8), 8);
    T_EQ(0, v0, "the dead committer's write is not applied yet");
    ivc_mtx_item_t rit[2] = {{roff, 8, IVC_MTX_CMP | IVC_MTX_READ, &expect, NULL, &v0},
                             {roff + 64, 8, IVC_MTX_CMP | IVC_MTX_READ, &expect, NULL, &v1}};
    T_EQ(IVC_MTX_COMMITTED, ivc_mtx_retry(ivc, rit, 2, 20000),
         "both writes of the dead committer applied before its locks were freed");
    T_EQ(777, v0, "first write");
    T_EQ(777, v1, "second write");
    ivc_close(ivc);
    printf("mtx: ok\n");
    return 0;
}
