/* Handle tables and constant maps of the MPICH-ABI layer (abi.h says how they work). */
#include "abi.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generated/ivcn.h"

abi_table_t abi_tables[ABI_K_N];
static pthread_mutex_t table_lock[ABI_K_N] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                              PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                              PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                              PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                              PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
_Static_assert(ABI_K_N == 10, "one mutex initializer per kind");

const unsigned char abi_kind_obj[ABI_K_N] = {
    [ABI_K_COMM] = ABI_OBJ_COMM,
    [ABI_K_DATATYPE] = ABI_OBJ_DATATYPE,
    [ABI_K_GROUP] = ABI_OBJ_GROUP,
    [ABI_K_OP] = ABI_OBJ_OP,
    [ABI_K_ERRHANDLER] = ABI_OBJ_ERRHANDLER,
    [ABI_K_INFO] = ABI_OBJ_INFO,
    [ABI_K_WIN] = ABI_OBJ_WIN,
    [ABI_K_REQUEST] = ABI_OBJ_REQUEST,
    [ABI_K_MESSAGE] = ABI_OBJ_REQUEST,
    [ABI_K_SESSION] = ABI_OBJ_SESSION,
};
const int abi_null[ABI_K_N] = {
    [ABI_K_COMM] = ABI_COMM_NULL,
    [ABI_K_DATATYPE] = ABI_DATATYPE_NULL,
    [ABI_K_GROUP] = ABI_GROUP_NULL,
    [ABI_K_OP] = ABI_OP_NULL,
    [ABI_K_ERRHANDLER] = ABI_ERRHANDLER_NULL,
    [ABI_K_INFO] = ABI_INFO_NULL,
    [ABI_K_WIN] = ABI_WIN_NULL,
    [ABI_K_REQUEST] = ABI_REQUEST_NULL,
    [ABI_K_MESSAGE] = ABI_MESSAGE_NULL,
    [ABI_K_SESSION] = ABI_SESSION_NULL,
};

int abi_builtin_val[ABI_K_N][256];
void *abi_builtin_obj[ABI_K_N][256];
/* The same pairs as a list per kind, for abi_out's reverse lookup. */
#define MAX_PREDEF 96
static struct {
    void *obj;
    int val;
} predef[ABI_K_N][MAX_PREDEF];
static int npredef[ABI_K_N];

static void builtin(int kind, int val, void *obj)
{
    unsigned lo =
        ((unsigned)val & 0x7fu) | (ABI_HANDLE_HKIND(val) == ABI_HKIND_DIRECT ? 0x80u : 0u);
    if (abi_builtin_val[kind][lo] != 0 || npredef[kind] == MAX_PREDEF) {
        fprintf(stderr, "ivc abi: predefined handle 0x%x collides\n", (unsigned)val);
        abort();
    }
    abi_builtin_val[kind][lo] = val;
    abi_builtin_obj[kind][lo] = obj;
    predef[kind][npredef[kind]].obj = obj;
    predef[kind][npredef[kind]++].val = val;
}

int abi_err_to_mpich[ABI_IVC_NCLASSES];
static int err_to_ivc[128];

static void errmap(int ivc, int mpich)
{
    abi_err_to_mpich[ivc] = mpich;
    if (mpich < 128)
        err_to_ivc[mpich] = ivc;
}

