/* The MPICH-ABI conversion layer: what every wrapper (generated/mpich_wrappers.c, special.c)
 * uses to turn MPICH's integer handles, statuses, ranks and error codes into IVC's and back.
 *
 * A wrapper is one C function exported under MPICH's name (PMPI_X, with MPI_X a weak alias)
 * whose parameters have MPICH's types (mpich_abi.h); it converts its arguments, calls IVC's
 * own PMPI_X (linked into the same library under the name IVCN_PMPI_X, src/abi/CMakeLists.txt)
 * and converts the results. The hot path (handle lookups, status, rank and error
 * conversions) is static inline here; table growth and callbacks live in handles.c and
 * special.c.
 *
 * Handle tables: one per kind. A predefined MPICH handle maps to IVC's predefined object
 * through a fixed table indexed by the handle's low byte (abi_builtin_*). Any other object
 * IVC hands out gets a slot, and the program sees ABI_HANDLE(USER, kind, slot): MPICH's bit
 * layout, in the "indirect" space that MPICH's predefined handles never use. A slot keeps
 * its object until IVC frees it (the wrapper sees IVC set the handle to NULL: MPI_Comm_free,
 * MPI_Wait on a request ...). Handing out the same object again (MPI_Comm_get_errhandler)
 * gives the same int, with a reference counted in the slot, found through a hash from object
 * to slot (requests skip the hash: IVC never hands out a request twice). Lookups take no
 * lock: slots live in chunks that never move, published with a release store; allocation
 * and release take the table's mutex. */
#ifndef IVC_ABI_MPICH_ABI_CONV_H
#define IVC_ABI_MPICH_ABI_CONV_H

#include <mpi.h>
#include <mpi-ext.h>

#include <stdatomic.h>
#include <stddef.h>

#include "mpich_abi.h"

#define ABI_LIKELY(x)   __builtin_expect(!!(x), 1)
#define ABI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define ABI_HIDDEN      __attribute__((visibility("hidden")))

enum abi_kind {
    ABI_K_COMM,
    ABI_K_DATATYPE,
    ABI_K_GROUP,
    ABI_K_OP,
    ABI_K_ERRHANDLER,
    ABI_K_INFO,
    ABI_K_WIN,
    ABI_K_REQUEST,
    ABI_K_MESSAGE,
    ABI_K_SESSION,
    ABI_K_N
};

#define ABI_CHUNK_BITS 12
#define ABI_CHUNK_SIZE (1u << ABI_CHUNK_BITS)
#define ABI_NCHUNKS    (1u << (26 - ABI_CHUNK_BITS)) /* 26 index bits in a handle */

typedef struct abi_slot {
    void *obj; /* IVC's object; NULL when the slot is free */
    int refs;  /* handles handed out for obj and not yet freed */
    int next;  /* free list, while free */
} abi_slot_t;

typedef struct abi_table {
    abi_slot_t *_Atomic chunk[ABI_NCHUNKS]; /* written once under lock (release), read by abi_in */
    /* the rest: under lock (handles.c) */
    int nslots, free_head;
    int *hash; /* open addressing, object -> slot + 1; 0 empty */
    unsigned hash_cap, hash_used;
} abi_table_t;

ABI_HIDDEN extern abi_table_t abi_tables[ABI_K_N];
ABI_HIDDEN extern const unsigned char abi_kind_obj[ABI_K_N]; /* MPICH's object code per kind */
ABI_HIDDEN extern const int abi_null[ABI_K_N];               /* MPICH's null handle per kind */
/* Predefined handles by low byte (| 0x80 for MPICH's "direct" datatypes MPI_FLOAT_INT ...):
 * the full MPICH value (to check) and IVC's object. */
ABI_HIDDEN extern int abi_builtin_val[ABI_K_N][256];
ABI_HIDDEN extern void *abi_builtin_obj[ABI_K_N][256];

/* MPICH handle -> IVC object; NULL for a null or unknown handle, which IVC then rejects with
 * the right error class through the object's error handler. */
static inline void *abi_in(int kind, int h)
{
    unsigned hk = ABI_HANDLE_HKIND(h);
    if (ABI_LIKELY(hk == ABI_HKIND_USER)) {
        unsigned i = ABI_HANDLE_INDEX(h);
        /* A1: pairs with R1 in table_grow() (handles.c). */
        abi_slot_t *c = atomic_load_explicit(&abi_tables[kind].chunk[i >> ABI_CHUNK_BITS],
                                             memory_order_acquire);
        if (ABI_LIKELY(c != NULL && ABI_HANDLE_OBJ(h) == abi_kind_obj[kind]))
            return c[i & (ABI_CHUNK_SIZE - 1)].obj;
        return NULL;
    }
    unsigned lo = ((unsigned)h & 0x7fu) | (hk == ABI_HKIND_DIRECT ? 0x80u : 0u);
    return abi_builtin_val[kind][lo] == h ? abi_builtin_obj[kind][lo] : NULL;
}

