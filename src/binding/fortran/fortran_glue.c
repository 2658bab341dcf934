/* Hand-written glue of the Fortran bindings: what the generator (gen_fortran.py, HANDWRITTEN)
 * leaves out because it needs more than argument conversion:
 *   - Fortran callbacks: MPI_Op_create, MPI_{Comm,Win,Session}_create_errhandler mark the
 *     new object as Fortran's (the `fortran` flag of ivc_mpi_op_s / ivc_mpi_errh_s: libmpi then
 *     calls the procedure with Fortran handles); keyval creation wraps the Fortran copy and
 *     delete procedures in C trampolines that get them back through extra_state;
 *   - attribute values: INTEGER(KIND=MPI_ADDRESS_KIND) (MPI_Comm_set_attr ...) or INTEGER
 *     (MPI_Attr_put) stored as the C attribute's pointer value; predefined attributes, which C
 *     returns as pointers to the value, come back to Fortran as the value itself;
 *   - MPI_Register_datarep's conversion and extent procedures, through C trampolines;
 *   - the predefined Fortran callbacks (MPI_COMM_DUP_FN ..., MPI_CONVERSION_FN_NULL) and
 *     MPI_F_sync_reg.
 * Every C function is reached through a weak reference, as in the generated glue. */
#include "fortran_util.h"

#ifdef IVC_FORT_ABI
/* libmpifort_abi sees only the C ABI. A Fortran procedure is registered as the C callback
 * itself: the ABI's C library passes it a pointer to a handle whose value is the handle's
 * integer (predefined values below 0x400, IVC's others below 2^31: src/abi/std/README.md), so
 * on a little-endian machine the INTEGER the procedure reads there is the Fortran handle.
 * Files are the exception (their C handle is a pointer): abi/fortran_abi.c. Attribute
 * values set from Fortran are not marked for C (a C get of one returns the value, not its
 * address: abi/README.md). */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "Fortran handles read as C handles");
#define ivc_fort_keyval_mark(kv)               ((void)(kv))
#define ivc_fort_attr_mark(kind, obj, kv, old) ((void)(obj))
#define ivc_fort_attr_value(kind, obj, kv, out) ((void)(obj), 0)
#else
#include "coll/coll.h"
#include "comm/comm.h"
#include "env/env.h"
#endif

#include <pthread.h>

#define WEAK_C(ret, name, params) extern ret ivcf_##name params __asm__("P" #name) __attribute__((weak))

WEAK_C(int, MPI_Op_create, (MPI_User_function *, int, MPI_Op *));
WEAK_C(int, MPI_Comm_create_errhandler, (void *, MPI_Errhandler *));
WEAK_C(int, MPI_Win_create_errhandler, (void *, MPI_Errhandler *));
WEAK_C(int, MPI_Session_create_errhandler, (void *, MPI_Errhandler *));
WEAK_C(int, MPI_File_create_errhandler, (void *, MPI_Errhandler *));
WEAK_C(int, MPI_Comm_create_keyval, (void *, void *, int *, void *));
WEAK_C(int, MPI_Type_create_keyval, (void *, void *, int *, void *));
WEAK_C(int, MPI_Win_create_keyval, (void *, void *, int *, void *));
WEAK_C(int, MPI_Comm_set_attr, (MPI_Comm, int, void *));
WEAK_C(int, MPI_Comm_get_attr, (MPI_Comm, int, void *, int *));
WEAK_C(int, MPI_Type_set_attr, (MPI_Datatype, int, void *));
WEAK_C(int, MPI_Type_get_attr, (MPI_Datatype, int, void *, int *));
WEAK_C(int, MPI_Win_set_attr, (MPI_Win, int, void *));
WEAK_C(int, MPI_Win_get_attr, (MPI_Win, int, void *, int *));
WEAK_C(int, MPI_Info_get_string, (MPI_Info, const char *, int *, char *, int *));
WEAK_C(int, MPI_Comm_size, (MPI_Comm, int *));
WEAK_C(int, MPI_Comm_remote_size, (MPI_Comm, int *));
WEAK_C(int, MPI_Comm_test_inter, (MPI_Comm, int *));
WEAK_C(int, MPI_Comm_rank, (MPI_Comm, int *));
WEAK_C(int, MPI_Topo_test, (MPI_Comm, int *));
WEAK_C(int, MPI_Cartdim_get, (MPI_Comm, int *));
WEAK_C(int, MPI_Graph_neighbors_count, (MPI_Comm, int, int *));
WEAK_C(int, MPI_Dist_graph_neighbors_count, (MPI_Comm, int *, int *, int *));

