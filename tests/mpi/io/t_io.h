/* Helpers of the MPI-IO tests (tests/mpi/io): file names unique to the job, in the working
 * directory (which ivcrun shares with every simulated VM), and checks of MPI return codes. */
#ifndef IVC_TESTS_MPI_IO_T_IO_H
#define IVC_TESTS_MPI_IO_T_IO_H

#include "mpi/t_util.h"

#include <sys/random.h>
#include <unistd.h>

/* "<dir>/io-<tag>.<random>.dat": dir is $IVCTEST_IO_DIR or "."; rank 0 draws the number
 * (pids repeat across simulated VMs, each of which has a pid namespace). */
static inline void t_io_name(char *out, size_t len, const char *tag)
{
    unsigned long job = 0;
    if (getrandom(&job, sizeof(job), 0) != (ssize_t)sizeof(job))
        job = (unsigned long)time(NULL) ^ (unsigned long)getpid() << 20;
    MPI_Bcast(&job, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
    const char *dir = getenv("IVCTEST_IO_DIR");
    snprintf(out, len, "%s/io-%s.%lx.dat", dir ? dir : ".", tag, job);
}

/* An MPI call that must succeed; prints the error string when it does not. */
#define T_OK(call)                                                                                 \
    do {                                                                                           \
        int t_rc_ = (call);                                                                        \
        if (t_rc_ != MPI_SUCCESS) {                                                                \
            char t_s_[MPI_MAX_ERROR_STRING];                                                       \
            int t_l_ = 0;                                                                          \
            MPI_Error_string(t_rc_, t_s_, &t_l_);                                                  \
            t_fail("%s:%d: %s: expected MPI_SUCCESS, got %d (%s)", __FILE__, __LINE__, #call,     \
                   t_rc_, t_s_);                                                                   \
        }                                                                                          \
    } while (0)

/* An MPI call that must fail with error class cls. */
#define T_CLASS(cls, call)                                                                         \
    do {                                                                                           \
        int t_rc_ = (call), t_c_ = -1;                                                             \
        if (t_rc_ != MPI_SUCCESS)                                                                  \
            MPI_Error_class(t_rc_, &t_c_);                                                         \
        if (t_c_ != (cls))                                                                         \
            t_fail("%s:%d: %s: expected error class %d (%s), got %d", __FILE__, __LINE__, #call,  \
                   (cls), #cls, t_rc_ == MPI_SUCCESS ? 0 : t_c_);                                  \
    } while (0)

/* A byte of the pattern every test writes: depends on the file offset and a seed. */
static inline unsigned char t_io_byte(long long off, int seed)
{
    return (unsigned char)((off * 131 + seed * 17 + (off >> 8)) & 0xff);
}

/* Count of a status in bytes. */
static inline int t_io_count(MPI_Status *st)
{
    int n = -1;
    MPI_Get_count(st, MPI_BYTE, &n);
    return n;
}

#endif