__attribute__((constructor)) static void abi_init_tables(void)
{
#define DT(NAME, val) builtin(ABI_K_DATATYPE, val, MPI_##NAME);
    ABI_MPICH_DATATYPES(DT)
#undef DT
#define OP(NAME, val) builtin(ABI_K_OP, val, MPI_##NAME);
    ABI_MPICH_OPS(OP)
#undef OP
    builtin(ABI_K_COMM, ABI_COMM_WORLD, MPI_COMM_WORLD);
    builtin(ABI_K_COMM, ABI_COMM_SELF, MPI_COMM_SELF);
    builtin(ABI_K_GROUP, ABI_GROUP_EMPTY, MPI_GROUP_EMPTY);
    builtin(ABI_K_ERRHANDLER, ABI_ERRORS_ARE_FATAL, MPI_ERRORS_ARE_FATAL);
    builtin(ABI_K_ERRHANDLER, ABI_ERRORS_RETURN, MPI_ERRORS_RETURN);
    builtin(ABI_K_ERRHANDLER, ABI_ERRORS_ABORT, MPI_ERRORS_ABORT);
    builtin(ABI_K_INFO, ABI_INFO_ENV, MPI_INFO_ENV);
    builtin(ABI_K_MESSAGE, ABI_MESSAGE_NO_PROC, MPI_MESSAGE_NO_PROC);

    for (int i = 0; i < ABI_IVC_NCLASSES; i++)
        abi_err_to_mpich[i] = 13; /* MPI_ERR_UNKNOWN unless named below */
    for (int i = 0; i < 128; i++)
        err_to_ivc[i] = ABI_ERR_FOREIGN + i;
#define ERR(NAME, val) errmap(MPI_##NAME, val);
    ABI_MPICH_ERRORS(ERR)
#undef ERR
    errmap(MPI_ERR_PROC_FAILED, ABI_MPIX_ERR_PROC_FAILED);
    errmap(MPIX_ERR_PROC_FAILED_PENDING, ABI_MPIX_ERR_PROC_FAILED_PENDING);
    errmap(MPIX_ERR_REVOKED, ABI_MPIX_ERR_REVOKED);
    /* MPI-4.1's MPI_ERR_ERRHANDLER is not in MPICH 4.0.2's header; MPICH 4.1 and later
     * number it 80, the value the PyPI mpi4py wheel (built with a later MPICH) uses. */
    errmap(MPI_ERR_ERRHANDLER, 80);
    abi_err_to_mpich[MPI_ERR_LASTCODE] = ABI_ERR_LASTCODE;
}

int abi_err_in(int e)
{
    if ((unsigned)e < 128)
        return err_to_ivc[e];
    if (e >= ABI_ERR_DYN_BASE)
        return ABI_IVC_NCLASSES + (e - ABI_ERR_DYN_BASE);
    if (e == ABI_ERR_LASTCODE)
        return MPI_ERR_LASTCODE;
    return e > 0 && e < ABI_ERR_FOREIGN ? ABI_ERR_FOREIGN + e : e;
}

/* ---- tables ---- */

static unsigned hash_ptr(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (unsigned)x;
}

static abi_slot_t *slot_at(abi_table_t *t, int i)
{
    abi_slot_t *c =
        atomic_load_explicit(&t->chunk[(unsigned)i >> ABI_CHUNK_BITS], memory_order_relaxed);
    return &c[(unsigned)i & (ABI_CHUNK_SIZE - 1)];
}

static void oom(void)
{
    fprintf(stderr, "ivc abi: out of memory for MPICH handles\n");
    abort();
}

/* Slot of obj in the hash, or -1. Lock held. */
static int hash_find(abi_table_t *t, const void *obj)
{
    if (t->hash_cap == 0)
        return -1;
    for (unsigned h = hash_ptr(obj) & (t->hash_cap - 1);; h = (h + 1) & (t->hash_cap - 1)) {
        int s = t->hash[h];
        if (s == 0)
            return -1;
        if (slot_at(t, s - 1)->obj == obj)
            return s - 1;
    }
}

static void hash_put(abi_table_t *t, int slot);

static void hash_grow(abi_table_t *t)
{
    unsigned old_cap = t->hash_cap;
    int *old = t->hash;
    t->hash_cap = old_cap ? old_cap * 2 : 256;
    t->hash = calloc(t->hash_cap, sizeof(int));
    if (t->hash == NULL)
        oom();
    t->hash_used = 0;
    for (unsigned i = 0; i < old_cap; i++)
        if (old[i] != 0)
            hash_put(t, old[i] - 1);
    free(old);
}

