/* Helpers of the fault-tolerance tests (tests/mpi/ft): ULFM calls from mpi-ext.h, a victim
 * that dies with SIGKILL, and a watchdog so that a survivor that hangs reports where.
 *
 * A survivor that passes prints "ft-ok rank R"; run.sh counts those lines. */
#ifndef IVC_TESTS_MPI_FT_UTIL_H
#define IVC_TESTS_MPI_FT_UTIL_H

#include "../t_util.h"

#include <mpi-ext.h>
#include <signal.h>
#include <unistd.h>

static const char *ft_phase = "start";
static int ft_world_rank = -1;

static void ft_alarm(int sig)
{
    (void)sig;
    char line[200];
    int n = snprintf(line, sizeof(line), "rank %d: timed out in phase '%s'\n", ft_world_rank,
                     ft_phase);
    if (write(2, line, (size_t)n) < 0) {
    }
    _exit(3);
}

/* MPI_Init, MPI_ERRORS_RETURN on COMM_WORLD, a watchdog of `seconds`. */
static inline void ft_init(int *argc, char ***argv, unsigned seconds)
{
    MPI_Init(argc, argv);
    t_init();
    ft_world_rank = t_rank;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    signal(SIGALRM, ft_alarm);
    alarm(seconds);
}

static inline void ft_set_phase(const char *p)
{
    ft_phase = p;
}

static inline void ft_die(void)
{
    fflush(stdout);
    fflush(stderr);
    raise(SIGKILL);
}

static inline int ft_class(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

static inline const char *ft_name(int cls)
{
    switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPIX_ERR_PROC_FAILED: return "MPIX_ERR_PROC_FAILED";
    case MPIX_ERR_PROC_FAILED_PENDING: return "MPIX_ERR_PROC_FAILED_PENDING";
    case MPIX_ERR_REVOKED: return "MPIX_ERR_REVOKED";
    case MPI_ERR_IN_STATUS: return "MPI_ERR_IN_STATUS";
    default: return "another class";
    }
}

/* Fails unless rc's class is `want`. */
#define FT_EXPECT(rc, want, what)                                                                  \
    do {                                                                                           \
        int c_ = ft_class(rc);                                                                     \
        if (c_ != (want))                                                                          \
            t_fail("%s: expected %s, got %s (%d)", (what), ft_name(want), ft_name(c_), c_);       \
    } while (0)

/* Waits (driving progress) until comm has `n` failed members known here. */
static inline void ft_wait_failed(MPI_Comm comm, int n)
{
    for (;;) {
        MPI_Group g;
        int size = 0;
        MPIX_Comm_get_failed(comm, &g);
        MPI_Group_size(g, &size);
        MPI_Group_free(&g);
        if (size >= n)
            return;
        usleep(1000);
    }
}

static inline void ft_ok(void)
{
    printf("ft-ok rank %d\n", t_rank);
    fflush(stdout);
}

#endif
