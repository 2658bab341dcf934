/* What only libmpifort_abi, the Fortran library of the MPI-5 standard ABI, needs beside the
 * shared glue (../fortran_glue.c, the generated glue), because the C ABI library is another
 * library that knows nothing of Fortran:
 *   - the storage of the sentinel common blocks (IVC's own libmpi holds it for libivcmpifort);
 *   - file error handlers written in Fortran: a C file handle is not its integer, so the C
 *     callback is a trampoline that finds the Fortran procedure by the handler's integer;
 *   - MPI_ABI_GET_VERSION, MPI_ABI_GET_INFO and MPI_ABI_GET_FORTRAN_INFO (MPI-5.0 routines
 *     the API description the generator reads does not have). */
#include "fortran_util.h"

#include <pthread.h>

/* ---- sentinels: common blocks /IVC_OBJ_F_.../ of this ABI's mpif.h, mpi and mpi_f08 ----
 * Aligned as gfortran aligns the modules' copies of the blocks, which this library links. */
#define IVCF_COMMON_ALIGN __attribute__((aligned(32)))
MPI_Fint ivc_obj_f_bottom_[1] IVCF_COMMON_ALIGN;
MPI_Fint ivc_obj_f_in_place_[1] IVCF_COMMON_ALIGN;
MPI_Fint ivc_obj_f_buffer_automatic_[1] IVCF_COMMON_ALIGN;
MPI_Fint ivc_obj_f_status_ignore_[MPI_F_STATUS_SIZE] IVCF_COMMON_ALIGN;
MPI_Fint ivc_obj_f_statuses_ignore_[MPI_F_STATUS_SIZE] IVCF_COMMON_ALIGN;
MPI_Fint ivc_obj_f_errcodes_ignore_[1] IVCF_COMMON_ALIGN;
MPI_Fint ivc_obj_f_unweighted_[1] IVCF_COMMON_ALIGN;
MPI_Fint ivc_obj_f_weights_empty_[1] IVCF_COMMON_ALIGN;
char ivc_obj_f_argv_null_[1] IVCF_COMMON_ALIGN;
char ivc_obj_f_argvs_null_[1] IVCF_COMMON_ALIGN;

/* ---- file error handlers written in Fortran ---- */
typedef void ffile_errh_fn(MPI_Fint *file, MPI_Fint *code);

struct ferrh {
    struct ferrh *next;
    int id; /* the error handler's integer (MPI_Errhandler_toint) */
    ffile_errh_fn *fn;
};
static struct ferrh *ferrh_head;
static pthread_mutex_t ferrh_lock = PTHREAD_MUTEX_INITIALIZER;

static ffile_errh_fn *ferrh_find(int id)
{
    ffile_errh_fn *fn = NULL;
    pthread_mutex_lock(&ferrh_lock);
    for (struct ferrh *r = ferrh_head; r != NULL && fn == NULL; r = r->next)
        if (r->id == id)
            fn = r->fn;
    pthread_mutex_unlock(&ferrh_lock);
    return fn;
}

/* A freed handler's integer may come back for a new one: the newest record wins. */
static int ferrh_add(int id, ffile_errh_fn *fn)
{
    struct ferrh *r = malloc(sizeof(*r));
    if (r == NULL)
        return MPI_ERR_NO_MEM;
    pthread_mutex_lock(&ferrh_lock);
    *r = (struct ferrh){ferrh_head, id, fn};
    ferrh_head = r;
    pthread_mutex_unlock(&ferrh_lock);
    return MPI_SUCCESS;
}

/* The handler being called is the file's (MPI-4.1 section 9.3): its integer names the
 * Fortran procedure. */
static void file_errh_tramp(MPI_File *file, int *code, ...)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    if (PMPI_File_get_errhandler(*file, &e) != MPI_SUCCESS)
        return;
    ffile_errh_fn *fn = ferrh_find(PMPI_Errhandler_toint(e));
    PMPI_Errhandler_free(&e);
    if (fn == NULL)
        return;
    MPI_Fint f = PMPI_File_toint(*file), c = *code;
    fn(&f, &c);
}

void pmpi_file_create_errhandler_(void *fn, MPI_Fint *errhandler, MPI_Fint *ierror);
void pmpi_file_create_errhandler_(void *fn, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    int rc = PMPI_File_create_errhandler(file_errh_tramp, &e);
    if (rc == MPI_SUCCESS) {
        rc = ferrh_add(PMPI_Errhandler_toint(e), (ffile_errh_fn *)fn);
        if (rc == MPI_SUCCESS)
            *errhandler = PMPI_Errhandler_toint(e);
        else
            PMPI_Errhandler_free(&e);
    }
    *ierror = rc;
}
IVCF_ALIAS(mpi_file_create_errhandler)

/* ---- the ABI's own queries ---- */
void pmpi_abi_get_version_(MPI_Fint *major, MPI_Fint *minor, MPI_Fint *ierror);
void pmpi_abi_get_version_(MPI_Fint *major, MPI_Fint *minor, MPI_Fint *ierror)
{
    int ma = -1, mi = -1;
    *ierror = PMPI_Abi_get_version(&ma, &mi);
    *major = ma;
    *minor = mi;
}
IVCF_ALIAS(mpi_abi_get_version)

void pmpi_abi_get_info_(MPI_Fint *info, MPI_Fint *ierror);
void pmpi_abi_get_info_(MPI_Fint *info, MPI_Fint *ierror)
{
    MPI_Info i = MPI_INFO_NULL;
    *ierror = PMPI_Abi_get_info(&i);
    if (*ierror == MPI_SUCCESS)
        *info = PMPI_Info_toint(i);
}
IVCF_ALIAS(mpi_abi_get_info)

void pmpi_abi_get_fortran_info_(MPI_Fint *info, MPI_Fint *ierror);
void pmpi_abi_get_fortran_info_(MPI_Fint *info, MPI_Fint *ierror)
{
    MPI_Info i = MPI_INFO_NULL;
    *ierror = PMPI_Abi_get_fortran_info(&i);
    if (*ierror == MPI_SUCCESS)
        *info = PMPI_Info_toint(i);
}
IVCF_ALIAS(mpi_abi_get_fortran_info)