static void hash_put(abi_table_t *t, int slot)
{
    if (2 * (t->hash_used + 1) > t->hash_cap)
        hash_grow(t);
    unsigned h = hash_ptr(slot_at(t, slot)->obj) & (t->hash_cap - 1);
    while (t->hash[h] != 0)
        h = (h + 1) & (t->hash_cap - 1);
    t->hash[h] = slot + 1;
    t->hash_used++;
}

/* Removes slot from the hash (linear probing: the entries after it move back). */
static void hash_del(abi_table_t *t, int slot)
{
    const void *obj = slot_at(t, slot)->obj;
    unsigned mask = t->hash_cap - 1, h = hash_ptr(obj) & mask;
    while (t->hash[h] != slot + 1) {
        if (t->hash[h] == 0)
            return;
        h = (h + 1) & mask;
    }
    t->hash[h] = 0;
    t->hash_used--;
    for (unsigned j = (h + 1) & mask; t->hash[j] != 0; j = (j + 1) & mask) {
        int s = t->hash[j];
        t->hash[j] = 0;
        t->hash_used--;
        unsigned k = hash_ptr(slot_at(t, s - 1)->obj) & mask;
        while (t->hash[k] != 0)
            k = (k + 1) & mask;
        t->hash[k] = s;
        t->hash_used++;
    }
}

static int slot_new(abi_table_t *t, void *obj)
{
    int i = t->free_head - 1;
    if (i >= 0) {
        t->free_head = slot_at(t, i)->next;
    } else {
        i = t->nslots;
        unsigned c = (unsigned)i >> ABI_CHUNK_BITS;
        if (c >= ABI_NCHUNKS) {
            fprintf(stderr, "ivc abi: more than %u live MPICH handles of one kind\n",
                    ABI_NCHUNKS * ABI_CHUNK_SIZE);
            abort();
        }
        if (atomic_load_explicit(&t->chunk[c], memory_order_relaxed) == NULL) {
            abi_slot_t *chunk = calloc(ABI_CHUNK_SIZE, sizeof(abi_slot_t));
            if (chunk == NULL)
                oom();
            /* R1: publishes the chunk; pairs with A1 in abi_in(). */
            atomic_store_explicit(&t->chunk[c], chunk, memory_order_release);
        }
        t->nslots++;
    }
    abi_slot_t *s = slot_at(t, i);
    s->obj = obj;
    s->refs = 1;
    return i;
}

static int lookup_predef(int kind, void *obj)
{
    for (int i = 0; i < npredef[kind]; i++)
        if (predef[kind][i].obj == obj)
            return predef[kind][i].val;
    return 0;
}

static int out_common(int kind, void *obj, int newref)
{
    if (obj == NULL)
        return abi_null[kind];
    int v = lookup_predef(kind, obj);
    if (v != 0)
        return v;
    abi_table_t *t = &abi_tables[kind];
    pthread_mutex_lock(&table_lock[kind]);
    int i = kind == ABI_K_REQUEST ? -1 : hash_find(t, obj);
    if (i >= 0) {
        if (newref)
            slot_at(t, i)->refs++;
    } else {
        i = slot_new(t, obj);
        if (kind != ABI_K_REQUEST)
            hash_put(t, i);
    }
    pthread_mutex_unlock(&table_lock[kind]);
    return ABI_HANDLE(ABI_HKIND_USER, abi_kind_obj[kind], i);
}

int abi_out(int kind, void *obj)
{
    return out_common(kind, obj, 1);
}

int abi_find(int kind, void *obj)
{
    return out_common(kind, obj, 0);
}

