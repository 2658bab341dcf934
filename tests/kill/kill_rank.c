/* One rank of a hand-started job (no launcher) in which one rank, the victim, is killed
 * with SIGKILL (or stopped with SIGSTOP) by tests/kill/kill.sh while the other ranks, the
 * survivors, are blocked on it. Issue 15: every survivor must learn of the failure within
 * a bounded time and then do what its error handler says.
 *
 *   kill_rank DIR MODE HANDLER VICTIM [BOUND]
 *     DIR      scratch directory shared with the script: this rank writes DIR/ready.R
 *              (holding its pid) once it is "in position" for the kill
 *     MODE     the blocking situation (below)
 *     HANDLER  return: MPI_ERRORS_RETURN on MPI_COMM_WORLD and the window; the survivors
 *                      must get MPI_ERR_PROC_FAILED, then go on and finalize (exit 0)
 *              fatal:  MPI_ERRORS_ARE_FATAL; the survivors must never return from the call
 *     VICTIM   the rank that is killed
 *     BOUND    seconds after which a rank that is still running prints "kill: HUNG" and
 *              exits 99, so that nothing outlives the test (default 60)
 *
 * Modes; the survivors' call, and when each rank writes its ready file:
 *   recv        MPI_Recv from the victim                       survivors: blocked 300 ms
 *   anysrc      MPI_Recv from MPI_ANY_SOURCE (only the victim could send)       same
 *   probe       MPI_Probe on the victim                                         same
 *   wait_irecv  MPI_Irecv from the victim, then MPI_Wait                        same
 *   send_full   1 KiB eager MPI_Sends to the victim, which never receives, until one
 *               blocks on the full ring                        survivors: a send blocked
 *   rndv_from   the victim sends 64 MiB messages to each survivor in turn, forever; the
 *               survivors receive them (checked): killed mid-transfer   after one round
 *   rndv_to     the survivors send 64 MiB messages to the victim, which receives them
 *               from each survivor in turn (checked)                    after one round
 *   allreduce   MPI_Allreduce on MPI_COMM_WORLD; the victim never joins  blocked 300 ms
 *   barrier     MPI_Barrier on MPI_COMM_WORLD; likewise                           same
 *   win_lock    the victim holds MPI_Win_lock(EXCLUSIVE) on rank T (the lowest survivor)
 *               of a window; the survivors ask for the same lock: it must be recovered
 *               (MPI_SUCCESS) or refused with MPI_ERR_PROC_FAILED            same
 *   win_shared  likewise, the victim holding MPI_Win_lock(SHARED)                  same
 *   finalize    MPI_Finalize with the victim alive but never finalizing       same
 *               (under MPI_ERRORS_ARE_FATAL it may complete, or end the job)
 *   loop        every rank loops over a ring exchange and an MPI_Allreduce (checked)
 *               until rank 0 sees DIR/stop; for SIGSTOP     every rank, after 20 rounds
 * The victim, once in position, sleeps (its MPI library's threads, if any, keep running).
 *
 * Output lines (stdout, unbuffered), which kill.sh reads:
 *   kill: survivor R: main CALL -> CLASS at=EPOCH_MS (error string)
 *   kill: survivor R: finalized
 *   kill: survivor R: completed N rounds                      (loop mode, nobody failed)
 *   kill: FAIL: ... expected X, got Y                         (exit 1)
 *   kill: HUNG: ...                                           (exit 99)
 * They never say "rank N", so that kill.sh can look for the library naming the victim. */
#define _GNU_SOURCE
#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BIG (64u << 20)   /* rendezvous message bytes */
#define SMALL 1024        /* eager message bytes (below IVC_EAGER_LIMIT's default) */
#define MAX_SENDS 1000000 /* send_full: give up when this many sends never blocked */

enum { TAG_P2P = 13, TAG_BIG = 10, TAG_FULL = 12, TAG_RING = 77, TAG_LOOP = 20 };

static const char *dir, *mode;
static int rank, size, victim, fatal;
static int bound_s = 60;

/* ---- the watchdog thread ----
 * Writes DIR/ready.R once the main thread has been inside one call for 300 ms (armed by
 * arm(); `progress` counts the calls enter_call() names), and ends a process that outlives
 * BOUND. */
static atomic_long progress;
static atomic_int armed;
static _Atomic(const char *) current = "MPI_Init";
static atomic_int reported; /* the main call returned */

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void say_ready(void)
{
    char path[4096], tmp[4096];
    snprintf(path, sizeof(path), "%s/ready.%d", dir, rank);
    snprintf(tmp, sizeof(tmp), "%s/.ready.%d.tmp", dir, rank);
    FILE *f = fopen(tmp, "w");
    if (f == NULL || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0 ||
        rename(tmp, path) != 0) {
        printf("kill: FAIL: cannot write %s: %s\n", path, strerror(errno));
        _exit(1);
    }
}

