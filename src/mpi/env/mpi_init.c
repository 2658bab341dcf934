/* The MPI environment: Init/Finalize, the runtime that MPI_Init and sessions share, Abort,
 * clocks, names and versions.
 *
 * The runtime (the coordinator, communicators, collectives, the RMA arena) starts once per
 * process, at MPI_Init or at the first MPI_Session_init, and is reference-counted: the world
 * model holds one reference from MPI_Init to MPI_Finalize, every session one of its own; the
 * last release tears it down. Starting it waits for every rank of the job (the coordinator's
 * bootstrap), so every process starts it in the same way, as MPI_Init requires anyway. A
 * runtime that has been torn down cannot start again in the same process (the region has
 * been left): MPI_Session_init then returns MPI_ERR_OTHER.
 *
 * Thread levels: IVC grants what is required. MPI_THREAD_MULTIPLE (unless
 * IVC_THREAD_MULTIPLE=no) turns on one process-wide lock that every MPI call takes
 * (base/ivc_biglock.h: waits hand it over, so a thread blocked in MPI_Recv lets another
 * one's MPI_Send run), and collectives then run over point-to-point: a rank's collective
 * area holds one operation at a time, and threads may run collectives on different
 * communicators at once in any order. It is granted only before the runtime starts
 * (MPI_Init_thread, or the first MPI_Session_init), which chooses the collectives; later
 * requests get MPI_THREAD_SERIALIZED. Below MULTIPLE there is no locking. */
#include "mpi_impl.h"

#include "base/ivc_biglock.h"
#include "base/ivc_config.h"
#include "base/ivc_log.h"
#include "coord/coord.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int ivc_mpi_initialized, ivc_mpi_finalized; /* the runtime is up / has been torn down */
static int world_init, world_fini;          /* MPI_Init / MPI_Finalize were called */
static int runtime_refs;
static int thread_level = MPI_THREAD_SINGLE;
static pthread_t main_thread;

int ivc_mpi_check_init(const char *fn)
{
    if (__builtin_expect(ivc_mpi_initialized && !ivc_mpi_finalized, 1))
        return MPI_SUCCESS;
    if (ivc_mpi_finalized)
        ivc_error("%s called after MPI_Finalize", fn);
    else
        ivc_error("%s called before MPI_Init (or MPI_Session_init)", fn);
    return MPI_ERR_OTHER;
}

int ivc_mpi_multiple;

int ivc_mpi_thread_level(int required, int tool)
{
    if (required < MPI_THREAD_MULTIPLE)
        return required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE : required;
    if (ivc_mpi_multiple || (tool && ivc_biglock.on))
        return MPI_THREAD_MULTIPLE;
    ivc_coord_config_t cfg;
    if (ivc_cfg_load(&ivc_coord_config_table, &cfg) != 0 || !cfg.thread_multiple)
        return MPI_THREAD_SERIALIZED;
    /* MPI itself only before the runtime starts: it decides then how collectives run. The
     * tool interface needs only the lock (its caller is the one thread in MPI now). */
    if (!tool && ivc_mpi_initialized)
        return MPI_THREAD_SERIALIZED;
    ivc_biglock_enable();
    ivc_mpi_multiple |= !tool;
    return MPI_THREAD_MULTIPLE;
}

int ivc_mpi_runtime_start(void)
{
    if (ivc_mpi_finalized) {
        ivc_error("MPI cannot start again in a process where it has been finalized");
        return MPI_ERR_OTHER;
    }
    if (ivc_mpi_initialized) {
        runtime_refs++;
        return MPI_SUCCESS;
    }
    ivc_mpi_t_snapshot(); /* the environment the layers below read now */
    ivc_mpi_dt_init();
    static const ivc_chan_upcalls_t up = {ivc_mpi_on_message, ivc_mpi_on_peer_failed, NULL};
    int rc = ivc_coord_init(&up);
    if (rc != 0) {
        /* Nothing can continue: tell the peers (through the region, if attached) and go. */
        ivc_error("MPI initialization failed (%s); exiting", strerror(-rc));
        ivc_mpi_die(MPI_ERR_OTHER, NULL);
    }
    if (ivc_mpi_comm_init() != 0)
        ivc_mpi_die(MPI_ERR_NO_MEM, "MPI initialization: out of memory");
    /* Collective over COMM_WORLD: every rank learns the others' collective areas. */
    if (ivc_mpi_coll_init() != MPI_SUCCESS)
        ivc_mpi_die(MPI_ERR_OTHER, "MPI initialization: setting up the collectives failed");
    /* This rank's arena in the region for MPI_Alloc_mem and windows (mpi_mem.c). */
    if (ivc_mpi_mem_init() != 0)
        ivc_mpi_die(MPI_ERR_OTHER, "MPI initialization: setting up the RMA arena failed");
    main_thread = pthread_self();
    ivc_mpi_initialized = 1;
    runtime_refs = 1;
    /* A spawned process connects to its parents (collective over MPI_COMM_WORLD). */
    if (ivc_mpi_dyn_init() != MPI_SUCCESS)
        ivc_mpi_die(MPI_ERR_SPAWN, "MPI initialization: connecting to the parent job failed");
    return MPI_SUCCESS;
}