/* IVC object -> MPICH handle, as a new reference (an out argument of a create/get call).
 * Returns the kind's null handle for NULL; MPI_ERR_NO_MEM-free: aborts when out of memory. */
ABI_HIDDEN int abi_out(int kind, void *obj);
/* The same without a new reference (an object IVC passes to a callback). */
ABI_HIDDEN int abi_find(int kind, void *obj);
/* IVC freed the object behind handle h: drop one reference, free the slot at zero. */
ABI_HIDDEN void abi_release(int kind, int h);

/* An inout handle after the IVC call: NULL -> released and null; changed -> new handle. */
static inline int abi_inout_back(int kind, int h, void *before, void *after)
{
    if (after == before)
        return h;
    if (after == NULL) {
        abi_release(kind, h);
        return abi_null[kind];
    }
    return abi_out(kind, after);
}

/* ---- ranks: MPI_PROC_NULL and MPI_ANY_SOURCE trade values; the swap is its own inverse ---- */
_Static_assert(MPI_ANY_SOURCE == ABI_PROC_NULL && MPI_PROC_NULL == ABI_ANY_SOURCE,
               "IVC's MPI_ANY_SOURCE/MPI_PROC_NULL are MPICH's MPI_PROC_NULL/MPI_ANY_SOURCE");
static inline int abi_rank(int r)
{
    return (r == -1 || r == -2) ? -3 - r : r;
}

/* ---- error codes ----
 * IVC's classes map to MPICH's by name; the classes and codes a program adds (IVC: from
 * IVC_MPIX_ERR_LASTCODE + 1) to MPICH's dynamic range (ABI_ERR_DYN_BASE up). Any other value
 * (a status's MPI_ERROR set by the program, a code of MPICH's that IVC lacks) travels
 * through IVC as ABI_ERR_FOREIGN + value and comes back unchanged. */
#define ABI_IVC_NCLASSES (IVC_MPIX_ERR_LASTCODE + 1)
#define ABI_ERR_FOREIGN  0x20000000
ABI_HIDDEN extern int abi_err_to_mpich[ABI_IVC_NCLASSES];
ABI_HIDDEN int abi_err_in(int e); /* MPICH -> IVC */
static inline int abi_err_out(int e)
{
    if (ABI_LIKELY(e == MPI_SUCCESS))
        return 0;
    if ((unsigned)e < ABI_IVC_NCLASSES)
        return abi_err_to_mpich[e];
    if (e > 0 && e < ABI_ERR_FOREIGN)
        return ABI_ERR_DYN_BASE + (e - ABI_IVC_NCLASSES);
    if (e >= ABI_ERR_FOREIGN && e < ABI_ERR_DYN_BASE)
        return e - ABI_ERR_FOREIGN;
    return e;
}

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
#define ABI_STATUS_IGNORE ((abi_Status *)1)

/* ---- the other constants that differ ---- */
ABI_HIDDEN int abi_keyval_in(int k);
ABI_HIDDEN int abi_keyval_out(int k);
ABI_HIDDEN int abi_combiner_out(int c);
ABI_HIDDEN int abi_typeclass_in(int c);
ABI_HIDDEN int abi_split_type_in(int t);

/* A function IVC does not have (I/O, dynamic processes): raises
 * MPI_ERR_UNSUPPORTED_OPERATION on comm (or returns it, comm NULL: the I/O chapter's
 * default is MPI_ERRORS_RETURN). */
ABI_HIDDEN int abi_unsupported(const char *name, MPI_Comm comm);

/* Scratch arrays for converted arrays: on the stack up to ABI_STACK_N, else malloc. */
#define ABI_STACK_N 64
ABI_HIDDEN void *abi_scratch(size_t n, size_t size, void *stack);
ABI_HIDDEN void abi_scratch_free(void *p, void *stack);
/* The size (remote size for an intercommunicator: the length of a collective's per-peer
 * arrays) of comm; inbound: for neighborhood collectives, the in- or out-degree. */
ABI_HIDDEN int abi_comm_len(MPI_Comm comm, int remote);
ABI_HIDDEN int abi_neighbor_len(MPI_Comm comm, int out);

#define ABI_EXPORT(ret, name, params)                                                              \
    ret abi_P##name params __asm__("PMPI_" #name) __attribute__((visibility("default")));          \
    ret abi_M##name params __asm__("MPI_" #name) __attribute__((weak, alias("PMPI_" #name)));

#endif