#define NOT_THERE(fn, ierr)                                                                        \
    do {                                                                                           \
        if (ivcf_##fn == NULL) {                                                                   \
            *(ierr) = MPI_ERR_UNSUPPORTED_OPERATION;                                               \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#define ALIAS(low) IVCF_ALIAS(low)

/* What ivcf_keep() keeps: reachable from here, so leak checkers see it as intended. */
struct kept {
    struct kept *next;
    void *p;
};
static struct kept *kept_head;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

void ivcf_keep(void *p)
{
    struct kept *k = malloc(sizeof(*k));
    if (k == NULL)
        return; /* then it leaks, as it would have anyway */
    k->p = p;
    pthread_mutex_lock(&kept_lock);
    k->next = kept_head;
    kept_head = k;
    pthread_mutex_unlock(&kept_lock);
}

int ivcf_comm_nprocs(void *fcomm, int which, int neighbor)
{
    MPI_Comm c = PMPI_Comm_f2c(*(MPI_Fint *)fcomm);
    int n = 0, inter = 0;
    if (!neighbor) {
        if (ivcf_MPI_Comm_test_inter && ivcf_MPI_Comm_test_inter(c, &inter) == MPI_SUCCESS && inter)
            return ivcf_MPI_Comm_remote_size && ivcf_MPI_Comm_remote_size(c, &n) == MPI_SUCCESS ? n : 0;
        return ivcf_MPI_Comm_size && ivcf_MPI_Comm_size(c, &n) == MPI_SUCCESS ? n : 0;
    }
    int topo = MPI_UNDEFINED;
    if (ivcf_MPI_Topo_test == NULL || ivcf_MPI_Topo_test(c, &topo) != MPI_SUCCESS)
        return 0;
    if (topo == MPI_CART)
        return ivcf_MPI_Cartdim_get && ivcf_MPI_Cartdim_get(c, &n) == MPI_SUCCESS ? 2 * n : 0;
    if (topo == MPI_GRAPH) {
        int rank = 0;
        if (ivcf_MPI_Comm_rank == NULL || ivcf_MPI_Graph_neighbors_count == NULL ||
            ivcf_MPI_Comm_rank(c, &rank) != MPI_SUCCESS)
            return 0;
        return ivcf_MPI_Graph_neighbors_count(c, rank, &n) == MPI_SUCCESS ? n : 0;
    }
    if (topo == MPI_DIST_GRAPH) {
        int in = 0, out = 0, w = 0;
        if (ivcf_MPI_Dist_graph_neighbors_count == NULL ||
            ivcf_MPI_Dist_graph_neighbors_count(c, &in, &out, &w) != MPI_SUCCESS)
            return 0;
        return which == IVCF_NPROCS_SEND ? out : in;
    }
    return 0;
}

/* ---- user operations and error handlers written in Fortran ---- */

void pmpi_op_create_(void *user_fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierror);
void pmpi_op_create_(void *user_fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierror)
{
    NOT_THERE(MPI_Op_create, ierror);
    MPI_Op o = MPI_OP_NULL;
    int rc = ivcf_MPI_Op_create((MPI_User_function *)user_fn, *commute != 0, &o);
    if (rc == MPI_SUCCESS) {
#ifndef IVC_FORT_ABI
        o->fortran = 1;
#endif
        *op = PMPI_Op_c2f(o);
    }
    *ierror = rc;
}
ALIAS(mpi_op_create)

#ifdef IVC_FORT_ABI
#define ERRH_FORTRAN(e) ((void)(e))
#else
#define ERRH_FORTRAN(e) ((e)->fortran = 1)
#endif

#define ERRH_CREATE(low, Name)                                                                     \
    void p##low##_(void *fn, MPI_Fint *errhandler, MPI_Fint *ierror);                              \
    void p##low##_(void *fn, MPI_Fint *errhandler, MPI_Fint *ierror)                               \
    {                                                                                              \
        NOT_THERE(Name, ierror);                                                                   \
        MPI_Errhandler e = MPI_ERRHANDLER_NULL;                                                    \
        int rc = ivcf_##Name(fn, &e);                                                              \
        if (rc == MPI_SUCCESS) {                                                                   \
            ERRH_FORTRAN(e);                                                                       \
            *errhandler = PMPI_Errhandler_c2f(e);                                                  \
        }                                                                                          \
        *ierror = rc;                                                                              \
    }                                                                                              \
    ALIAS(low)

ERRH_CREATE(mpi_comm_create_errhandler, MPI_Comm_create_errhandler)
ERRH_CREATE(mpi_win_create_errhandler, MPI_Win_create_errhandler)
ERRH_CREATE(mpi_session_create_errhandler, MPI_Session_create_errhandler)
#ifndef IVC_FORT_ABI /* the standard ABI's: abi/fortran_abi.c */
ERRH_CREATE(mpi_file_create_errhandler, MPI_File_create_errhandler)
#endif

/* ---- keyvals with Fortran copy and delete procedures ----
 * The C keyval's extra_state is a struct fkeyval holding the Fortran procedures and the
 * user's extra_state; the C trampolines below call the procedures with Fortran arguments.
 * One struct per keyval, kept for the life of the program (ivcf_keep: attributes of a freed
 * keyval may still be copied or deleted). */
typedef void fcopy_fn(MPI_Fint *, MPI_Fint *, void *, void *, void *, MPI_Fint *, MPI_Fint *);
typedef void fdelete_fn(MPI_Fint *, MPI_Fint *, void *, void *, MPI_Fint *);

struct fkeyval {
    fcopy_fn *copy;
    fdelete_fn *del;
    int old_style; /* MPI_Keyval_create: INTEGER extra_state and attribute values */
    MPI_Aint extra;
    MPI_Fint extra_int;
};

static int fk_copy(MPI_Fint fobj, int keyval, struct fkeyval *k, void *in, void *out, int *flag)
{
    MPI_Fint fkey = keyval, fflag = 0, ierr = MPI_SUCCESS;
    if (k->old_style) {
        MPI_Fint vin = (MPI_Fint)(intptr_t)in, vout = 0;
        k->copy(&fobj, &fkey, &k->extra_int, &vin, &vout, &fflag, &ierr);
        *(void **)out = (void *)(intptr_t)vout;
    } else {
        MPI_Aint vin = (MPI_Aint)in, vout = 0;
        k->copy(&fobj, &fkey, &k->extra, &vin, &vout, &fflag, &ierr);
        *(void **)out = (void *)vout;
    }
    *flag = fflag != 0;
    return ierr;
}

static int fk_delete(MPI_Fint fobj, int keyval, struct fkeyval *k, void *val)
{
    MPI_Fint fkey = keyval, ierr = MPI_SUCCESS;
    if (k->old_style) {
        MPI_Fint v = (MPI_Fint)(intptr_t)val;
        k->del(&fobj, &fkey, &v, &k->extra_int, &ierr);
    } else {
        MPI_Aint v = (MPI_Aint)val;
        k->del(&fobj, &fkey, &v, &k->extra, &ierr);
    }
    return ierr;
}

static int comm_copy_tramp(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    return fk_copy(PMPI_Comm_c2f(old), keyval, extra, in, out, flag);
}
static int comm_delete_tramp(MPI_Comm c, int keyval, void *val, void *extra)
{
    return fk_delete(PMPI_Comm_c2f(c), keyval, extra, val);
}
static int type_copy_tramp(MPI_Datatype old, int keyval, void *extra, void *in, void *out, int *flag)
{
    return fk_copy(PMPI_Type_c2f(old), keyval, extra, in, out, flag);
}
static int type_delete_tramp(MPI_Datatype t, int keyval, void *val, void *extra)
{
    return fk_delete(PMPI_Type_c2f(t), keyval, extra, val);
}
static int win_copy_tramp(MPI_Win old, int keyval, void *extra, void *in, void *out, int *flag)
{
    return fk_copy(PMPI_Win_c2f(old), keyval, extra, in, out, flag);
}
static int win_delete_tramp(MPI_Win w, int keyval, void *val, void *extra)
{
    return fk_delete(PMPI_Win_c2f(w), keyval, extra, val);
}

static void keyval_create(int (*create)(void *, void *, int *, void *), void *ctramp,
                          void *dtramp, void *copy_fn, void *delete_fn, MPI_Fint *keyval,
                          void *extra_state, int old_style, MPI_Fint *ierror)
{
    struct fkeyval *k = calloc(1, sizeof(*k));
    if (k == NULL) {
        *ierror = MPI_ERR_NO_MEM;
        return;
    }
    k->copy = (fcopy_fn *)copy_fn;
    k->del = (fdelete_fn *)delete_fn;
    k->old_style = old_style;
    if (old_style)
        k->extra_int = *(MPI_Fint *)extra_state;
    else
        k->extra = *(MPI_Aint *)extra_state;
    int kv = MPI_KEYVAL_INVALID;
    int rc = create(ctramp, dtramp, &kv, k);
    if (rc == MPI_SUCCESS) {
        *keyval = kv;
        ivc_fort_keyval_mark(kv);
        ivcf_keep(k);
    } else {
        free(k);
    }
    *ierror = rc;
}

#define KEYVAL_CREATE(low, Name, ctramp, dtramp, old_style)                                        \
    void p##low##_(void *copy_fn, void *delete_fn, MPI_Fint *keyval, void *extra_state,            \
                   MPI_Fint *ierror);                                                              \
    void p##low##_(void *copy_fn, void *delete_fn, MPI_Fint *keyval, void *extra_state,            \
                   MPI_Fint *ierror)                                                               \
    {                                                                                              \
        NOT_THERE(Name, ierror);                                                                   \
        keyval_create(ivcf_##Name, (void *)ctramp, (void *)dtramp, copy_fn, delete_fn, keyval,     \
                      extra_state, old_style, ierror);                                             \
    }                                                                                              \
    ALIAS(low)

