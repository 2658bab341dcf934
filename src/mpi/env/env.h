/* Environment room: initialization state, errors and error handlers, info objects and
 * the memory of MPI_Alloc_mem (mpi_init.c, mpi_errors.c, mpi_info.c, mpi_mem.c). */
#ifndef IVC_MPI_ENV_H
#define IVC_MPI_ENV_H

#include <mpi.h>


#include <stdint.h>

#define ERRH_MAGIC 0x45525248u
#define INFO_MAGIC 0x494e464fu

struct ivc_mpi_errh_s {
    uint32_t magic;
    int kind; /* ERRH_FATAL, ERRH_RETURN, ERRH_ABORT, ERRH_USER */
    MPI_Comm_errhandler_function *fn;
    int refcount;
    int predefined;
};
enum { ERRH_FATAL = 1, ERRH_RETURN, ERRH_ABORT, ERRH_USER };

/* Raises error class `cls` in function `fn` on `comm` (MPI_COMM_WORLD's handler when comm is
 * not valid): ERRORS_ARE_FATAL prints the message and aborts the job; ERRORS_RETURN returns
 * `cls`; a user handler is called, then `cls` returned. */
int ivc_mpi_raise(MPI_Comm comm, int cls, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The one place where -errno from the layers below becomes an MPI error class. */
int ivc_mpi_errno_class(int err);

/* Prints `why`, marks the job aborted in the region and exits with `code`. */
void ivc_mpi_die(int code, const char *why) __attribute__((noreturn));

struct ivc_mpi_info_s {
    uint32_t magic;
    int nkeys;
    struct ivc_info_kv *head;
};

/* Memory of MPI_Alloc_mem: this rank's arena in the region (mpi_mem.c). */
int ivc_mpi_mem_init(void);
void ivc_mpi_mem_finalize(void);
/* Allocates from the arena (NULL when it has no room or there is no region). */
void *ivc_mpi_mem_arena_alloc(uint64_t size);
/* Returns 1 and frees p if it came from the arena, else 0. */
int ivc_mpi_mem_arena_free(void *p);
/* Region offset of [p, p + len) if it lies inside the region mapping: returns 1, else 0. */
int ivc_mpi_mem_region_off(const void *p, uint64_t len, uint64_t *off);

extern int ivc_mpi_initialized, ivc_mpi_finalized;

/* Returns MPI_ERR_OTHER with a message unless MPI is initialized and not finalized. */
int ivc_mpi_check_init(const char *fn);

/* Entry checks of a function on a communicator: returns from the caller on failure. */
#define CHECK_COMM(comm, fn)                                                                       \
    do {                                                                                           \
        int rc_ = ivc_mpi_check_init(fn);                                                          \
        if (rc_ != MPI_SUCCESS)                                                                    \
            return rc_;                                                                            \
        if (!ivc_mpi_comm_valid(comm))                                                             \
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator");        \
    } while (0)

#endif
