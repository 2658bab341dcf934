/* The MPICH-ABI profile of the conversion layer (../conv.h): how MPICH's integer handles,
 * statuses, ranks and error codes turn into IVC's and back.
 *
 * A wrapper is one C function exported under MPICH's name (PMPI_X, with MPI_X a weak alias)
 * whose parameters have MPICH's types (mpich_abi.h); it converts its arguments, calls IVC's
 * own PMPI_X (linked into the same library under the name IVCN_PMPI_X, src/abi/CMakeLists.txt)
 * and converts the results. The hot path (handle lookups, status, rank and error
 * conversions) is static inline here; table growth and callbacks live in ../handles.c and
 * ../special.c, the constant maps in consts.c.
 *
 * Handles: a predefined MPICH handle maps to IVC's predefined object through a table indexed
 * by the handle's low byte (| 0x80 for MPICH's "direct" datatypes). Any other object gets
 * ABI_HANDLE(USER, kind, slot): MPICH's bit layout, in the "indirect" space that MPICH's
 * predefined handles never use. */
#ifndef IVC_ABI_MPICH_ABI_CONV_H
#define IVC_ABI_MPICH_ABI_CONV_H

#include "mpich_abi.h"

#define ABI_MPICH 1
typedef int abi_h;
#define ABI_BUILTIN_N 256
#define ABI_ERR_TABLE_N 128
#define ABI_ERR_FOREIGN_END ABI_ERR_DYN_BASE
#define abi_builtin_index(h)                                                                       \
    (((unsigned)(h)&0x7fu) | (ABI_HANDLE_HKIND(h) == ABI_HKIND_DIRECT ? 0x80u : 0u))
#define ABI_IS_USER(h)             (ABI_HANDLE_HKIND(h) == ABI_HKIND_USER)
#define ABI_USER_SLOT(h)           ABI_HANDLE_INDEX(h)
#define ABI_USER_KIND_OK(h, kind)  (ABI_HANDLE_OBJ(h) == abi_kind_obj[kind])
#define ABI_USER_HANDLE(kind, i)   ABI_HANDLE(ABI_HKIND_USER, abi_kind_obj[kind], (i))
/* MPICH's object code per kind (consts.c) */
extern const unsigned char abi_kind_obj[] __attribute__((visibility("hidden")));

#include "../conv.h"


/* MPICH handle -> IVC object; NULL for a null or unknown handle, which IVC then rejects with
 * the right error class through the object's error handler. */
static inline void *abi_in(int kind, int h)
{
    if (ABI_LIKELY(ABI_IS_USER(h)))
        return abi_user_in(kind, h);
    unsigned lo = abi_builtin_index(h);
    return abi_builtin_val[kind][lo] == h ? abi_builtin_obj[kind][lo] : NULL;
}
#define abi_inout_back abi_inout_back_h

/* ---- ranks: MPI_PROC_NULL and MPI_ANY_SOURCE trade values; the swap is its own inverse ---- */
_Static_assert(MPI_ANY_SOURCE == ABI_PROC_NULL && MPI_PROC_NULL == ABI_ANY_SOURCE,
               "IVC's MPI_ANY_SOURCE/MPI_PROC_NULL are MPICH's MPI_PROC_NULL/MPI_ANY_SOURCE");
static inline int abi_rank(int r)
{
    return (r == -1 || r == -2) ? -3 - r : r;
}
#define abi_rank_in  abi_rank
#define abi_rank_out abi_rank

/* ---- statuses ---- */
static inline void abi_status_out(const MPI_Status *s, abi_Status *d)
{
    unsigned long long c = (unsigned long long)s->ivc_count;
    d->count_lo = (int)(unsigned)(c & 0xffffffffu);
    d->count_hi_and_cancelled = (int)(((unsigned)(c >> 32) << 1) | (s->ivc_cancelled ? 1u : 0u));
    d->MPI_SOURCE = abi_rank(s->MPI_SOURCE);
    d->MPI_TAG = s->MPI_TAG;
    d->MPI_ERROR = abi_err_out(s->MPI_ERROR);
}
static inline void abi_status_in(const abi_Status *d, MPI_Status *s)
{
    unsigned long long hi = (unsigned)d->count_hi_and_cancelled >> 1;
    s->ivc_count = (long long)((hi << 32) | (unsigned)d->count_lo);
    s->ivc_cancelled = d->count_hi_and_cancelled & 1;
    s->MPI_SOURCE = abi_rank(d->MPI_SOURCE);
    s->MPI_TAG = d->MPI_TAG;
    s->MPI_ERROR = abi_err_in(d->MPI_ERROR);
}
/* MPICH's MPI_STATUS_IGNORE is IVC's ((MPI_Status *)1): a status the wrapper does not
 * convert passes as it is. */
#define ABI_STATUS_IGNORE   ((abi_Status *)1)
#define ABI_STATUS_PASS(s)  ((MPI_Status *)(void *)(s))

/* ---- files: MPICH's MPI_File is ROMIO's pointer, never looked into by the program. It gets
 * IVC's MPI_File pointer itself (no table); MPI_FILE_NULL is 0 in both, and the Fortran
 * integer (MPI_File_c2f) is IVC's index, 0 for the null file in both. The amode bits,
 * MPI_SEEK_* and MPI_DISPLACEMENT_CURRENT are MPICH's values in IVC (mpi.h). ---- */
#define abi_file_in(f)       ((MPI_File)(void *)(f))
#define abi_file_out(f)      ((abi_File)(void *)(f))
#define abi_file_fint_in(v)  (v)
#define abi_file_fint_out(v) (v)
_Static_assert(MPI_MODE_RDONLY == 2 && MPI_MODE_RDWR == 8 && MPI_MODE_WRONLY == 4 &&
                   MPI_MODE_CREATE == 1 && MPI_MODE_EXCL == 64 && MPI_MODE_DELETE_ON_CLOSE == 16 &&
                   MPI_MODE_UNIQUE_OPEN == 32 && MPI_MODE_APPEND == 128 &&
                   MPI_MODE_SEQUENTIAL == 256 && MPI_SEEK_SET == 600 && MPI_SEEK_CUR == 602 &&
                   MPI_SEEK_END == 604 && MPI_DISPLACEMENT_CURRENT == -54278278LL,
               "IVC's I/O constants are MPICH's");

#endif