KEYVAL_CREATE(mpi_comm_create_keyval, MPI_Comm_create_keyval, comm_copy_tramp, comm_delete_tramp, 0)
KEYVAL_CREATE(mpi_type_create_keyval, MPI_Type_create_keyval, type_copy_tramp, type_delete_tramp, 0)
KEYVAL_CREATE(mpi_win_create_keyval, MPI_Win_create_keyval, win_copy_tramp, win_delete_tramp, 0)
KEYVAL_CREATE(mpi_keyval_create, MPI_Comm_create_keyval, comm_copy_tramp, comm_delete_tramp, 1)

/* ---- predefined Fortran callbacks ---- */
#define NULL_COPY(low)                                                                             \
    void low##_(MPI_Fint *o, MPI_Fint *k, void *e, void *in, void *out, MPI_Fint *flag,            \
                MPI_Fint *ierr);                                                                   \
    void low##_(MPI_Fint *o, MPI_Fint *k, void *e, void *in, void *out, MPI_Fint *flag,            \
                MPI_Fint *ierr)                                                                    \
    {                                                                                              \
        *flag = 0;                                                                                 \
        *ierr = MPI_SUCCESS;                                                                       \
    }
#define DUP(low, T)                                                                                \
    void low##_(MPI_Fint *o, MPI_Fint *k, void *e, T *in, T *out, MPI_Fint *flag, MPI_Fint *ierr); \
    void low##_(MPI_Fint *o, MPI_Fint *k, void *e, T *in, T *out, MPI_Fint *flag, MPI_Fint *ierr)  \
    {                                                                                              \
        *out = *in;                                                                                \
        *flag = 1;                                                                                 \
        *ierr = MPI_SUCCESS;                                                                       \
    }
