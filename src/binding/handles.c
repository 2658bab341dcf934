/* Fortran handles: the MPI_<Kind>_c2f / MPI_<Kind>_f2c functions of the C interface, the
 * MPI_Status conversions, and the storage of the Fortran sentinels (MPI_BOTTOM, MPI_IN_PLACE,
 * MPI_STATUS_IGNORE ... as Fortran sees them). Part of libmpi: C programs call these too.
 *
 * A Fortran handle is an INTEGER; a C handle is a pointer. Each handle kind has one table,
 * index -> pointer, and a hash, pointer -> index:
 *   - index 0 is the kind's null handle (MPI_COMM_NULL ...);
 *   - the predefined handles take the next fixed indices, in the order of mpi.h's lists
 *     (IVC_MPI_DATATYPES, IVC_MPI_F_DATATYPES, IVC_MPI_OPS ...), so that mpif.h can hold
 *     them as PARAMETERs (mpif.h is generated at build time by calling these functions);
 *     a list added later registers after the others, so that a Fortran program compiled
 *     against an earlier mpif.h or module keeps working;
 *   - any other object gets the next free index the first time it is converted, and keeps
 *     it: converting the same object again gives the same index.
 * Entries are never removed: the index of a freed object stays bound to its address, which
 * a later object at that address reuses (request and datatype objects are recycled), so a
 * table holds at most as many entries as distinct addresses were ever converted.
 *
 * Thread safety: one mutex per table; f2c of an index below the table's size reads the
 * array under the mutex as well (the array may move when it grows). */
#include <mpi.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define IVC_STR_(x)    #x
#define IVC_WEAK(name) _Pragma(IVC_STR_(weak MPI_##name = PMPI_##name))

/* ---- Fortran sentinels: common blocks /IVC_OBJ_F_.../ of mpif.h, mpi and mpi_f08 ---- */
MPI_Fint ivc_obj_f_bottom_[1];
MPI_Fint ivc_obj_f_in_place_[1];
MPI_Fint ivc_obj_f_buffer_automatic_[1];
MPI_Fint ivc_obj_f_status_ignore_[sizeof(MPI_Status) / sizeof(MPI_Fint)];
MPI_Fint ivc_obj_f_statuses_ignore_[sizeof(MPI_Status) / sizeof(MPI_Fint)];
MPI_Fint ivc_obj_f_errcodes_ignore_[1];
MPI_Fint ivc_obj_f_unweighted_[1];
MPI_Fint ivc_obj_f_weights_empty_[1];
char ivc_obj_f_argv_null_[1];
char ivc_obj_f_argvs_null_[1];

_Static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0, "MPI_Status is a whole number of MPI_Fint");
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "MPI_F08_status matches MPI_Status");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == 0 && offsetof(MPI_Status, MPI_TAG) == 4 &&
                   offsetof(MPI_Status, MPI_ERROR) == 8,
               "MPI_Status starts with MPI_SOURCE, MPI_TAG, MPI_ERROR (Fortran indices 1, 2, 3)");

/* ---- tables ---- */
struct htab {
    pthread_mutex_t lock;
    int npredef;  /* indices [0, npredef) are the null and predefined handles */
    int n, cap;   /* objects in obj[0, n) */
    void **obj;   /* index -> object */
    int *slot;    /* open-addressing hash of pointer -> index + 1 (0: empty) */
    int nslot;    /* power of two, at least 2 * cap */
};

enum { H_COMM, H_TYPE, H_GROUP, H_REQUEST, H_OP, H_ERRH, H_INFO, H_WIN, H_MESSAGE, H_SESSION, H_FILE, H_N };

static struct htab tabs[H_N];
static pthread_once_t tabs_once = PTHREAD_ONCE_INIT;

static unsigned hash_ptr(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (unsigned)x;
}

/* Looks p up; returns its index or -1. Called with the lock held. */
static int tab_find(const struct htab *t, const void *p)
{
    if (t->nslot == 0)
        return -1;
    for (unsigned h = hash_ptr(p) & (t->nslot - 1);; h = (h + 1) & (t->nslot - 1)) {
        int s = t->slot[h];
        if (s == 0)
            return -1;
        if (t->obj[s - 1] == p)
            return s - 1;
    }
}

