/* Handle tables of the ABI conversion layers (conv.h says how they work), and the helpers of
 * the generated wrappers. Compiled once per ABI, with that ABI's profile header (abi.h from
 * mpich/ or std/, found through the include path). */
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

abi_h abi_builtin_val[ABI_K_N][ABI_BUILTIN_N];
void *abi_builtin_obj[ABI_K_N][ABI_BUILTIN_N];
/* The same pairs as a list per kind, for abi_out's reverse lookup. */
#define MAX_PREDEF 96
static struct {
    void *obj;
    abi_h val;
} predef[ABI_K_N][MAX_PREDEF];
static int npredef[ABI_K_N];

void abi_builtin(int kind, abi_h val, void *obj)
{
    unsigned lo = abi_builtin_index(val);
    if (lo >= ABI_BUILTIN_N || abi_builtin_val[kind][lo] != 0 || npredef[kind] == MAX_PREDEF) {
        fprintf(stderr, "ivc abi: predefined handle 0x%lx collides\n", (unsigned long)val);
        abort();
    }
    abi_builtin_val[kind][lo] = val;
    abi_builtin_obj[kind][lo] = obj;
    predef[kind][npredef[kind]].obj = obj;
    predef[kind][npredef[kind]++].val = val;
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
    fprintf(stderr, "ivc abi: out of memory for handles\n");
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
            fprintf(stderr, "ivc abi: more than %u live handles of one kind\n",
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

static abi_h lookup_predef(int kind, void *obj)
{
    for (int i = 0; i < npredef[kind]; i++)
        if (predef[kind][i].obj == obj)
            return predef[kind][i].val;
    return 0;
}

static abi_h out_common(int kind, void *obj, int newref)
{
    if (obj == NULL)
        return abi_null[kind];
    abi_h v = lookup_predef(kind, obj);
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
    return ABI_USER_HANDLE(kind, i);
}

abi_h abi_out(int kind, void *obj)
{
    return out_common(kind, obj, 1);
}

abi_h abi_find(int kind, void *obj)
{
    return out_common(kind, obj, 0);
}

void abi_release(int kind, abi_h h)
{
    if (!ABI_IS_USER(h) || !ABI_USER_KIND_OK(h, kind))
        return; /* predefined handles are never freed */
    abi_table_t *t = &abi_tables[kind];
    int i = (int)ABI_USER_SLOT(h);
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