#define NULL_DELETE(low)                                                                           \
    void low##_(MPI_Fint *o, MPI_Fint *k, void *v, void *e, MPI_Fint *ierr);                      \
    void low##_(MPI_Fint *o, MPI_Fint *k, void *v, void *e, MPI_Fint *ierr)                       \
    {                                                                                              \
        *ierr = MPI_SUCCESS;                                                                       \
    }
NULL_COPY(mpi_comm_null_copy_fn)
NULL_COPY(mpi_type_null_copy_fn)
NULL_COPY(mpi_win_null_copy_fn)
NULL_COPY(mpi_null_copy_fn)
DUP(mpi_comm_dup_fn, MPI_Aint)
DUP(mpi_type_dup_fn, MPI_Aint)
DUP(mpi_win_dup_fn, MPI_Aint)
DUP(mpi_dup_fn, MPI_Fint)
NULL_DELETE(mpi_comm_null_delete_fn)
NULL_DELETE(mpi_type_null_delete_fn)
NULL_DELETE(mpi_win_null_delete_fn)
NULL_DELETE(mpi_null_delete_fn)

/* ---- attributes ---- */

/* The value of a predefined attribute, which C returns as a pointer to it. Returns 1 for a
 * predefined keyval of communicators (kind 'c') or windows ('w'), else 0. */
static int predef_value(int kind, int keyval, void *v, MPI_Aint *out)
{
    if (kind == 'c') {
        switch (keyval) {
        case MPI_TAG_UB:
        case MPI_HOST:
        case MPI_IO:
        case MPI_WTIME_IS_GLOBAL:
        case MPI_APPNUM:
        case MPI_UNIVERSE_SIZE:
        case MPI_LASTUSEDCODE:
            *out = *(int *)v;
            return 1;
        }
    } else if (kind == 'w') {
        switch (keyval) {
        case MPI_WIN_BASE:
            *out = (MPI_Aint)v;
            return 1;
        case MPI_WIN_SIZE:
            *out = *(MPI_Aint *)v;
            return 1;
        case MPI_WIN_DISP_UNIT:
        case MPI_WIN_CREATE_FLAVOR:
        case MPI_WIN_MODEL:
            *out = *(int *)v;
            return 1;
        }
    }
    return 0;
}

