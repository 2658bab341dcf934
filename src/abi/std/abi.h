/* The MPI-5 standard ABI profile of the conversion layer (../conv.h): how the standard's
 * handles, statuses, ranks, tags, error codes and integer constants turn into IVC's and
 * back (facts: std_abi.h; how the layer works: ../mpich/README.md, whose design this
 * library shares: one set of wrappers generated from the API description, per ABI).
 *
 * Handles: the standard's handles are pointers; its predefined ones are the integers
 * 0x000-0x3ff, which map to IVC's objects through one table per kind indexed by the value
 * (the kind is checked: MPI_INT passed as a communicator is an invalid communicator). Every
 * other object gets a slot and the program sees (1 << 30 | kind << 26 | slot): positive
 * and below 2^31, so MPI_<Handle>_toint and MPI_<Handle>_c2f are the handle's value and
 * fromint/f2c turn it back, with no table. */
#ifndef IVC_ABI_STD_ABI_CONV_H
#define IVC_ABI_STD_ABI_CONV_H

#include "std_abi.h"

#define ABI_STD 1
typedef intptr_t abi_h;
#define ABI_BUILTIN_N        ABI_STD_BUILTIN_END
#define ABI_ERR_DYN_BASE     (ABI_STD_ERR_LASTCODE + 1)
#define ABI_ERR_TABLE_N      (1024 + 32) /* the MPI_T_ERR_ classes go to 1018 */
#define ABI_ERR_FOREIGN_END  (ABI_ERR_FOREIGN + ABI_ERR_DYN_BASE)
#define abi_builtin_index(h) ((unsigned)(uintptr_t)(h))
#define ABI_USER_BIT         ((intptr_t)1 << 30)
#define ABI_IS_USER(h)       (((uintptr_t)(h) >> 30) == 1u)
#define ABI_USER_SLOT(h)     ((unsigned)(uintptr_t)(h)&0x3ffffffu)
#define ABI_USER_KIND_OK(h, kind) ((((uintptr_t)(h) >> 26) & 0xfu) == (unsigned)(kind))
#define ABI_USER_HANDLE(kind, i)  (ABI_USER_BIT | (intptr_t)(kind) << 26 | (intptr_t)(i))

#include "../conv.h"

/* Handle -> IVC object; NULL for a null or unknown handle, which IVC then rejects with the
 * right error class through the object's error handler. */
static inline void *abi_in_h(int kind, abi_h h)
{
    if (ABI_LIKELY(ABI_IS_USER(h)))
        return abi_user_in(kind, h);
    if ((uintptr_t)h < ABI_BUILTIN_N)
        return abi_builtin_obj[kind][h];
    return NULL;
}
/* The program's handles are pointers: the generated wrappers pass them as they are. */
#define abi_in(kind, h) abi_in_h((kind), (abi_h)(h))
#define abi_inout_back(kind, h, before, after)                                                     \
    ((__typeof__(h))abi_inout_back_h((kind), (abi_h)(h), (before), (after)))

/* ---- ranks: MPI_ANY_SOURCE is -1 in both; MPI_PROC_NULL -3 (IVC -2), MPI_ROOT -4 (IVC -3) ---- */
_Static_assert(MPI_ANY_SOURCE == -1 && MPI_PROC_NULL == -2 && MPI_ROOT == -3, "IVC's ranks");
static inline int abi_rank_in(int r)
{
    return (r == ABI_PROC_NULL || r == ABI_ROOT) ? r + 1 : r;
}
static inline int abi_rank_out(int r)
{
    return (r == MPI_PROC_NULL || r == MPI_ROOT) ? r - 1 : r;
}
/* ---- tags: MPI_ANY_TAG is -2 (IVC -1); no other negative tag is valid, so a swap ---- */
_Static_assert(MPI_ANY_TAG == -1, "IVC's MPI_ANY_TAG");
static inline int abi_tag(int t)
{
    return (t == -1 || t == -2) ? -3 - t : t;
}

/* ---- statuses ---- */
static inline void abi_status_out(const MPI_Status *s, abi_Status *d)
{
    unsigned long long c = (unsigned long long)s->ivc_count;
    d->MPI_SOURCE = abi_rank_out(s->MPI_SOURCE);
    d->MPI_TAG = abi_tag(s->MPI_TAG);
    d->MPI_ERROR = abi_err_out(s->MPI_ERROR);
    d->MPI_internal[0] = (int)(unsigned)(c & 0xffffffffu);
    d->MPI_internal[1] = (int)(unsigned)(c >> 32);
    d->MPI_internal[2] = s->ivc_cancelled;
}
static inline void abi_status_in(const abi_Status *d, MPI_Status *s)
{
    s->MPI_SOURCE = abi_rank_in(d->MPI_SOURCE);
    s->MPI_TAG = abi_tag(d->MPI_TAG);
    s->MPI_ERROR = abi_err_in(d->MPI_ERROR);
    s->ivc_count = (long long)(((unsigned long long)(unsigned)d->MPI_internal[1] << 32) |
                               (unsigned)d->MPI_internal[0]);
    s->ivc_cancelled = d->MPI_internal[2];
}
/* The standard's MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE are NULL; IVC's are 1. */
#define ABI_STATUS_IGNORE  ((abi_Status *)0)
#define ABI_STATUS_PASS(s) ((s) == NULL ? MPI_STATUS_IGNORE : (MPI_Status *)(void *)(s))