static void *watchdog(void *arg)
{
    (void)arg;
    long long start = now_ms(), since = start;
    long seen = -1;
    int noted = 0;
    for (;;) {
        usleep(20000);
        long long t = now_ms();
        if (t - start > (long long)bound_s * 1000) {
            printf("kill: HUNG: %d of %d (mode %s) still running after %d s\n", rank, size,
                   mode, bound_s);
            _exit(99);
        }
        long p = atomic_load(&progress);
        if (p != seen) {
            seen = p;
            since = t;
            noted = 0;
        } else if (atomic_load(&armed) && t - since >= 300) {
            atomic_store(&armed, 0);
            say_ready();
        } else if (!noted && t - since >= 5000 && atomic_load(&reported)) {
            /* After the failure, a call that takes this long is where a survivor hangs. */
            noted = 1;
            printf("kill: note: %d still in %s after 5 s\n", rank, atomic_load(&current));
        }
    }
    return NULL;
}

/* Called before each blocking call of a survivor: names it for the watchdog's note. */
static void enter_call(const char *what)
{
    atomic_store(&current, what);
    atomic_fetch_add(&progress, 1);
}

/* Likewise, and the rank says it is in position once this call has blocked 300 ms. */
static void arm(const char *what)
{
    enter_call(what);
    atomic_store(&armed, 1);
}

/* ---- reporting ---- */
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    printf("kill: FAIL: survivor %d (mode %s, %s): %s\n", rank, mode, fatal ? "fatal" : "return",
           buf);
    fflush(stdout);
    _exit(1);
}

static const char *class_name(int cls)
{
    static char buf[32];
    switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_PROC_FAILED: return "MPI_ERR_PROC_FAILED";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    default: snprintf(buf, sizeof(buf), "error class %d", cls); return buf;
    }
}

static int class_of(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS && MPI_Error_class(rc, &cls) != MPI_SUCCESS)
        cls = -1;
    return cls;
}

static const char *text_of(int rc)
{
    static char s[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    s[0] = 0;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof(s), "(no error string)");
    s[MPI_MAX_ERROR_STRING] = 0;
    return s;
}

/* Whether `cls` reports the failure: MPI_ERR_PROC_FAILED, or ULFM's "pending" variant
 * where mpi-ext.h defines it (an ANY_SOURCE receive may get that one). */
static int is_proc_failed(int cls)
{
    if (cls == MPI_ERR_PROC_FAILED)
        return 1;
#ifdef MPIX_ERR_PROC_FAILED_PENDING
    if (cls == MPIX_ERR_PROC_FAILED_PENDING)
        return 1;
#endif
    return 0;
}

/* The survivors' call that waited for the victim returned `rc`. Under MPI_ERRORS_ARE_FATAL
 * an error must never come back; under MPI_ERRORS_RETURN it must be MPI_ERR_PROC_FAILED,
 * or MPI_SUCCESS where `success_ok` (a recovered lock, MPI_Finalize). */
static void main_result(const char *call, int rc, int success_ok)
{
    int cls = class_of(rc);
    atomic_store(&reported, 1);
    printf("kill: survivor %d: main %s -> %s at=%lld (%s)\n", rank, call, class_name(cls),
           now_ms(), rc == MPI_SUCCESS ? "" : text_of(rc));
    if (fatal && rc != MPI_SUCCESS)
        fail("%s returned %s under MPI_ERRORS_ARE_FATAL: expected the job to end", call,
             class_name(cls));
    if (rc == MPI_SUCCESS && !success_ok)
        fail("%s: expected MPI_ERR_PROC_FAILED, got MPI_SUCCESS although the victim is dead",
             call);
    if (rc != MPI_SUCCESS && !is_proc_failed(cls))
        fail("%s: expected MPI_ERR_PROC_FAILED, got %s (%s)", call, class_name(cls),
             text_of(rc));
}

/* A later call that involves the victim must fail the same way (or end the job). */
static void expect_failed(const char *call, int rc)
{
    int cls = class_of(rc);
    if (fatal && rc != MPI_SUCCESS)
        fail("%s returned %s under MPI_ERRORS_ARE_FATAL: expected the job to end", call,
             class_name(cls));
    if (!is_proc_failed(cls))
        fail("%s after the failure: expected MPI_ERR_PROC_FAILED, got %s (%s)", call,
             class_name(cls), rc == MPI_SUCCESS ? "" : text_of(rc));
}