/* Set from Fortran: libmpi keeps the value, and C's get returns its address (MPI-4.1
 * section 19.3.7); got from Fortran: the value of a Fortran attribute, the pointer of a C one
 * (ivc_fort_* in src/mpi/comm/comm.h). */
#define ATTR_SET(low, Name, f2c, kind)                                                             \
    void p##low##_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *ierror);              \
    void p##low##_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *ierror)               \
    {                                                                                              \
        NOT_THERE(Name, ierror);                                                                   \
        *ierror = ivcf_##Name(f2c(*obj), *keyval, (void *)*val);                                   \
        if (*ierror == MPI_SUCCESS)                                                                \
            ivc_fort_attr_mark(kind, (void *)f2c(*obj), *keyval, 0);                               \
    }                                                                                              \
    ALIAS(low)

#define ATTR_GET(low, Name, f2c, kind)                                                             \
    void p##low##_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *flag,                 \
                   MPI_Fint *ierror);                                                              \
    void p##low##_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *flag,                 \
                   MPI_Fint *ierror)                                                               \
    {                                                                                              \
        NOT_THERE(Name, ierror);                                                                   \
        void *v = NULL;                                                                            \
        int fl = 0;                                                                                \
        int rc = ivcf_##Name(f2c(*obj), *keyval, &v, &fl);                                         \
        if (rc == MPI_SUCCESS) {                                                                   \
            *flag = fl != 0;                                                                       \
            if (fl && !predef_value(kind, *keyval, v, val) &&                                      \
                !ivc_fort_attr_value(kind, (void *)f2c(*obj), *keyval, val))                       \
                *val = (MPI_Aint)v;                                                                \
        }                                                                                          \
        *ierror = rc;                                                                              \
    }                                                                                              \
    ALIAS(low)

ATTR_SET(mpi_comm_set_attr, MPI_Comm_set_attr, PMPI_Comm_f2c, 'c')
ATTR_SET(mpi_type_set_attr, MPI_Type_set_attr, PMPI_Type_f2c, 't')
ATTR_SET(mpi_win_set_attr, MPI_Win_set_attr, PMPI_Win_f2c, 'w')
ATTR_GET(mpi_comm_get_attr, MPI_Comm_get_attr, PMPI_Comm_f2c, 'c')
ATTR_GET(mpi_type_get_attr, MPI_Type_get_attr, PMPI_Type_f2c, 't')
ATTR_GET(mpi_win_get_attr, MPI_Win_get_attr, PMPI_Win_f2c, 'w')

/* MPI_Attr_put / MPI_Attr_get (deprecated): INTEGER attribute values. */
void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *ierror);
void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *ierror)
{
    NOT_THERE(MPI_Comm_set_attr, ierror);
    *ierror = ivcf_MPI_Comm_set_attr(PMPI_Comm_f2c(*comm), *keyval, (void *)(intptr_t)*val);
    if (*ierror == MPI_SUCCESS)
        ivc_fort_attr_mark('c', (void *)PMPI_Comm_f2c(*comm), *keyval, 1);
}
ALIAS(mpi_attr_put)

void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag,
                    MPI_Fint *ierror);
void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag,
                    MPI_Fint *ierror)
{
    NOT_THERE(MPI_Comm_get_attr, ierror);
    void *v = NULL;
    int fl = 0;
    MPI_Aint a;
    int rc = ivcf_MPI_Comm_get_attr(PMPI_Comm_f2c(*comm), *keyval, &v, &fl);
    if (rc == MPI_SUCCESS) {
        *flag = fl != 0;
        if (fl)
            *val = predef_value('c', *keyval, v, &a) ||
                           ivc_fort_attr_value('c', (void *)PMPI_Comm_f2c(*comm), *keyval, &a)
                       ? (MPI_Fint)a
                       : (MPI_Fint)(intptr_t)v;
    }
    *ierror = rc;
}
ALIAS(mpi_attr_get)

/* MPI_Info_get_string: Fortran's buflen counts characters without C's terminating NUL, in
 * and out (the value's length comes back); with buflen 0, or for an absent key, value is
 * left as it was; otherwise the first min(buflen, LEN(value)) characters are written and
 * the rest of value is blank. */
void pmpi_info_get_string_(MPI_Fint *info, char *key, MPI_Fint *buflen, char *value, MPI_Fint *flag,
                           MPI_Fint *ierror, size_t key_len, size_t value_len);