void abi_release(int kind, int h)
{
    if (ABI_HANDLE_HKIND(h) != ABI_HKIND_USER || ABI_HANDLE_OBJ(h) != abi_kind_obj[kind])
        return; /* predefined handles are never freed */
    abi_table_t *t = &abi_tables[kind];
    int i = (int)ABI_HANDLE_INDEX(h);
    pthread_mutex_lock(&table_lock[kind]);
    if (i < t->nslots) {
        abi_slot_t *s = slot_at(t, i);
        if (s->obj != NULL && --s->refs <= 0) {
            if (kind != ABI_K_REQUEST)
                hash_del(t, i);
            s->obj = NULL;
            s->next = t->free_head;
            t->free_head = i + 1;
        }
    }
    pthread_mutex_unlock(&table_lock[kind]);
}

/* ---- constants ---- */

int abi_keyval_in(int k)
{
    switch (k) {
    case ABI_KEYVAL_INVALID: return MPI_KEYVAL_INVALID;
    case ABI_TAG_UB: return MPI_TAG_UB;
    case ABI_HOST: return MPI_HOST;
    case ABI_IO: return MPI_IO;
    case ABI_WTIME_IS_GLOBAL: return MPI_WTIME_IS_GLOBAL;
    case ABI_UNIVERSE_SIZE: return MPI_UNIVERSE_SIZE;
    case ABI_LASTUSEDCODE: return MPI_LASTUSEDCODE;
    case ABI_APPNUM: return MPI_APPNUM;
    case ABI_WIN_BASE: return MPI_WIN_BASE;
    case ABI_WIN_SIZE: return MPI_WIN_SIZE;
    case ABI_WIN_DISP_UNIT: return MPI_WIN_DISP_UNIT;
    case ABI_WIN_CREATE_FLAVOR: return MPI_WIN_CREATE_FLAVOR;
    case ABI_WIN_MODEL: return MPI_WIN_MODEL;
    default: return k; /* a keyval the program created: IVC's value (from 0x10000) */
    }
}

int abi_keyval_out(int k)
{
    switch (k) {
    case MPI_KEYVAL_INVALID: return ABI_KEYVAL_INVALID;
    case MPI_TAG_UB: return ABI_TAG_UB;
    case MPI_HOST: return ABI_HOST;
    case MPI_IO: return ABI_IO;
    case MPI_WTIME_IS_GLOBAL: return ABI_WTIME_IS_GLOBAL;
    case MPI_UNIVERSE_SIZE: return ABI_UNIVERSE_SIZE;
    case MPI_LASTUSEDCODE: return ABI_LASTUSEDCODE;
    case MPI_APPNUM: return ABI_APPNUM;
    case MPI_WIN_BASE: return ABI_WIN_BASE;
    case MPI_WIN_SIZE: return ABI_WIN_SIZE;
    case MPI_WIN_DISP_UNIT: return ABI_WIN_DISP_UNIT;
    case MPI_WIN_CREATE_FLAVOR: return ABI_WIN_CREATE_FLAVOR;
    case MPI_WIN_MODEL: return ABI_WIN_MODEL;
    default: return k;
    }
}

