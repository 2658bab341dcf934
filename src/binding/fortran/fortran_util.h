/* Helpers of the C glue behind mpif.h, `use mpi` and `use mpi_f08` (hand-written; used by the
 * generated generated/mpif_glue.c and by fortran_glue.c). Everything here is static inline,
 * so that libmpifort exports only the Fortran symbols (mpi_*_, pmpi_*_).
 *
 * Conventions of gfortran (>= 8) that the glue relies on:
 *   - a procedure MPI_FOO is the symbol mpi_foo_; every argument is passed by reference;
 *   - each CHARACTER argument adds a hidden size_t length after the last argument;
 *   - INTEGER is MPI_Fint (int), LOGICAL an int holding 0 or 1, INTEGER(KIND=8) is
 *     MPI_Aint / MPI_Count / MPI_Offset;
 *   - a common block /NAME/ is the symbol name_: the Fortran sentinels (MPI_BOTTOM ...) are
 *     the common blocks /IVC_OBJ_F_.../, whose storage libmpi defines (src/binding/handles.c),
 *     so Fortran programs, libmpifort and C code all see one address per sentinel. */
#ifndef IVC_FORTRAN_UTIL_H
#define IVC_FORTRAN_UTIL_H

#include <mpi.h>

#ifdef IVC_FORT_ABI
/* The Fortran library of the MPI-5 standard ABI (libmpifort_abi, abi/README.md) is built on
 * the C ABI alone, where MPI_Fint and the f2c/c2f functions are not part of the ABI (MPI-5.0
 * section 21.4): a Fortran handle is the standard's integer for it, MPI_<Kind>_toint. */
#define PMPI_Comm_f2c(i)       PMPI_Comm_fromint(i)
#define PMPI_Comm_c2f(h)       PMPI_Comm_toint(h)
#define PMPI_Type_f2c(i)       PMPI_Type_fromint(i)
#define PMPI_Type_c2f(h)       PMPI_Type_toint(h)
#define PMPI_Group_f2c(i)      PMPI_Group_fromint(i)
#define PMPI_Group_c2f(h)      PMPI_Group_toint(h)
#define PMPI_Request_f2c(i)    PMPI_Request_fromint(i)
#define PMPI_Request_c2f(h)    PMPI_Request_toint(h)
#define PMPI_Op_f2c(i)         PMPI_Op_fromint(i)
#define PMPI_Op_c2f(h)         PMPI_Op_toint(h)
#define PMPI_Errhandler_f2c(i) PMPI_Errhandler_fromint(i)
#define PMPI_Errhandler_c2f(h) PMPI_Errhandler_toint(h)
#define PMPI_Info_f2c(i)       PMPI_Info_fromint(i)
#define PMPI_Info_c2f(h)       PMPI_Info_toint(h)
#define PMPI_Win_f2c(i)        PMPI_Win_fromint(i)
#define PMPI_Win_c2f(h)        PMPI_Win_toint(h)
#define PMPI_Message_f2c(i)    PMPI_Message_fromint(i)
#define PMPI_Message_c2f(h)    PMPI_Message_toint(h)
#define PMPI_Session_f2c(i)    PMPI_Session_fromint(i)
#define PMPI_Session_c2f(h)    PMPI_Session_toint(h)
#define PMPI_File_f2c(i)       PMPI_File_fromint(i)
#define PMPI_File_c2f(h)       PMPI_File_toint(h)
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(int),
               "the Fortran status is the C one, INTEGER for int");
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define IVCF_STR_(x) #x
/* mpi_foo_ is a weak alias of pmpi_foo_, as MPI_Foo is of PMPI_Foo in libmpi. */
#define IVCF_ALIAS(low) _Pragma(IVCF_STR_(weak low##_ = p##low##_))

extern MPI_Fint ivc_obj_f_bottom_[], ivc_obj_f_in_place_[], ivc_obj_f_buffer_automatic_[],
    ivc_obj_f_status_ignore_[],
    ivc_obj_f_statuses_ignore_[], ivc_obj_f_unweighted_[], ivc_obj_f_weights_empty_[];

/* Extra room of an output string buffer beyond the Fortran string's length: the C function
 * may write up to its own maximum (MPI_MAX_INFO_VAL ...) whatever the Fortran length. */
#define IVCF_STR_SLACK 8192

