/* libivc barriers: 4 processes pass 2000 rounds in each waiting mode; in every round each
 * writes the round number into its cell of a shared block before the barrier and checks
 * everyone's cell after it (a barrier that let anyone through early is caught). Then: a
 * participant killed while the others wait breaks the barrier (-EOWNERDEAD for them,
 * within the watchdog), count mismatches and a fifth participant are refused. */
#include "ivc_test.h"

#include <errno.h>
#include <stdint.h>

#define NPART 4
#define ROUNDS 2000

static int participant(void *arg)
{
    unsigned me = (unsigned)(uintptr_t)arg;
    char name[16];
    snprintf(name, sizeof(name), "part%u", me);
    ivc_t *ivc = t_open(name);
    ivc_barrier_t *b;
    T_RC(ivc_barrier_open(ivc, "rounds", NPART, &b));
    uint64_t off;
    T_RC(ivc_shm_get(ivc, "cells", NPART * 64, &off, NULL));
    volatile uint32_t *cell = ivc_ptr(ivc, off, NPART * 64);
    int modes[3] = {IVC_WAIT_YIELD, IVC_WAIT_BLOCK, IVC_WAIT_SPIN};
    uint32_t r = 0;
    for (int m = 0; m < 3; m++) {
        /* Spinning 4 processes on 2 cores is slow: fewer spin rounds. */
        uint32_t rounds = modes[m] == IVC_WAIT_SPIN ? 200 : ROUNDS;
        for (uint32_t k = 0; k < rounds; k++, r++) {
            cell[me * 16] = r + 1;
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
            T_RC(ivc_barrier_wait(b, modes[m], 60000));
            for (unsigned j = 0; j < NPART; j++) {
                uint32_t v = cell[j * 16];
                if (v != r + 1 && v != r + 2)
                    T_FAIL("participant %u round %u: participant %u is at %u", me, r, j, v);
            }
            T_RC(ivc_barrier_wait(b, modes[m], 60000));
        }
    }
    /* The dying round: participant 3 dies instead of arriving. */
    if (me == NPART - 1)
        raise(SIGKILL);
    int rc = ivc_barrier_wait(b, me == 0 ? IVC_WAIT_SPIN : IVC_WAIT_BLOCK, 60000);
    if (rc != -EOWNERDEAD)
        T_FAIL("participant %u: expected -EOWNERDEAD, got %s", me, ivc_strerror(rc));
    T_EQ(-EOWNERDEAD, ivc_barrier_wait(b, IVC_WAIT_BLOCK, 1000), "a broken barrier stays broken");
    ivc_barrier_close(b);
    ivc_close(ivc);
    return 0;
}

int main(void)
{
    t_region_init("barrier", 110);
    pid_t pids[NPART];
    for (unsigned i = 0; i < NPART; i++)
        pids[i] = t_fork(participant, (void *)(uintptr_t)i);
    for (unsigned i = 0; i < NPART; i++)
        T_EQ(i == NPART - 1 ? 128 + SIGKILL : 0, t_wait(pids[i]), "participant");

    ivc_t *a = t_open("a"), *b = t_open("b"), *c = t_open("c");
    ivc_barrier_t *ba, *bb, *bc;
    T_RC(ivc_barrier_open(a, "two", 2, &ba));
    T_EQ(-EINVAL, ivc_barrier_open(b, "two", 3, &bb), "count mismatch");
    T_RC(ivc_barrier_open(b, "two", 2, &bb));
    T_EQ(-EUSERS, ivc_barrier_open(c, "two", 2, &bc), "a third participant");
    T_EQ(-EINVAL, ivc_barrier_open(c, "x", 0, &bc), "count 0");
    T_EQ(-EINVAL, ivc_barrier_wait(ba, 7, 0), "bad mode");
    /* Timeout: the other never arrives; the barrier is then broken for it too. */
    T_EQ(-ETIMEDOUT, ivc_barrier_wait(ba, IVC_WAIT_BLOCK, 30), "timeout");
    T_EQ(-EOWNERDEAD, ivc_barrier_wait(bb, IVC_WAIT_BLOCK, 30), "broken by the timeout");
    ivc_barrier_close(ba);
    ivc_barrier_close(bb);
    /* Everyone left: the name starts afresh. A one-participant barrier never waits. */
    T_RC(ivc_barrier_open(c, "two", 1, &bc));
    T_EQ(0, ivc_barrier_wait(bc, IVC_WAIT_SPIN, 0), "one participant");
    ivc_barrier_close(bc);
    ivc_close(a);
    ivc_close(b);
    ivc_close(c);
    printf("barrier: ok\n");
    return 0;
}