void pmpi_info_get_string_(MPI_Fint *info, char *key, MPI_Fint *buflen, char *value, MPI_Fint *flag,
                           MPI_Fint *ierror, size_t key_len, size_t value_len)
{
    NOT_THERE(MPI_Info_get_string, ierror);
    size_t want = *buflen < 0 ? 0 : (size_t)*buflen;
    if (want > value_len)
        want = value_len;
    char *c_key = ivcf_cstr_trim(key, key_len);
    char *c_value = ivcf_cbuf(want);
    if (c_key == NULL || c_value == NULL) {
        free(c_key);
        free(c_value);
        *ierror = MPI_ERR_NO_MEM;
        return;
    }
    int c_len = (int)want + 1, c_flag = 0;
    int rc = ivcf_MPI_Info_get_string(PMPI_Info_f2c(*info), c_key, &c_len, c_value, &c_flag);
    if (rc == MPI_SUCCESS) {
        *flag = c_flag != 0;
        if (c_flag) {
            if (want > 0)
                ivcf_fstr(value, value_len, c_value);
            *buflen = c_len - 1;
        }
    }
    free(c_key);
    free(c_value);
    *ierror = rc;
}
ALIAS(mpi_info_get_string)

/* MPI_F_sync_reg: its only job is to be an opaque call the compiler cannot see through. */
void pmpi_f_sync_reg_(void *buf);
void pmpi_f_sync_reg_(void *buf)
{
    __asm__ volatile("" : : "r"(buf) : "memory");
}
ALIAS(mpi_f_sync_reg)

/* ---- generalized requests with Fortran query, free and cancel procedures ----
 * The C extra_state is a struct holding the procedures and the address of the user's
 * EXTRA_STATE variable, which every procedure gets by reference: what the free procedure
 * writes there is what the program sees afterwards (as with MPICH and Open MPI; the variable
 * has to outlive the request). The struct is freed after the free procedure ran. */
WEAK_C(int, MPI_Grequest_start, (void *, void *, void *, void *, MPI_Request *));

typedef void fquery_fn(MPI_Aint *, MPI_Fint *, MPI_Fint *);
typedef void ffree_fn(MPI_Aint *, MPI_Fint *);
typedef void fcancel_fn(MPI_Aint *, MPI_Fint *, MPI_Fint *);

struct fgreq {
    fquery_fn *query;
    ffree_fn *free;
    fcancel_fn *cancel;
    MPI_Aint *extra;
};

static int greq_query_tramp(void *extra, MPI_Status *status)
{
    struct fgreq *g = extra;
    MPI_Fint fst[sizeof(MPI_Status) / sizeof(MPI_Fint)], ierr = MPI_SUCCESS;
    memcpy(fst, status, sizeof(fst));
    g->query(g->extra, fst, &ierr);
    memcpy(status, fst, sizeof(fst));
    return ierr;
}

static int greq_free_tramp(void *extra)
{
    struct fgreq *g = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free(g->extra, &ierr);
    free(g);
    return ierr;
}

static int greq_cancel_tramp(void *extra, int complete)
{
    struct fgreq *g = extra;
    MPI_Fint fcomplete = complete != 0, ierr = MPI_SUCCESS;
    g->cancel(g->extra, &fcomplete, &ierr);
    return ierr;
}

void pmpi_grequest_start_(void *query_fn, void *free_fn, void *cancel_fn, MPI_Aint *extra_state,
                          MPI_Fint *request, MPI_Fint *ierror);
void pmpi_grequest_start_(void *query_fn, void *free_fn, void *cancel_fn, MPI_Aint *extra_state,
                          MPI_Fint *request, MPI_Fint *ierror)
{
    NOT_THERE(MPI_Grequest_start, ierror);
    struct fgreq *g = malloc(sizeof(*g));
    if (g == NULL) {
        *ierror = MPI_ERR_NO_MEM;
        return;
    }
    *g = (struct fgreq){(fquery_fn *)query_fn, (ffree_fn *)free_fn, (fcancel_fn *)cancel_fn,
                        extra_state};
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = ivcf_MPI_Grequest_start((void *)greq_query_tramp, (void *)greq_free_tramp,
                                     (void *)greq_cancel_tramp, g, &r);
    if (rc == MPI_SUCCESS)
        *request = PMPI_Request_c2f(r);
    else
        free(g);
    *ierror = rc;
}
ALIAS(mpi_grequest_start)

/* ---- MPI_Register_datarep with Fortran conversion procedures ----
 * The representation lives for the rest of the program (nothing unregisters one), so its
 * record is kept (ivcf_keep). Every procedure gets the Fortran arguments by reference (the
 * buffers as their addresses: TYPE(C_PTR), VALUE in mpi_f08 passes the same), the datatype
 * as its Fortran handle and the EXTRA_STATE value given at registration. MPI_CONVERSION_FN_NULL
 * from Fortran is the procedure below, which stands for C's: no conversion that way. */