/* ---- buffers: MPI_IN_PLACE 1 (IVC -1), MPI_BUFFER_AUTOMATIC 2 (IVC -2); MPI_BOTTOM 0 ---- */
#define abi_buf(p)                                                                                 \
    ((__typeof__(p))((const void *)(p) == ABI_IN_PLACE           ? MPI_IN_PLACE                   \
                     : (const void *)(p) == ABI_BUFFER_AUTOMATIC ? MPI_BUFFER_AUTOMATIC           \
                                                                 : (void *)(p)))
/* A detached buffer's address (MPI_Buffer_detach & co.): IVC's MPI_BUFFER_AUTOMATIC back
 * to the ABI's. */
static inline void abi_detached_out(void *buffer_addr)
{
    if (buffer_addr != NULL && *(void **)buffer_addr == MPI_BUFFER_AUTOMATIC)
        *(void **)buffer_addr = ABI_BUFFER_AUTOMATIC;
}
/* ---- graph weights: MPI_UNWEIGHTED 10, MPI_WEIGHTS_EMPTY 11 (IVC: addresses) ---- */
#define abi_weights(p)                                                                             \
    ((__typeof__(p))((const void *)(p) == ABI_UNWEIGHTED      ? MPI_UNWEIGHTED                    \
                     : (const void *)(p) == ABI_WEIGHTS_EMPTY ? MPI_WEIGHTS_EMPTY                 \
                                                              : (int *)(p)))

/* ---- the integer constants that differ (consts.c): _in the ABI's -> IVC's, _out back ---- */
ABI_HIDDEN int abi_thread_level_in(int v);
ABI_HIDDEN int abi_thread_level_out(int v);
ABI_HIDDEN int abi_comparison_out(int v);
ABI_HIDDEN int abi_topology_out(int v);
ABI_HIDDEN int abi_lock_type_in(int v);
ABI_HIDDEN int abi_order_in(int v);
ABI_HIDDEN int abi_distrib_in(int v);
ABI_HIDDEN int abi_darg_in(int v);
ABI_HIDDEN int abi_flavor_out(int v);
ABI_HIDDEN int abi_model_out(int v);
ABI_HIDDEN int abi_verbosity_out(int v);
ABI_HIDDEN int abi_bind_out(int v);
ABI_HIDDEN int abi_scope_out(int v);
ABI_HIDDEN int abi_pvar_class_in(int v);
ABI_HIDDEN int abi_pvar_class_out(int v);
/* RMA assertions: NOPRECEDE and NOSTORE trade bits. */
static inline int abi_assert_in(int a)
{
    int swap = a & (ABI_MODE_NOPRECEDE | ABI_MODE_NOSTORE);
    a &= ~(ABI_MODE_NOPRECEDE | ABI_MODE_NOSTORE);
    return a | (swap & ABI_MODE_NOPRECEDE ? MPI_MODE_NOPRECEDE : 0) |
           (swap & ABI_MODE_NOSTORE ? MPI_MODE_NOSTORE : 0);
}
_Static_assert(MPI_MODE_NOCHECK == ABI_MODE_NOCHECK && MPI_MODE_NOPUT == ABI_MODE_NOPUT &&
                   MPI_MODE_NOSUCCEED == ABI_MODE_NOSUCCEED,
               "the RMA assertions both ABIs number alike");

/* ---- files: the program gets IVC's MPI_File pointer itself (no table: a file handle is
 * never converted inside another object). Only MPI_FILE_NULL (0x118; IVC NULL) differs; any
 * other predefined value is no file and reaches IVC as the null file, which IVC rejects with
 * MPI_ERR_FILE. The integer of MPI_File_toint/c2f: IVC's Fortran index in the user-handle
 * space of a kind no table uses (ABI_K_N), MPI_FILE_NULL's for the null file. ---- */
static inline MPI_File abi_file_in(abi_File f)
{
    return (uintptr_t)(void *)f < ABI_BUILTIN_N ? MPI_FILE_NULL : (MPI_File)(void *)f;
}
static inline abi_File abi_file_out(MPI_File f)
{
    return f == MPI_FILE_NULL ? (abi_File)(intptr_t)ABI_FILE_NULL : (abi_File)(void *)f;
}
static inline int abi_file_fint_out(MPI_Fint idx)
{
    return idx <= 0 ? ABI_FILE_NULL : (int)ABI_USER_HANDLE(ABI_K_N, idx);
}
static inline MPI_Fint abi_file_fint_in(int v)
{
    if (ABI_IS_USER(v) && ABI_USER_KIND_OK(v, ABI_K_N))
        return (MPI_Fint)ABI_USER_SLOT(v);
    return 0; /* MPI_FILE_NULL, or no file */
}
/* File access modes: the standard's bits are otherwise assigned (std_abi.h). */
ABI_HIDDEN int abi_amode_in(int v);
ABI_HIDDEN int abi_amode_out(int v);
/* MPI_SEEK_SET/CUR/END */
ABI_HIDDEN int abi_whence_in(int v);
/* MPI_File_set_view's displacement: MPI_DISPLACEMENT_CURRENT is -1 here, IVC's MPICH's. */
static inline MPI_Offset abi_disp_in(abi_Offset d)
{
    return d == ABI_DISPLACEMENT_CURRENT ? MPI_DISPLACEMENT_CURRENT : (MPI_Offset)d;
}

#endif
