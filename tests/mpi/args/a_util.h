/* Helpers of the argument tests (tests/mpi/args/): each program calls MPI functions with NULL
 * buffers, NULL statuses and NULL output pointers under MPI_ERRORS_RETURN and checks the
 * error class each returns.
 *
 *   A_EXPECT(MPI_ERR_ARG, MPI_Comm_rank(MPI_COMM_WORLD, NULL));
 *
 * A wrong class is printed as "rank R: <call>: expected <class>, got <class>" and counted;
 * the test goes on, so one run lists every wrong call. a_finish() ends the test: exit 1 when
 * any rank counted a failure, else 0. A crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL) prints the
 * call it happened in and exits 1: the point of these tests is that none happens. */
#ifndef IVC_TESTS_MPI_ARGS_A_UTIL_H
#define IVC_TESTS_MPI_ARGS_A_UTIL_H

#include "../t_util.h"

#include <signal.h>
#include <unistd.h>

static const char *volatile a_call = "(none)"; /* the call in progress */
static int a_fails;                            /* wrong classes seen by this rank */
static int a_checks;                           /* calls checked by this rank */

static const char *a_class_name(int cls)
{
    static const struct {
        int cls;
        const char *name;
    } names[] = {
        {MPI_SUCCESS, "MPI_SUCCESS"},       {MPI_ERR_BUFFER, "MPI_ERR_BUFFER"},
        {MPI_ERR_COUNT, "MPI_ERR_COUNT"},   {MPI_ERR_TYPE, "MPI_ERR_TYPE"},
        {MPI_ERR_TAG, "MPI_ERR_TAG"},       {MPI_ERR_COMM, "MPI_ERR_COMM"},
        {MPI_ERR_RANK, "MPI_ERR_RANK"},     {MPI_ERR_REQUEST, "MPI_ERR_REQUEST"},
        {MPI_ERR_ROOT, "MPI_ERR_ROOT"},     {MPI_ERR_GROUP, "MPI_ERR_GROUP"},
        {MPI_ERR_OP, "MPI_ERR_OP"},         {MPI_ERR_TOPOLOGY, "MPI_ERR_TOPOLOGY"},
        {MPI_ERR_DIMS, "MPI_ERR_DIMS"},     {MPI_ERR_ARG, "MPI_ERR_ARG"},
        {MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN"}, {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE"},
        {MPI_ERR_OTHER, "MPI_ERR_OTHER"},   {MPI_ERR_INTERN, "MPI_ERR_INTERN"},
        {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS"}, {MPI_ERR_PENDING, "MPI_ERR_PENDING"},
        {MPI_ERR_INFO, "MPI_ERR_INFO"},     {MPI_ERR_INFO_KEY, "MPI_ERR_INFO_KEY"},
        {MPI_ERR_INFO_VALUE, "MPI_ERR_INFO_VALUE"}, {MPI_ERR_KEYVAL, "MPI_ERR_KEYVAL"},
        {MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM"}, {MPI_ERR_SESSION, "MPI_ERR_SESSION"},
        {MPI_ERR_VALUE_TOO_LARGE, "MPI_ERR_VALUE_TOO_LARGE"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].cls == cls)
            return names[i].name;
    static char other[32];
    snprintf(other, sizeof other, "class %d", cls);
    return other;
}

static void a_crash(int sig)
{
    /* Only async-signal-safe calls. */
    char line[512];
    size_t n = 0;
    const char *parts[] = {"args test: signal ", sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS"
                                                                    : sig == SIGFPE   ? "SIGFPE"
                                                                                      : "SIGILL",
                           " in ", a_call, "\n"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        for (const char *p = parts[i]; *p != '\0' && n < sizeof line; p++)
            line[n++] = *p;
    ssize_t w = write(2, line, n);
    (void)w;
    _exit(1);
}

/* MPI_Init, then errors return on WORLD and SELF, and crashes are reported by call. */
static inline void a_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = a_crash;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    sigaction(SIGILL, &sa, NULL);
}

static inline int a_class_of(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS && MPI_Error_class(rc, &cls) != MPI_SUCCESS)
        cls = rc;
    return cls;
}

static inline void a_check(int expected, int rc, const char *call)
{
    int cls = a_class_of(rc);
    a_checks++;
    if (cls != expected) {
        fprintf(stderr, "rank %d: %s: expected %s, got %s\n", t_rank, call,
                a_class_name(expected), a_class_name(cls));
        a_fails++;
    }
}

/* Runs `call` (an expression of type int) and checks its error class. */
#define A_EXPECT(cls, call)                                                                        \
    do {                                                                                           \
        a_call = #call;                                                                            \
        int a_rc_ = (call);                                                                        \
        a_check((cls), a_rc_, #call);                                                              \
        a_call = "(between calls)";                                                                \
    } while (0)

/* A call that must succeed (set-up and follow-up checks). */
#define A_OK(call) A_EXPECT(MPI_SUCCESS, call)

/* Ends the test: every rank's failures are summed; exit status 1 if any, else 0. */
static inline int a_finish(const char *test)
{
    int all = 0, checks = 0;
    MPI_Allreduce(&a_fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&a_checks, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("%s: %d calls checked on %d ranks, %d wrong\n", test, checks, t_size, all);
    fflush(stdout);
    MPI_Finalize();
    return all != 0;
}

#endif
