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
    MPI_Comm_errhandler_function *fn; /* ERRH_USER: the function, of obj's handler type */
    int refcount;
    int predefined;
    int fortran; /* fn is a Fortran procedure: takes the Fortran handle (src/binding/fortran) */
    int obj;     /* ERRH_USER: the kind of object it was made for (ERRH_OBJ_*) */
};
enum { ERRH_FATAL = 1, ERRH_RETURN, ERRH_ABORT, ERRH_USER };
enum { ERRH_OBJ_COMM = 0, ERRH_OBJ_WIN, ERRH_OBJ_SESSION, ERRH_OBJ_FILE };

/* 1 if h is a valid handler that may be attached to objects of kind obj (ERRH_OBJ_*): a
 * predefined one, or a user handler made for that kind; else 0. */
int ivc_mpi_errh_usable(MPI_Errhandler h, int obj);
/* References held by objects: retain when attaching, release when detaching (frees a user
 * handler with its last reference). Predefined handlers are not counted. */
void ivc_mpi_errh_retain(MPI_Errhandler h);
void ivc_mpi_errh_release(MPI_Errhandler h);

/* Calls handler h for error `code` on the object whose handle is *handle (an MPI_Comm,
 * MPI_Win or MPI_Session as obj says): ERRORS_RETURN returns code; a user handler is called,
 * then code returned; ERRORS_ARE_FATAL and ERRORS_ABORT print fn and detail and abort the
 * job. */
int ivc_mpi_errh_invoke(MPI_Errhandler h, int obj, void *handle, int code, const char *fn,
                        const char *detail);

/* A window raises its errors on its private communicator `comm`; binding them makes a user
 * window handler receive the window's handle. win == NULL unbinds (before comm is freed). */
void ivc_mpi_errh_bind_win(MPI_Comm comm, MPI_Win win);

/* The largest error class or code in use: MPI_ERR_LASTCODE until the program adds one
 * (the value of the MPI_LASTUSEDCODE attribute). */
int ivc_mpi_last_used_code(void);

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
    int predefined; /* MPI_INFO_ENV: never freed */
};

/* MPI_INFO_ENV: filled by MPI_Init from its arguments and the thread level it was asked for,
 * emptied by MPI_Finalize (mpi_info.c). */
void ivc_mpi_info_env_fill(int argc, char **argv, int thread_level);
void ivc_mpi_info_env_clear(void);
/* "MPI_THREAD_SINGLE" ... for a valid level, else NULL. */
const char *ivc_mpi_thread_level_name(int level);

/* Memory of MPI_Alloc_mem: this rank's arena in the region (mpi_mem.c). */
int ivc_mpi_mem_init(void);
void ivc_mpi_mem_finalize(void);
/* Allocates from the arena (NULL when it has no room or there is no region). */
void *ivc_mpi_mem_arena_alloc(uint64_t size);
/* Returns 1 and frees p if it came from the arena, else 0. */
int ivc_mpi_mem_arena_free(void *p);
/* Region offset of [p, p + len) if it lies inside the region mapping: returns 1, else 0. */
int ivc_mpi_mem_region_off(const void *p, uint64_t len, uint64_t *off);
/* The shared heap starts / stops taking the program's allocations of at least `min` bytes
 * (mpi_malloc.c; IVC_SHARED_HEAP). */
void ivc_mpi_malloc_start(uint64_t min);
void ivc_mpi_malloc_stop(void);

/* The runtime is up / has been torn down (by MPI_Finalize or the last MPI_Session_finalize). */
extern int ivc_mpi_initialized, ivc_mpi_finalized;

/* Returns MPI_ERR_OTHER with a message unless the runtime is up (MPI_Init or a session). */
int ivc_mpi_check_init(const char *fn);

/* Hands an object's name to MPI_*_get_name: name (MPI_MAX_OBJECT_NAME bytes) and its
 * length. Returns MPI_SUCCESS, or raises MPI_ERR_ARG on WORLD when name or resultlen is NULL
 * (callers should check both first, to raise on their object with their name). */
int ivc_mpi_name_out(const char *src, char *name, int *resultlen);

/* The runtime shared by MPI_Init and sessions (mpi_init.c): start takes a reference, starting
 * it at the first call (collective over every rank of the job; aborts the job if that
 * fails); stop drops one, tearing it down at the last. Start returns MPI_SUCCESS or
 * MPI_ERR_OTHER after a teardown; stop returns MPI_SUCCESS or the class of a failed final
 * barrier. */
int ivc_mpi_runtime_start(void);
int ivc_mpi_runtime_stop(void);
/* The thread level IVC grants for `required` to MPI (`tool` 0: MPI_Init_thread, sessions)
 * or to the tool interface (1). MPI_THREAD_MULTIPLE turns on the lock of
 * base/ivc_biglock.h; MPI gets it only before the runtime starts (or once it has it), and
 * then ivc_mpi_multiple is set: collectives run over point-to-point. Otherwise
 * MPI_THREAD_SERIALIZED. */
int ivc_mpi_thread_level(int required, int tool);
extern int ivc_mpi_multiple;
/* Tool room (src/mpi/tool): records the tunables' values when the runtime starts, so that
 * MPI_T reports the values in use from then on. */
void ivc_mpi_t_snapshot(void);

/* Refuses a NULL pointer argument (an output, or an array or string the call reads): raises
 * MPI_ERR_ARG on comm (WORLD's handler when comm is not valid) and returns it from the caller.
 * `what` names the argument in the message. Buffers of data are checked with
 * ivc_mpi_dt_null_buf() (dtype.h) and refused with MPI_ERR_BUFFER instead. */
#define CHECK_NULL_ARG(comm, p, fn, what)                                                          \
    do {                                                                                           \
        if (__builtin_expect((p) == NULL, 0))                                                      \
            return ivc_mpi_raise((comm), MPI_ERR_ARG, (fn), "NULL %s", (what));                    \
    } while (0)

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