int ivc_mpi_runtime_stop(void)
{
    if (--runtime_refs > 0)
        return MPI_SUCCESS;
    ivc_mpi_rma_finalize();
    /* Sends still in flight (e.g. a freed Isend) finish before the barrier. */
    ivc_mpi_coll_finalize();
    /* Before the region goes: the heap's live blocks get private pages (shm_heap.h). */
    ivc_mpi_mem_finalize();
    int rc = ivc_coord_finalize();
    ivc_mpi_match_finalize();
    ivc_mpi_comm_finalize();
    ivc_mpi_finalized = 1;
    return rc != 0 ? ivc_mpi_errno_class(rc) : MPI_SUCCESS;
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (world_init) {
        ivc_error(world_fini ? "MPI_Init called after MPI_Finalize" : "MPI_Init called twice");
        return MPI_ERR_OTHER;
    }
    thread_level = ivc_mpi_thread_level(required, 0);
    int rc = ivc_mpi_runtime_start();
    if (rc != MPI_SUCCESS)
        return rc;
    world_init = 1;
    main_thread = pthread_self(); /* the thread that called MPI_Init is the main thread */
    if (argc != NULL && argv != NULL)
        ivc_mpi_info_env_fill(*argc, *argv, required);
    else
        ivc_mpi_info_env_fill(0, NULL, required);
    if (provided != NULL)
        *provided = thread_level;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Init_thread)

int PMPI_Init(int *argc, char ***argv)
{
    return PMPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, NULL);
}
IVC_MPI_WEAK(Init)

