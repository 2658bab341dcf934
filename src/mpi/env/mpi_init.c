/* The MPI environment: Init/Finalize, Abort, clocks, names and versions. */
#include "mpi_impl.h"

#include "base/ivc_log.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int ivc_mpi_initialized, ivc_mpi_finalized;
static int thread_level;

int ivc_mpi_check_init(const char *fn)
{
    if (__builtin_expect(ivc_mpi_initialized && !ivc_mpi_finalized, 1))
        return MPI_SUCCESS;
    ivc_error("%s called %s MPI_Init", fn, ivc_mpi_finalized ? "after MPI_Finalize" : "before");
    return MPI_ERR_OTHER;
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (ivc_mpi_initialized) {
        ivc_error("MPI_Init called twice");
        return MPI_ERR_OTHER;
    }
    ivc_mpi_dt_init();
    static const ivc_chan_upcalls_t up = {ivc_mpi_on_message, ivc_mpi_on_peer_failed, NULL};
    int rc = ivc_coord_init(&up);
    if (rc != 0) {
        /* Nothing can continue: tell the peers (through the region, if attached) and go. */
        ivc_error("MPI_Init failed (%s); exiting", strerror(-rc));
        ivc_mpi_die(MPI_ERR_OTHER, NULL);
    }
    if (ivc_mpi_comm_init() != 0)
        ivc_mpi_die(MPI_ERR_NO_MEM, "MPI_Init: out of memory");
    /* Collective over COMM_WORLD: every rank learns the others' collective areas. */
    if (ivc_mpi_coll_init() != MPI_SUCCESS)
        ivc_mpi_die(MPI_ERR_OTHER, "MPI_Init: setting up the collectives failed");
    /* This rank's arena in the region for MPI_Alloc_mem and windows (mpi_mem.c). */
    if (ivc_mpi_mem_init() != 0)
        ivc_mpi_die(MPI_ERR_OTHER, "MPI_Init: setting up the RMA arena failed");
    /* One thread at a time may call MPI; no internal locking. */
    thread_level = required < MPI_THREAD_SERIALIZED ? required : MPI_THREAD_SERIALIZED;
    if (thread_level < MPI_THREAD_SINGLE)
        thread_level = MPI_THREAD_SINGLE;
    if (provided != NULL)
        *provided = thread_level;
    ivc_mpi_initialized = 1;
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
    int rc = ivc_mpi_check_init("MPI_Finalize");
    if (rc != MPI_SUCCESS)
        return rc;
    /* COMM_SELF's attributes go first, while MPI still works (MPI 4.1 sec. 11.2.4). */
    ivc_mpi_attr_delete_all(MPI_COMM_SELF);
    ivc_mpi_attr_delete_all(MPI_COMM_WORLD);
    ivc_mpi_rma_finalize();
    /* Sends still in flight (e.g. a freed Isend) finish before the barrier. */
    ivc_mpi_coll_finalize();
    rc = ivc_coord_finalize();
    ivc_mpi_match_finalize();
    ivc_mpi_comm_finalize();
    ivc_mpi_mem_finalize();
    ivc_mpi_finalized = 1;
    if (rc != 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, ivc_mpi_errno_class(rc), "MPI_Finalize",
                             "the final barrier failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Finalize)

int PMPI_Initialized(int *flag)
{
    *flag = ivc_mpi_initialized;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Initialized)

int PMPI_Finalized(int *flag)
{
    *flag = ivc_mpi_finalized;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Finalized)

int PMPI_Query_thread(int *provided)
{
    *provided = thread_level;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Query_thread)

int PMPI_Is_thread_main(int *flag)
{
    *flag = 1;
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
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
        snprintf(name, MPI_MAX_PROCESSOR_NAME, "unknown");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Get_processor_name)

int PMPI_Get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Get_version)

int PMPI_Get_library_version(char *version, int *resultlen)
{
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
             "%s (MPI %d.%d subset over inter-VM shared memory)", IVC_VERSION_STRING, MPI_VERSION,
             MPI_SUBVERSION);
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Get_library_version)