static void expect_success(const char *call, int rc)
{
    if (rc != MPI_SUCCESS)
        fail("%s among survivors: expected MPI_SUCCESS, got %s (%s)", call,
             class_name(class_of(rc)), text_of(rc));
}

/* ---- what survivors do after the failure (MPI_ERRORS_RETURN) ---- */

/* A ring over the survivors only: point-to-point among them goes on. */
static void survivors_ring(int round)
{
    int me = -1, n = 0;
    int *list = malloc(sizeof(int) * size);
    for (int r = 0; r < size; r++) {
        if (r == victim)
            continue;
        if (r == rank)
            me = n;
        list[n++] = r;
    }
    int to = list[(me + 1) % n], from = list[(me + n - 1) % n];
    int out[4] = {rank, to, round, 12345}, in[4] = {-1, -1, -1, -1};
    enter_call("MPI_Sendrecv (survivors' ring)");
    int rc = MPI_Sendrecv(out, 4, MPI_INT, to, TAG_RING + round, in, 4, MPI_INT, from,
                          TAG_RING + round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect_success("MPI_Sendrecv", rc);
    if (in[0] != from || in[1] != rank || in[2] != round || in[3] != 12345)
        fail("survivors' ring: expected {%d,%d,%d,12345} from %d, got {%d,%d,%d,%d}", from,
             rank, round, from, in[0], in[1], in[2], in[3]);
    free(list);
}

static void after_failure(void)
{
    int x = 0;
    /* A future operation involving the victim fails at once. */
    enter_call("MPI_Recv from the victim (after the failure)");
    expect_failed("MPI_Recv from the victim",
                  MPI_Recv(&x, 1, MPI_INT, victim, TAG_P2P + 100, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    survivors_ring(1);
    /* A collective on a communicator that contains the victim fails too. */
    enter_call("MPI_Barrier (after the failure)");
    expect_failed("MPI_Barrier(MPI_COMM_WORLD)", MPI_Barrier(MPI_COMM_WORLD));
    survivors_ring(2);
}

static void finish(void)
{
    enter_call("MPI_Finalize");
    int rc = MPI_Finalize();
    int cls = class_of(rc);
    if (rc != MPI_SUCCESS && !is_proc_failed(cls))
        fail("MPI_Finalize: expected MPI_SUCCESS or MPI_ERR_PROC_FAILED, got %s",
             class_name(cls));
    if (fatal) {
        printf("kill: FAIL: survivor %d finished under MPI_ERRORS_ARE_FATAL (mode %s): "
               "expected the job to end\n",
               rank, mode);
        exit(1);
    }
    printf("kill: survivor %d: finalized\n", rank);
    exit(0);
}

static void victim_sleep(void)
{
    for (;;)
        pause();
}

/* ---- modes ---- */

static void fill(unsigned char *b, int from, int to, long it)
{
    for (size_t i = 0; i < BIG; i += 4096) {
        uint64_t w = ((uint64_t)from << 48) ^ ((uint64_t)to << 40) ^ ((uint64_t)it << 8) ^ i;
        memcpy(b + i, &w, sizeof(w));
    }
}

static void check(const unsigned char *b, int from, int to, long it)
{
    for (size_t i = 0; i < BIG; i += 4096) {
        uint64_t w = ((uint64_t)from << 48) ^ ((uint64_t)to << 40) ^ ((uint64_t)it << 8) ^ i,
                 got;
        memcpy(&got, b + i, sizeof(got));
        if (got != w)
            fail("64 MiB message %ld from %d: word at %zu: expected %#llx, got %#llx", it, from,
                 i, (unsigned long long)w, (unsigned long long)got);
    }
}

static void mode_rndv(int victim_sends)
{
    unsigned char *big = malloc(BIG);
    if (big == NULL)
        fail("out of memory");
    if (rank == victim) {
        for (long it = 0;; it++) {
            for (int s = 0; s < size; s++) {
                if (s == victim)
                    continue;
                int rc;
                if (victim_sends) {
                    fill(big, victim, s, it);
                    rc = MPI_Send(big, BIG, MPI_BYTE, s, TAG_BIG, MPI_COMM_WORLD);
                } else {
                    rc = MPI_Recv(big, BIG, MPI_BYTE, s, TAG_BIG, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE);
                    if (rc == MPI_SUCCESS)
                        check(big, s, victim, it);
                }
                if (rc != MPI_SUCCESS)
                    fail("the victim's 64 MiB transfer failed before the kill: %s",
                         text_of(rc));
            }
            if (it == 0)
                say_ready();
        }
    }
    say_ready();
    for (long it = 0;; it++) {
        int rc;
        enter_call("MPI_Recv (64 MiB)");
        if (victim_sends) {
            rc = MPI_Recv(big, BIG, MPI_BYTE, victim, TAG_BIG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS) {
                check(big, victim, rank, it);
                continue;
            }
            main_result("MPI_Recv (64 MiB)", rc, 0);
        } else {
            fill(big, rank, victim, it);
            enter_call("MPI_Send (64 MiB)");
            rc = MPI_Send(big, BIG, MPI_BYTE, victim, TAG_BIG, MPI_COMM_WORLD);
            if (rc == MPI_SUCCESS)
                continue;
            main_result("MPI_Send (64 MiB)", rc, 0);
        }
        break;
    }
    free(big);
}

static void mode_send_full(void)
{
    char buf[SMALL];
    memset(buf, 0x5a, sizeof(buf));
    if (rank == victim) {
        say_ready();
        victim_sleep();
    }
    arm("MPI_Send (ring full)");
    for (long i = 0; i < MAX_SENDS; i++) {
        enter_call("MPI_Send (ring full)");
        int rc = MPI_Send(buf, SMALL, MPI_BYTE, victim, TAG_FULL, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) {
            main_result("MPI_Send (ring full)", rc, 0);
            return;
        }
    }
    fail("%d eager sends to a rank that never receives: expected one to block, none did",
         MAX_SENDS);
}

static void mode_win_lock(int victim_lock)
{
    int *base = NULL;
    MPI_Win win;
    int target = victim == 0 ? 1 : 0; /* the lowest survivor */
    int rc = MPI_Win_allocate(sizeof(int) * size, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                              &base, &win);
    if (rc != MPI_SUCCESS)
        fail("MPI_Win_allocate: %s", text_of(rc));
    MPI_Win_set_errhandler(win, fatal ? MPI_ERRORS_ARE_FATAL : MPI_ERRORS_RETURN);
    for (int i = 0; i < size; i++)
        base[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == victim) {
        int v = 1000 + rank;
        if (MPI_Win_lock(victim_lock, target, 0, win) != MPI_SUCCESS ||
            MPI_Put(&v, 1, MPI_INT, target, rank, 1, MPI_INT, win) != MPI_SUCCESS ||
            MPI_Win_flush(target, win) != MPI_SUCCESS)
            fail("the victim could not take the lock");
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the victim holds the lock */
    if (rank == victim) {
        say_ready();
        victim_sleep();
    }
    arm("MPI_Win_lock");
    rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
    main_result("MPI_Win_lock(EXCLUSIVE)", rc, 1);
    if (rc == MPI_SUCCESS) {
        /* Recovered: the lock works as a lock again. */
        int v = 1000 + rank;
        enter_call("MPI_Put/MPI_Win_unlock");
        expect_success("MPI_Put", MPI_Put(&v, 1, MPI_INT, target, rank, 1, MPI_INT, win));
        expect_success("MPI_Win_unlock", MPI_Win_unlock(target, win));
    }
    after_failure(); /* synchronizes the survivors: every Put above is complete */
    if (rc == MPI_SUCCESS && rank == target) {
        expect_success("MPI_Win_lock(self)", MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
        for (int r = 0; r < size; r++)
            if (r != victim && base[r] != 1000 + r)
                fail("window word %d after the survivors' puts: expected %d, got %d", r,
                     1000 + r, base[r]);
        expect_success("MPI_Win_unlock(self)", MPI_Win_unlock(target, win));
    }
    enter_call("MPI_Win_free");
    rc = MPI_Win_free(&win);
    if (rc != MPI_SUCCESS && !is_proc_failed(class_of(rc)))
        fail("MPI_Win_free: expected MPI_SUCCESS or MPI_ERR_PROC_FAILED, got %s (%s)",
             class_name(class_of(rc)), text_of(rc));
    finish();
}

static int stop_seen(void)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/stop", dir);
    return access(path, F_OK) == 0;
}

static void mode_loop(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (long it = 0;; it++) {
        if (it == 20)
            say_ready();
        long out[2] = {rank, it}, in[2] = {-1, -1};
        enter_call("MPI_Sendrecv (loop)");
        int rc = MPI_Sendrecv(out, 2, MPI_LONG, right, TAG_LOOP, in, 2, MPI_LONG, left, TAG_LOOP,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            main_result("MPI_Sendrecv (loop)", rc, 0);
            return;
        }
        if (in[0] != left || in[1] != it)
            fail("round %ld: expected {%d,%ld} from the left, got {%ld,%ld}", it, left, it,
                 in[0], in[1]);
        long mine[2] = {it, rank == 0 && stop_seen()}, sum[2] = {0, 0};
        enter_call("MPI_Allreduce (loop)");
        rc = MPI_Allreduce(mine, sum, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) {
            main_result("MPI_Allreduce (loop)", rc, 0);
            return;
        }
        if (sum[0] != it * size)
            fail("round %ld: Allreduce: expected %ld, got %ld", it, it * size, sum[0]);
        if (sum[1]) {
            printf("kill: survivor %d: completed %ld rounds\n", rank, it + 1);
            enter_call("MPI_Finalize (loop)");
            int frc = MPI_Finalize();
            if (frc != MPI_SUCCESS)
                fail("MPI_Finalize after a completed loop: %s", text_of(frc));
            exit(0);
        }
        usleep(2000);
    }
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc < 5) {
        fprintf(stderr, "usage: %s DIR MODE return|fatal VICTIM [BOUND]\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    mode = argv[2];
    fatal = !strcmp(argv[3], "fatal");
    victim = atoi(argv[4]);
    if (argc > 5)
        bound_s = atoi(argv[5]);
    if (!fatal && strcmp(argv[3], "return")) {
        fprintf(stderr, "kill_rank: HANDLER must be return or fatal, not %s\n", argv[3]);
        return 2;
    }
    pthread_t th;
    if (pthread_create(&th, NULL, watchdog, NULL) != 0) {
        printf("kill: FAIL: cannot start the watchdog thread\n");
        return 1;
    }
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        printf("kill: FAIL: MPI_Init failed\n");
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 3 || victim < 0 || victim >= size) {
        printf("kill: FAIL: needs at least 3 ranks and a victim among them (size %d, victim %d)\n",
               size, victim);
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, fatal ? MPI_ERRORS_ARE_FATAL : MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank is up */

    int x = 0;
    if (!strcmp(mode, "rndv_from") || !strcmp(mode, "rndv_to")) {
        mode_rndv(!strcmp(mode, "rndv_from"));
    } else if (!strcmp(mode, "send_full")) {
        mode_send_full();
    } else if (!strcmp(mode, "win_lock")) {
        mode_win_lock(MPI_LOCK_EXCLUSIVE);
    } else if (!strcmp(mode, "win_shared")) {
        mode_win_lock(MPI_LOCK_SHARED);
    } else if (!strcmp(mode, "loop")) {
        mode_loop();
    } else {
        if (rank == victim) {
            say_ready();
            victim_sleep();
        }
        arm("the main call");
        int rc;
        if (!strcmp(mode, "recv")) {
            rc = MPI_Recv(&x, 1, MPI_INT, victim, TAG_P2P, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            main_result("MPI_Recv", rc, 0);
        } else if (!strcmp(mode, "anysrc")) {
            rc = MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, TAG_P2P, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE);
            main_result("MPI_Recv(MPI_ANY_SOURCE)", rc, 0);
        } else if (!strcmp(mode, "probe")) {
            rc = MPI_Probe(victim, TAG_P2P, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            main_result("MPI_Probe", rc, 0);
        } else if (!strcmp(mode, "wait_irecv")) {
            MPI_Request req;
            rc = MPI_Irecv(&x, 1, MPI_INT, victim, TAG_P2P, MPI_COMM_WORLD, &req);
            if (rc != MPI_SUCCESS)
                fail("MPI_Irecv before the kill: %s", text_of(rc));
            enter_call("MPI_Wait");
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            main_result("MPI_Wait(Irecv)", rc, 0);
        } else if (!strcmp(mode, "allreduce")) {
            long one = 1, sum = 0;
            rc = MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            main_result("MPI_Allreduce", rc, 0);
        } else if (!strcmp(mode, "barrier")) {
            rc = MPI_Barrier(MPI_COMM_WORLD);
            main_result("MPI_Barrier", rc, 0);
        } else if (!strcmp(mode, "finalize")) {
            rc = MPI_Finalize();
            /* Under MPI_ERRORS_ARE_FATAL either outcome is right: MPI_Finalize completes
             * (as ULFM has it: a failed process does not stop the others finalizing), or
             * the job ends naming the failed rank. What is wrong is a hang. */
            main_result("MPI_Finalize", rc, 1);
            printf("kill: survivor %d: finalized\n", rank);
            return 0;
        } else {
            printf("kill: FAIL: unknown mode %s\n", mode);
            return 2;
        }
    }
    after_failure();
    finish();
}