/* A choice buffer: the Fortran MPI_BOTTOM, MPI_IN_PLACE and MPI_BUFFER_AUTOMATIC become the
 * C ones. */
static inline void *ivcf_buf(void *p)
{
    if (p == (void *)ivc_obj_f_bottom_)
        return MPI_BOTTOM;
    if (p == (void *)ivc_obj_f_in_place_)
        return MPI_IN_PLACE;
#ifdef MPI_BUFFER_AUTOMATIC
    if (p == (void *)ivc_obj_f_buffer_automatic_)
        return MPI_BUFFER_AUTOMATIC;
#endif
    return p;
}

/* An array of graph weights: the Fortran MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY become C's. */
static inline void *ivcf_weights(void *p)
{
    if (p == (void *)ivc_obj_f_unweighted_)
        return MPI_UNWEIGHTED;
    if (p == (void *)ivc_obj_f_weights_empty_)
        return MPI_WEIGHTS_EMPTY;
    return p;
}

/* Scratch array of n elements (at least one, so that n == 0 still gives a valid pointer);
 * NULL without memory, which the C call then rejects. */
static inline void *ivcf_alloc_n(int n, size_t size)
{
    return malloc((n > 0 ? (size_t)n : 1) * size);
}

/* A Fortran status in: the C status to pass (MPI_STATUS_IGNORE for the Fortran one), with
 * the Fortran contents copied into s (inout statuses; memcpy: no alignment assumed). */
static inline MPI_Status *ivcf_status_in(void *f, MPI_Status *s)
{
    if (f == (void *)ivc_obj_f_status_ignore_)
        return MPI_STATUS_IGNORE;
    memcpy(s, f, sizeof(*s));
    return s;
}

static inline void ivcf_status_out(void *f, const MPI_Status *c)
{
    if (c != MPI_STATUS_IGNORE)
        memcpy(f, c, sizeof(*c));
}

/* An array of n Fortran statuses: a C copy (freed by ivcf_statuses_out), or
 * MPI_STATUSES_IGNORE. Entries the call does not write keep the caller's contents. */
static inline MPI_Status *ivcf_statuses_in(void *f, int n)
{
    if (f == (void *)ivc_obj_f_statuses_ignore_)
        return MPI_STATUSES_IGNORE;
    MPI_Status *c = ivcf_alloc_n(n, sizeof(MPI_Status));
    if (c != NULL && n > 0)
        memcpy(c, f, (size_t)n * sizeof(MPI_Status));
    return c;
}

static inline void ivcf_statuses_out(void *f, MPI_Status *c, int n)
{
    if (c == MPI_STATUSES_IGNORE || c == NULL)
        return;
    if (n > 0)
        memcpy(f, c, (size_t)n * sizeof(MPI_Status));
    free(c);
}

/* A Fortran string in: a NUL-terminated copy without the trailing blanks (malloc'd). */
static inline char *ivcf_cstr(const char *f, size_t len)
{
    while (len > 0 && f[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (c != NULL) {
        memcpy(c, f, len);
        c[len] = '\0';
    }
    return c;
}

/* An info key or value in: a NUL-terminated copy without leading and trailing blanks
 * (malloc'd), as the standard asks of Fortran info calls (MPI-4.1 section 10.1). */
static inline char *ivcf_cstr_trim(const char *f, size_t len)
{
    while (len > 0 && *f == ' ') {
        f++;
        len--;
    }
    return ivcf_cstr(f, len);
}

/* Scratch for a C output string that goes back into a Fortran string of length len. */
static inline char *ivcf_cbuf(size_t len)
{
    return calloc(len + IVCF_STR_SLACK, 1);
}

/* Copies C string c into Fortran string f of length len, padded with blanks (truncated if
 * longer). */
static inline void ivcf_fstr(char *f, size_t len, const char *c)
{
    size_t n = strlen(c);
    if (n > len)
        n = len;
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
}

/* Keeps p (malloc'd) for the life of the program: scratch that the C library may still read
 * after the call returns (the datatype arrays of nonblocking MPI_Ialltoallw ...). */
void ivcf_keep(void *p);

/* Number of entries of the per-process arrays of MPI_(I)Alltoallw and the neighbourhood
 * variants: the (remote) group size, or the topology's out/in degree. */
enum { IVCF_NPROCS_SEND, IVCF_NPROCS_RECV };
int ivcf_comm_nprocs(void *fcomm, int which, int neighbor);

#endif