WEAK_C(int, MPI_Register_datarep, (const char *, void *, void *, void *, void *));

typedef void fconv_fn(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Offset *, MPI_Aint *,
                      MPI_Fint *);
typedef void fextent_fn(MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Fint *);

struct fdatarep {
    fconv_fn *read, *write;
    fextent_fn *extent;
    MPI_Aint extra;
};

void mpi_conversion_fn_null_(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                             MPI_Offset *position, MPI_Aint *extra_state, MPI_Fint *ierror);
void mpi_conversion_fn_null_(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                             MPI_Offset *position, MPI_Aint *extra_state, MPI_Fint *ierror)
{
    *ierror = MPI_SUCCESS;
}

static int datarep_conv(fconv_fn *fn, void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                        MPI_Offset position, struct fdatarep *d)
{
    MPI_Fint fdt = PMPI_Type_c2f(dt), fcount = count, ierr = MPI_SUCCESS;
    fn(userbuf, &fdt, &fcount, filebuf, &position, &d->extra, &ierr);
    return ierr;
}

static int datarep_read_tramp(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                              MPI_Offset position, void *extra)
{
    struct fdatarep *d = extra;
    return datarep_conv(d->read, userbuf, dt, count, filebuf, position, d);
}

static int datarep_write_tramp(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                               MPI_Offset position, void *extra)
{
    struct fdatarep *d = extra;
    return datarep_conv(d->write, userbuf, dt, count, filebuf, position, d);
}

static int datarep_extent_tramp(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    struct fdatarep *d = extra;
    MPI_Fint fdt = PMPI_Type_c2f(dt), ierr = MPI_SUCCESS;
    d->extent(&fdt, extent, &d->extra, &ierr);
    return ierr;
}

void pmpi_register_datarep_(char *datarep, void *read_fn, void *write_fn, void *extent_fn,
                            MPI_Aint *extra_state, MPI_Fint *ierror, size_t datarep_len);
void pmpi_register_datarep_(char *datarep, void *read_fn, void *write_fn, void *extent_fn,
                            MPI_Aint *extra_state, MPI_Fint *ierror, size_t datarep_len)
{
    NOT_THERE(MPI_Register_datarep, ierror);
    void *null_fn = (void *)mpi_conversion_fn_null_;
    char *name = ivcf_cstr(datarep, datarep_len);
    struct fdatarep *d = malloc(sizeof(*d));
    if (name == NULL || d == NULL) {
        free(name);
        free(d);
        *ierror = MPI_ERR_NO_MEM;
        return;
    }
    *d = (struct fdatarep){(fconv_fn *)read_fn, (fconv_fn *)write_fn, (fextent_fn *)extent_fn,
                           *extra_state};
    int rc = ivcf_MPI_Register_datarep(
        name, read_fn == null_fn ? (void *)MPI_CONVERSION_FN_NULL : (void *)datarep_read_tramp,
        write_fn == null_fn ? (void *)MPI_CONVERSION_FN_NULL : (void *)datarep_write_tramp,
        (void *)datarep_extent_tramp, d);
    free(name);
    if (rc == MPI_SUCCESS)
        ivcf_keep(d);
    else
        free(d);
    *ierror = rc;
}
ALIAS(mpi_register_datarep)

/* ---- MPI_Comm_spawn and MPI_Comm_spawn_multiple ----
 * Fortran passes argv as CHARACTER*(*) argv(*), ended by a blank entry, or MPI_ARGV_NULL;
 * spawn_multiple's array_of_argv(count, *) holds command i's arguments in row i (column
 * major: element (i, j) at (j * count + i) * len), or MPI_ARGVS_NULL. array_of_errcodes may
 * be MPI_ERRCODES_IGNORE. */
WEAK_C(int, MPI_Comm_spawn, (const char *, char **, int, MPI_Info, int, MPI_Comm, MPI_Comm *,
                             int *));
WEAK_C(int, MPI_Comm_spawn_multiple, (int, char **, char ***, const int *, const MPI_Info *, int,
                                      MPI_Comm, MPI_Comm *, int *));
extern MPI_Fint ivc_obj_f_errcodes_ignore_[];
extern char ivc_obj_f_argv_null_[], ivc_obj_f_argvs_null_[];

/* The NULL-terminated C argv of row `row` of a Fortran argv array with `rows` rows (1 for a
 * plain argv); NULL for no memory. Entries are freed by argv_free. */