static void tab_slot_put(struct htab *t, const void *p, int idx)
{
    unsigned h = hash_ptr(p) & (t->nslot - 1);
    while (t->slot[h] != 0)
        h = (h + 1) & (t->nslot - 1);
    t->slot[h] = idx + 1;
}

/* Appends p (not yet in the table); returns its index or -1 without memory. Called with the
 * lock held. */
static int tab_add(struct htab *t, void *p)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        void **obj = realloc(t->obj, (size_t)cap * sizeof(*obj));
        if (obj == NULL)
            return -1;
        t->obj = obj;
        int nslot = 2 * cap;
        int *slot = calloc((size_t)nslot, sizeof(*slot));
        if (slot == NULL)
            return -1;
        free(t->slot);
        t->slot = slot;
        t->nslot = nslot;
        t->cap = cap;
        for (int i = 0; i < t->n; i++)
            if (t->obj[i] != NULL)
                tab_slot_put(t, t->obj[i], i);
    }
    int idx = t->n++;
    t->obj[idx] = p;
    if (p != NULL)
        tab_slot_put(t, p, idx);
    return idx;
}

/* Registers a predefined handle at the next fixed index (aliases such as MPI_LONG_LONG and
 * MPI_LONG_LONG_INT share the first one's index). */
static void tab_predef(struct htab *t, void *p)
{
    if (p != NULL && tab_find(t, p) >= 0)
        return;
    tab_add(t, p);
    t->npredef = t->n;
}

static void tabs_init(void)
{
    for (int k = 0; k < H_N; k++) {
        pthread_mutex_init(&tabs[k].lock, NULL);
        tab_predef(&tabs[k], NULL); /* index 0: the null handle */
    }
    tab_predef(&tabs[H_COMM], MPI_COMM_WORLD);
    tab_predef(&tabs[H_COMM], MPI_COMM_SELF);
#define DT_PREDEF(NAME, low) tab_predef(&tabs[H_TYPE], &ivc_obj_dt_##low);
    IVC_MPI_DATATYPES(DT_PREDEF)
#ifdef IVC_MPI_CXX_DATATYPES
    IVC_MPI_CXX_DATATYPES(DT_PREDEF)
#endif
#ifdef IVC_MPI_F_DATATYPES
    IVC_MPI_F_DATATYPES(DT_PREDEF)
#endif
    IVC_MPI_REMOVED_DATATYPES(DT_PREDEF)
#ifdef IVC_MPI_F_OPT_DATATYPES
    IVC_MPI_F_OPT_DATATYPES(DT_PREDEF) /* added last: earlier indices keep their values */
#endif
#undef DT_PREDEF
    tab_predef(&tabs[H_GROUP], MPI_GROUP_EMPTY);
#define OP_PREDEF(NAME, low) tab_predef(&tabs[H_OP], &ivc_obj_op_##low);
    IVC_MPI_OPS(OP_PREDEF)
#undef OP_PREDEF
    tab_predef(&tabs[H_ERRH], MPI_ERRORS_ARE_FATAL);
    tab_predef(&tabs[H_ERRH], MPI_ERRORS_RETURN);
    tab_predef(&tabs[H_ERRH], MPI_ERRORS_ABORT);
#ifdef MPI_INFO_ENV
    tab_predef(&tabs[H_INFO], MPI_INFO_ENV);
#endif
    tab_predef(&tabs[H_MESSAGE], MPI_MESSAGE_NO_PROC);
}

static MPI_Fint c2f(int kind, void *p)
{
    pthread_once(&tabs_once, tabs_init);
    struct htab *t = &tabs[kind];
    if (p == NULL)
        return 0;
    pthread_mutex_lock(&t->lock);
    int idx = tab_find(t, p);
    if (idx < 0)
        idx = tab_add(t, p);
    pthread_mutex_unlock(&t->lock);
    return idx < 0 ? 0 : (MPI_Fint)idx; /* no memory: the null handle, which calls reject */
}

