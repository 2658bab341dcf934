/* What every ABI conversion layer shares (lib/abi/mpich: MPICH's ABI; lib/abi/std: the MPI-5
 * standard ABI): handle tables, error-code conversion, scratch arrays and the export macro.
 * Included by a profile header (mpich/abi.h, std/abi.h), which first defines the facts of
 * its ABI:
 *
 *   abi_h                       the integer a handle of that ABI is (int; intptr_t for the
 *                               standard ABI's pointers), a program's handle cast to it
 *   ABI_USER_HANDLE(kind, i)    the handle a program sees for slot i of a kind's table
 *   ABI_IS_USER(h), ABI_USER_SLOT(h), ABI_USER_KIND_OK(h, kind)   the reverse
 *   abi_builtin_index(h)        the index of a predefined handle in abi_builtin_val/obj
 *   ABI_ERR_DYN_BASE            where the error classes and codes a program adds start
 *   ABI_ERR_TABLE_N             one above the largest predefined error value
 *   ABI_ERR_FOREIGN_END         the end of the range of foreign error values (below)
 *
 * and includes this header, then defines its inline abi_in(), abi_rank_in/out(),
 * abi_status_in/out() and the other conversions whose values differ (mpich/README.md says
 * how the layer works; the generator is mpich/gen_mpich.py).
 *
 * Handle tables: one per kind. A predefined handle maps to IVC's predefined object through
 * a fixed table indexed by abi_builtin_index(). Any other object IVC hands out gets a slot,
 * and the program sees ABI_USER_HANDLE(kind, slot). A slot keeps its object until IVC frees
 * it (the wrapper sees IVC set the handle to NULL: MPI_Comm_free, MPI_Wait on a request ...).
 * Handing out the same object again (MPI_Comm_get_errhandler) gives the same handle, with a
 * reference counted in the slot, found through a hash from object to slot (requests skip
 * the hash: IVC never hands out a request twice). Lookups take no lock: slots live in chunks
 * that never move, published with a release store; allocation and release take the table's
 * mutex. */
#ifndef IVC_ABI_CONV_H
#define IVC_ABI_CONV_H

#include <mpi.h>
#include <mpi-ext.h>

#include <stdatomic.h>
#include <stddef.h>

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
ABI_HIDDEN extern const abi_h abi_null[ABI_K_N]; /* the ABI's null handle per kind */
/* Predefined handles by abi_builtin_index(): the full value (to check) and IVC's object. */
ABI_HIDDEN extern abi_h abi_builtin_val[ABI_K_N][ABI_BUILTIN_N];
ABI_HIDDEN extern void *abi_builtin_obj[ABI_K_N][ABI_BUILTIN_N];

/* A user handle's object, or NULL (unknown slot, a handle of another kind). */
static inline void *abi_user_in(int kind, abi_h h)
{
    unsigned i = ABI_USER_SLOT(h);
    /* A1: pairs with R1 in slot_new() (handles.c). */
    abi_slot_t *c = atomic_load_explicit(&abi_tables[kind].chunk[i >> ABI_CHUNK_BITS],
                                         memory_order_acquire);
    if (ABI_LIKELY(c != NULL && ABI_USER_KIND_OK(h, kind)))
        return c[i & (ABI_CHUNK_SIZE - 1)].obj;
    return NULL;
}

/* Registers a predefined handle (the profile's abi_init_tables(), at load time). */
ABI_HIDDEN void abi_builtin(int kind, abi_h val, void *obj);
/* IVC object -> handle, as a new reference (an out argument of a create/get call).
 * Returns the kind's null handle for NULL; aborts when out of memory. */
ABI_HIDDEN abi_h abi_out(int kind, void *obj);
/* The same without a new reference (an object IVC passes to a callback). */
ABI_HIDDEN abi_h abi_find(int kind, void *obj);
/* IVC freed the object behind handle h: drop one reference, free the slot at zero. */
ABI_HIDDEN void abi_release(int kind, abi_h h);

/* An inout handle after the IVC call: NULL -> released and null; changed -> new handle. */
static inline abi_h abi_inout_back_h(int kind, abi_h h, void *before, void *after)
{
    if (after == before)
        return h;
    if (after == NULL) {
        abi_release(kind, h);
        return abi_null[kind];
    }
    return abi_out(kind, after);
}

/* ---- error codes ----
 * IVC's classes map to the ABI's by name; the classes and codes a program adds (IVC: from
 * IVC_MPIX_ERR_LASTCODE + 1) to the ABI's dynamic range (ABI_ERR_DYN_BASE up). Any other value
 * (a status's MPI_ERROR set by the program, a code of the ABI's that IVC lacks) travels
 * through IVC as ABI_ERR_FOREIGN + value and comes back unchanged. */
#define ABI_IVC_NCLASSES (IVC_MPIX_ERR_LASTCODE + 1)
#define ABI_ERR_FOREIGN  0x20000000
ABI_HIDDEN extern int abi_err_to_abi[ABI_IVC_NCLASSES];
ABI_HIDDEN int abi_err_in(int e); /* the ABI's -> IVC's */
static inline int abi_err_out(int e)
{
    if (ABI_LIKELY(e == MPI_SUCCESS))
        return 0;
    if ((unsigned)e < ABI_IVC_NCLASSES)
        return abi_err_to_abi[e];
    if (e > 0 && e < ABI_ERR_FOREIGN)
        return ABI_ERR_DYN_BASE + (e - ABI_IVC_NCLASSES);
    if (e >= ABI_ERR_FOREIGN && e < ABI_ERR_FOREIGN_END)
        return e - ABI_ERR_FOREIGN;
    return e;
}

/* ---- the other constants that differ (each profile's consts.c) ---- */
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
