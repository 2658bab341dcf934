/* MPI_THREAD_MULTIPLE's process-wide lock (src/base/ivc_biglock.c), with more threads than
 * cores, as on the 2-vCPU machines:
 * 1. mutual exclusion: threads increment a plain counter under the lock, some nested
 *    (the holder takes it again); the total must be exact;
 * 2. hand-over from wait loops: NTHR threads pass a token around a ring, each waiting for
 *    its turn the way a blocking MPI call waits (holding the lock, calling
 *    ivc_biglock_handover in its loop). Hand-overs must let the one thread that can make
 *    progress in; the rounds must finish (an alarm fails the test after 60 s);
 * 3. contended() is false for a holder nobody waits for, and for a thread that is not the
 *    holder. */
#include "test_util.h"

#include "base/ivc_biglock.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#define NTHR   8
#define INCS   20000
#define ROUNDS 2000

static long counter;     /* written only under the lock */
static volatile int token; /* whose turn: written under the lock */

static void *incrementer(void *arg)
{
    long me = (long)arg;
    for (int i = 0; i < INCS; i++) {
        ivc_biglock_lock();
        if ((i + me) % 3 == 0) { /* nested, as a callback into the program calling MPI */
            ivc_biglock_lock();
            counter++;
            ivc_biglock_unlock();
        } else {
            counter++;
        }
        ivc_biglock_unlock();
    }
    return NULL;
}

static void *ring_member(void *arg)
{
    int me = (int)(long)arg;
    for (int r = 0; r < ROUNDS; r++) {
        ivc_biglock_lock();
        while (token != me) /* a blocking call's wait loop */
            if (!ivc_biglock_handover()) {
                ivc_biglock_unlock(); /* nobody waits: let a thread in anyway */
                sched_yield();
                ivc_biglock_lock();
            }
        token = (me + 1) % NTHR;
        counter++;
        ivc_biglock_unlock();
    }
    return NULL;
}

static void run(void *(*fn)(void *))
{
    pthread_t t[NTHR];
    for (long i = 0; i < NTHR; i++)
        T_EQ(0, pthread_create(&t[i], NULL, fn, (void *)i), "pthread_create");
    for (int i = 0; i < NTHR; i++)
        pthread_join(t[i], NULL);
}

int main(void)
{
    alarm(60);
    ivc_biglock_enable();

    counter = 0;
    run(incrementer);
    T_EQ((long)NTHR * INCS, counter, "increments under the lock");

    counter = 0;
    token = 0;
    run(ring_member);
    T_EQ((long)NTHR * ROUNDS, counter, "token passes around the ring");
    T_EQ(0, token, "the token is back at thread 0");

    T_EQ(1, ivc_biglock_enter(), "enter takes the lock once it is on");
    T_EQ(0, ivc_biglock_contended(), "contended() with nobody waiting");
    T_EQ(0, ivc_biglock_handover(), "handover() with nobody waiting");
    ivc_biglock_exit(1);
    T_EQ(0, ivc_biglock_contended(), "contended() of a thread that does not hold it");
    printf("biglock: %d threads, %d increments and %d ring rounds each: ok\n", NTHR, INCS,
           ROUNDS);
    return 0;
}