static void *f2c(int kind, MPI_Fint f)
{
    pthread_once(&tabs_once, tabs_init);
    struct htab *t = &tabs[kind];
    void *p = NULL;
    pthread_mutex_lock(&t->lock);
    if (f > 0 && f < t->n)
        p = t->obj[f];
    pthread_mutex_unlock(&t->lock);
    return p; /* an unknown index is the null handle: calls reject it as invalid */
}

/* One pair per handle kind. Each returns the other language's handle; never fails (an
 * unknown Fortran index gives the null handle, which MPI calls reject). MPI-5.0's
 * MPI_<Kind>_toint / MPI_<Kind>_fromint are the same conversion with int for MPI_Fint (the
 * standard makes the integer of toint usable by f2c and the reverse). */
#define HANDLE_CONV(Kind, Type, tab)                                                               \
    MPI_Fint PMPI_##Kind##_c2f(Type h) { return c2f(tab, (void *)h); }                             \
    Type PMPI_##Kind##_f2c(MPI_Fint f) { return (Type)f2c(tab, f); }                               \
    int PMPI_##Kind##_toint(Type h) { return (int)c2f(tab, (void *)h); }                           \
    Type PMPI_##Kind##_fromint(int i) { return (Type)f2c(tab, (MPI_Fint)i); }                      \
    IVC_WEAK(Kind##_c2f)                                                                           \
    IVC_WEAK(Kind##_f2c)                                                                           \
    IVC_WEAK(Kind##_toint)                                                                         \
    IVC_WEAK(Kind##_fromint)

HANDLE_CONV(Comm, MPI_Comm, H_COMM)
HANDLE_CONV(Type, MPI_Datatype, H_TYPE)
HANDLE_CONV(Group, MPI_Group, H_GROUP)
HANDLE_CONV(Request, MPI_Request, H_REQUEST)
HANDLE_CONV(Op, MPI_Op, H_OP)
HANDLE_CONV(Errhandler, MPI_Errhandler, H_ERRH)
HANDLE_CONV(Info, MPI_Info, H_INFO)
HANDLE_CONV(Win, MPI_Win, H_WIN)
HANDLE_CONV(Message, MPI_Message, H_MESSAGE)
HANDLE_CONV(Session, MPI_Session, H_SESSION)
HANDLE_CONV(File, MPI_File, H_FILE)

/* ---- statuses: a Fortran INTEGER status(MPI_STATUS_SIZE) and TYPE(MPI_Status) hold the C
 * MPI_Status bit for bit (memcpy: a Fortran integer array need not be aligned for the
 * status's 8-byte field). Each returns MPI_SUCCESS, or MPI_ERR_ARG for a NULL or ignore
 * argument. ---- */
static int status_bad(const void *a, const void *b)
{
    return a == NULL || b == NULL || a == (const void *)MPI_STATUS_IGNORE ||
           b == (const void *)MPI_STATUS_IGNORE || a == (const void *)ivc_obj_f_status_ignore_ ||
           b == (const void *)ivc_obj_f_status_ignore_;
}

#define STATUS_CONV(name, From, To)                                                                \
    int PMPI_Status_##name(const From *in, To *out)                                                \
    {                                                                                              \
        if (status_bad(in, out))                                                                   \
            return MPI_ERR_ARG;                                                                    \
        memcpy(out, in, sizeof(MPI_Status));                                                       \
        return MPI_SUCCESS;                                                                        \
    }                                                                                              \
    IVC_WEAK(Status_##name)

STATUS_CONV(c2f, MPI_Status, MPI_Fint)
STATUS_CONV(f2c, MPI_Fint, MPI_Status)
STATUS_CONV(c2f08, MPI_Status, MPI_F08_status)
STATUS_CONV(f082c, MPI_F08_status, MPI_Status)
STATUS_CONV(f2f08, MPI_Fint, MPI_F08_status)
STATUS_CONV(f082f, MPI_F08_status, MPI_Fint)