int PMPI_Finalize(void)
{
    if (!world_init || world_fini) {
        ivc_error(world_fini ? "MPI_Finalize called twice" : "MPI_Finalize called before MPI_Init");
        return MPI_ERR_OTHER;
    }
    /* COMM_SELF's attributes go first, while MPI still works (MPI 4.1 sec. 11.2.4). */
    ivc_mpi_attr_delete_all(MPI_COMM_SELF);
    ivc_mpi_attr_delete_all(MPI_COMM_WORLD);
    world_fini = 1;
    ivc_mpi_info_env_clear();
    int rc = ivc_mpi_runtime_stop();
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(MPI_COMM_WORLD, rc, "MPI_Finalize", "the final barrier failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Finalize)

/* Valid at any time; errors go to the initial handler (ERRORS_ARE_FATAL) before MPI_Init. */
#define NULL_OUT(p, fn)                                                                            \
    do {                                                                                           \
        if ((p) == NULL)                                                                           \
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL output argument");        \
    } while (0)

int PMPI_Initialized(int *flag)
{
    NULL_OUT(flag, "MPI_Initialized");
    *flag = world_init;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Initialized)

int PMPI_Finalized(int *flag)
{
    NULL_OUT(flag, "MPI_Finalized");
    *flag = world_fini;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Finalized)

int PMPI_Query_thread(int *provided)
{
    const char *fn = "MPI_Query_thread";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    NULL_OUT(provided, fn);
    *provided = thread_level;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Query_thread)

int PMPI_Is_thread_main(int *flag)
{
    const char *fn = "MPI_Is_thread_main";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    NULL_OUT(flag, fn);
    *flag = pthread_equal(pthread_self(), main_thread) != 0;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Is_thread_main)

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    char why[128];
    snprintf(why, sizeof(why), "MPI_Abort called with code %d; aborting the job", errorcode);
    ivc_mpi_die(errorcode, why);
}
IVC_MPI_WEAK(Abort)

/* The standard allows profiling control to do nothing; IVC has no profiling levels. */
int PMPI_Pcontrol(const int level, ...)
{
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Pcontrol)

double PMPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
IVC_MPI_WEAK(Wtime)

double PMPI_Wtick(void)
{
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0)
        return 1e-9;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
IVC_MPI_WEAK(Wtick)

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    const char *fn = "MPI_Get_processor_name";
    NULL_OUT(name, fn);
    NULL_OUT(resultlen, fn);
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
        snprintf(name, MPI_MAX_PROCESSOR_NAME, "unknown");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Get_processor_name)

int PMPI_Get_version(int *version, int *subversion)
{
    NULL_OUT(version, "MPI_Get_version");
    NULL_OUT(subversion, "MPI_Get_version");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Get_version)

/* ---- MPI-5.0's ABI queries (the standard's ABI chapter) ----
 * IVC's own library (libivcmpi) has IVC's ABI, not the standard one: MPI_Abi_get_version
 * answers -1.-1 as the standard says a library without it does (lib/abi/std/libmpi_abi.so
 * answers 1.0, src/abi/std). The info objects name the sizes of IVC's integer types.
 * Each returns MPI_SUCCESS, MPI_ERR_ARG for a NULL output, or the class of a failed
 * MPI_Info call. */
int PMPI_Abi_get_version(int *abi_major, int *abi_minor)
{
    NULL_OUT(abi_major, "MPI_Abi_get_version");
    NULL_OUT(abi_minor, "MPI_Abi_get_version");
    *abi_major = -1;
    *abi_minor = -1;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Abi_get_version)

static int abi_info(MPI_Info *info, const char *const *kv, int n)
{
    MPI_Info i = MPI_INFO_NULL;
    int rc = PMPI_Info_create(&i);
    for (int k = 0; rc == MPI_SUCCESS && k < n; k++)
        rc = PMPI_Info_set(i, kv[2 * k], kv[2 * k + 1]);
    if (rc != MPI_SUCCESS) {
        if (i != MPI_INFO_NULL)
            PMPI_Info_free(&i);
        return rc;
    }
    *info = i;
    return MPI_SUCCESS;
}

int PMPI_Abi_get_info(MPI_Info *info)
{
    NULL_OUT(info, "MPI_Abi_get_info");
    _Static_assert(sizeof(MPI_Aint) == 8 && sizeof(MPI_Count) == 8 && sizeof(MPI_Offset) == 8,
                   "the sizes named below");
    static const char *const kv[] = {"mpi_aint_size", "8", "mpi_count_size", "8",
                                     "mpi_offset_size", "8"};
    return abi_info(info, kv, 3);
}
IVC_MPI_WEAK(Abi_get_info)

/* The Fortran ABI of libivcmpifort: default INTEGER, REAL and LOGICAL are 4 bytes,
 * DOUBLE PRECISION 8 (gfortran's); mpi_<type>_supported says which fixed-size Fortran
 * datatypes IVC has (IVC_MPI_F_DATATYPES: INTEGER1-8, REAL4-8, COMPLEX8-16, DOUBLE_COMPLEX;
 * IVC_MPI_F_OPT_DATATYPES: INTEGER16, REAL16, COMPLEX32). */
int PMPI_Abi_get_fortran_info(MPI_Info *info)
{
    NULL_OUT(info, "MPI_Abi_get_fortran_info");
    static const char *const kv[] = {
        "mpi_logical_size",            "4",     "mpi_integer_size",          "4",
        "mpi_real_size",               "4",     "mpi_double_precision_size", "8",
        "mpi_logical1_supported",      "false", "mpi_logical2_supported",    "false",
        "mpi_logical4_supported",      "false", "mpi_logical8_supported",    "false",
        "mpi_logical16_supported",     "false", "mpi_integer1_supported",    "true",
        "mpi_integer2_supported",      "true",  "mpi_integer4_supported",    "true",
        "mpi_integer8_supported",      "true",  "mpi_integer16_supported",   "true",
        "mpi_real2_supported",         "false", "mpi_real4_supported",       "true",
        "mpi_real8_supported",         "true",  "mpi_real16_supported",      "true",
        "mpi_complex4_supported",      "false", "mpi_complex8_supported",    "true",
        "mpi_complex16_supported",     "true",  "mpi_complex32_supported",   "true",
        "mpi_double_complex_supported", "true"};
    return abi_info(info, kv, (int)(sizeof(kv) / sizeof(kv[0]) / 2));
}
IVC_MPI_WEAK(Abi_get_fortran_info)

/* IVC's Fortran bindings are built with the library and fix their ABI at build time: there
 * is nothing to set (MPI_ERR_ABI), and the booleans are gfortran's, not "set" (is_set 0). */
int PMPI_Abi_set_fortran_info(MPI_Info info)
{
    (void)info;
    return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ABI, "MPI_Abi_set_fortran_info", "the Fortran ABI is fixed when IVC is built");
}
IVC_MPI_WEAK(Abi_set_fortran_info)

int PMPI_Abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false,
                                  int *is_set)
{
    (void)logical_size, (void)logical_true, (void)logical_false;
    NULL_OUT(is_set, "MPI_Abi_get_fortran_booleans");
    *is_set = 0;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Abi_get_fortran_booleans)

int PMPI_Abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false)
{
    (void)logical_size, (void)logical_true, (void)logical_false;
    return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ABI, "MPI_Abi_set_fortran_booleans", "the Fortran ABI is fixed when IVC is built");
}
IVC_MPI_WEAK(Abi_set_fortran_booleans)

int PMPI_Get_library_version(char *version, int *resultlen)
{
    NULL_OUT(version, "MPI_Get_library_version");
    NULL_OUT(resultlen, "MPI_Get_library_version");
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
             "%s (MPI %d.%d subset over inter-VM shared memory)", IVC_VERSION_STRING, MPI_VERSION,
             MPI_SUBVERSION);
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Get_library_version)