int abi_combiner_out(int c)
{
#define COMB(NAME, val)                                                                            \
    if (c == MPI_COMBINER_##NAME)                                                                  \
        return val;
    ABI_MPICH_COMBINERS(COMB)
#undef COMB
    return 1; /* MPI_COMBINER_VALUE_INDEX (MPI-4.1): MPICH 4.0 calls those types NAMED */
}

int abi_typeclass_in(int c)
{
    switch (c) {
    case ABI_TYPECLASS_REAL: return MPI_TYPECLASS_REAL;
    case ABI_TYPECLASS_INTEGER: return MPI_TYPECLASS_INTEGER;
    case ABI_TYPECLASS_COMPLEX: return MPI_TYPECLASS_COMPLEX;
    default: return -1;
    }
}

int abi_split_type_in(int t)
{
    switch (t) {
    case ABI_COMM_TYPE_SHARED: return MPI_COMM_TYPE_SHARED;
    case ABI_COMM_TYPE_HW_GUIDED: return MPI_COMM_TYPE_HW_GUIDED;
    case ABI_COMM_TYPE_HW_UNGUIDED: return MPI_COMM_TYPE_HW_UNGUIDED;
    default: return t; /* MPI_UNDEFINED, or a value IVC rejects */
    }
}

/* Values both ABIs share: the wrappers pass them through unconverted. */
_Static_assert(MPI_ANY_TAG == -1 && MPI_ROOT == -3 && MPI_UNDEFINED == -32766, "shared ints");
_Static_assert(MPI_THREAD_MULTIPLE == 3 && MPI_IDENT == 0 && MPI_UNEQUAL == 3, "shared enums");
_Static_assert(MPI_GRAPH == 1 && MPI_CART == 2 && MPI_DIST_GRAPH == 3, "topologies");
_Static_assert(MPI_LOCK_EXCLUSIVE == 234 && MPI_LOCK_SHARED == 235, "lock types");
_Static_assert(MPI_MODE_NOCHECK == 1024 && MPI_MODE_NOSUCCEED == 16384, "RMA modes");
_Static_assert(MPI_WIN_FLAVOR_SHARED == 4 && MPI_WIN_UNIFIED == 2, "flavors, models");
_Static_assert(MPI_ORDER_C == 56 && MPI_DISTRIBUTE_NONE == 123 &&
                   MPI_DISTRIBUTE_DFLT_DARG == -49767,
               "orders, distributions");
_Static_assert(MPI_MAX_ERROR_STRING == 512 && MPI_MAX_OBJECT_NAME == 128 &&
                   MPI_MAX_INFO_KEY == 255 && MPI_MAX_INFO_VAL == 1024,
               "string sizes");
_Static_assert(MPI_MAX_LIBRARY_VERSION_STRING <= 8192, "MPICH's buffer holds IVC's string");
_Static_assert(sizeof(MPI_Aint) == sizeof(abi_Aint) && sizeof(MPI_Count) == sizeof(abi_Count) &&
                   sizeof(MPI_Offset) == sizeof(abi_Offset),
               "integer types of the same size");

/* ---- helpers of the generated wrappers ---- */

int abi_unsupported(const char *name, MPI_Comm comm)
{
    (void)name;
    if (comm != NULL)
        IVCN_PMPI_Comm_call_errhandler(comm, MPI_ERR_UNSUPPORTED_OPERATION);
    return abi_err_out(MPI_ERR_UNSUPPORTED_OPERATION);
}

void *abi_scratch(size_t n, size_t size, void *stack)
{
    if (n <= ABI_STACK_N)
        return stack;
    void *p = malloc(n * size);
    if (p == NULL)
        oom();
    return p;
}

void abi_scratch_free(void *p, void *stack)
{
    if (p != stack)
        free(p);
}

int abi_comm_len(MPI_Comm comm, int remote)
{
    int inter = 0, n = 0;
    if (IVCN_PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return 0;
    if (inter && remote)
        IVCN_PMPI_Comm_remote_size(comm, &n);
    else
        IVCN_PMPI_Comm_size(comm, &n);
    return n;
}

int abi_neighbor_len(MPI_Comm comm, int out)
{
    int topo = MPI_UNDEFINED, n = 0;
    if (IVCN_PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
        return 0;
    if (topo == MPI_CART) {
        IVCN_PMPI_Cartdim_get(comm, &n);
        return 2 * n;
    }
    if (topo == MPI_GRAPH) {
        int rank = 0;
        IVCN_PMPI_Comm_rank(comm, &rank);
        IVCN_PMPI_Graph_neighbors_count(comm, rank, &n);
        return n;
    }
    int indeg = 0, outdeg = 0, w = 0;
    if (topo == MPI_DIST_GRAPH)
        IVCN_PMPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &w);
    return out ? outdeg : indeg;
}