static char **f_argv(const char *a, size_t len, int row, int rows)
{
    int n = 0;
    while (len > 0 && n < 4096) {
        const char *e = a + ((size_t)n * (size_t)rows + (size_t)row) * len;
        size_t k = len;
        while (k > 0 && e[k - 1] == ' ')
            k--;
        if (k == 0)
            break;
        n++;
    }
    char **v = calloc((size_t)n + 1, sizeof(char *));
    for (int j = 0; v != NULL && j < n; j++)
        v[j] = ivcf_cstr_trim(a + ((size_t)j * (size_t)rows + (size_t)row) * len, len);
    return v;
}

static void argv_free(char **v)
{
    for (int j = 0; v != NULL && v[j] != NULL; j++)
        free(v[j]);
    free(v);
}

void pmpi_comm_spawn_(char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                      MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
                      MPI_Fint *ierror, size_t command_len, size_t argv_len);
void pmpi_comm_spawn_(char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                      MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
                      MPI_Fint *ierror, size_t command_len, size_t argv_len)
{
    NOT_THERE(MPI_Comm_spawn, ierror);
    char *cmd = ivcf_cstr_trim(command, command_len);
    char **av = argv == ivc_obj_f_argv_null_ ? MPI_ARGV_NULL : f_argv(argv, argv_len, 0, 1);
    int *codes = errcodes == ivc_obj_f_errcodes_ignore_ ? MPI_ERRCODES_IGNORE : (int *)errcodes;
    MPI_Comm c = MPI_COMM_NULL;
    int rc = ivcf_MPI_Comm_spawn(cmd, av, *maxprocs, PMPI_Info_f2c(*info), *root,
                                 PMPI_Comm_f2c(*comm), &c, codes);
    if (rc == MPI_SUCCESS)
        *intercomm = PMPI_Comm_c2f(c);
    free(cmd);
    if (av != MPI_ARGV_NULL)
        argv_free(av);
    *ierror = rc;
}
ALIAS(mpi_comm_spawn)

void pmpi_comm_spawn_multiple_(MPI_Fint *count, char *commands, char *argvs, MPI_Fint *maxprocs,
                               MPI_Fint *infos, MPI_Fint *root, MPI_Fint *comm,
                               MPI_Fint *intercomm, MPI_Fint *errcodes, MPI_Fint *ierror,
                               size_t commands_len, size_t argvs_len);
void pmpi_comm_spawn_multiple_(MPI_Fint *count, char *commands, char *argvs, MPI_Fint *maxprocs,
                               MPI_Fint *infos, MPI_Fint *root, MPI_Fint *comm,
                               MPI_Fint *intercomm, MPI_Fint *errcodes, MPI_Fint *ierror,
                               size_t commands_len, size_t argvs_len)
{
    NOT_THERE(MPI_Comm_spawn_multiple, ierror);
    int n = *count > 0 ? *count : 0;
    char **cmds = calloc((size_t)n + 1, sizeof(char *));
    char ***avs = argvs == ivc_obj_f_argvs_null_ ? MPI_ARGVS_NULL
                                                 : calloc((size_t)n + 1, sizeof(char **));
    MPI_Info *in = calloc((size_t)n + 1, sizeof(MPI_Info));
    for (int i = 0; cmds != NULL && in != NULL && i < n; i++) {
        cmds[i] = ivcf_cstr_trim(commands + (size_t)i * commands_len, commands_len);
        if (avs != MPI_ARGVS_NULL && avs != NULL)
            avs[i] = f_argv(argvs, argvs_len, i, n);
        in[i] = PMPI_Info_f2c(infos[i]);
    }
    int *codes = errcodes == ivc_obj_f_errcodes_ignore_ ? MPI_ERRCODES_IGNORE : (int *)errcodes;
    MPI_Comm c = MPI_COMM_NULL;
    int rc = cmds == NULL || in == NULL || avs == NULL
                 ? MPI_ERR_NO_MEM
                 : ivcf_MPI_Comm_spawn_multiple(*count, cmds, avs, (const int *)maxprocs, in,
                                                *root, PMPI_Comm_f2c(*comm), &c, codes);
    if (rc == MPI_SUCCESS)
        *intercomm = PMPI_Comm_c2f(c);
    for (int i = 0; cmds != NULL && i < n; i++) {
        free(cmds[i]);
        if (avs != MPI_ARGVS_NULL && avs != NULL)
            argv_free(avs[i]);
    }
    free(cmds);
    if (avs != MPI_ARGVS_NULL)
        free(avs);
    free(in);
    *ierror = rc;
}
ALIAS(mpi_comm_spawn_multiple)
