/* The wrappers the API description cannot write (gen_mpich.py's HAND lists), for every ABI:
 * compiled once per ABI with that ABI's profile header (mpich/abi.h, std/abi.h; ABI_MPICH
 * marks what only MPICH's ABI has):
 * user functions IVC calls back (reduction operations, error handlers, attribute copy and
 * delete, generalized requests), attribute values whose meaning differs, the removed MPI-1
 * functions MPICH still exports, Fortran status conversions and the MPIX_ names.
 *
 * Callbacks. IVC calls a user function with IVC's handles and error codes; the program's
 * function expects MPICH's. Where IVC passes an extra_state (attribute keyvals, generalized
 * requests), one trampoline serves all: extra_state points at a record holding the user's
 * function and extra_state. Where it passes none (MPI_User_function, error handlers), each
 * user function gets a trampoline of its own from a fixed pool (generated/trampolines.h):
 * the trampoline's slot names the user function. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "abi.h"
#include "generated/ivcn.h"
#include "generated/trampolines.h"

/* The removed MPI-1 functions IVC keeps (mpi.h's IVC_MPI_REMOVED), renamed like the rest. */
extern __typeof__(PMPI_Address) IVCN_PMPI_Address;
extern __typeof__(PMPI_Type_extent) IVCN_PMPI_Type_extent;
extern __typeof__(PMPI_Type_lb) IVCN_PMPI_Type_lb;
extern __typeof__(PMPI_Type_ub) IVCN_PMPI_Type_ub;
extern __typeof__(PMPI_Type_hvector) IVCN_PMPI_Type_hvector;
extern __typeof__(PMPI_Type_hindexed) IVCN_PMPI_Type_hindexed;
extern __typeof__(PMPI_Type_struct) IVCN_PMPI_Type_struct;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- user reduction operations ---- */

static struct {
    void *fn;  /* abi_User_function or abi_User_function_c; NULL: free */
    MPI_Op op; /* IVC's op using this slot */
} op_slot[ABI_NTRAMP];

static void op_call(int i, void *in, void *inout, void *len, MPI_Datatype *dt)
{
    abi_Datatype d = (abi_Datatype)abi_find(ABI_K_DATATYPE, *dt);
    ((abi_User_function *)op_slot[i].fn)(in, inout, len, &d);
}
#define OP_DEF(i)                                                                                  \
    static void op_t##i(void *in, void *inout, int *len, MPI_Datatype *dt)                         \
    {                                                                                              \
        op_call(i, in, inout, len, dt);                                                            \
    }
ABI_TRAMPOLINES(OP_DEF)
#define OP_PTR(i) op_t##i,
static void (*const op_tramp[ABI_NTRAMP])(void *, void *, int *,
                                          MPI_Datatype *) = {ABI_TRAMPOLINES(OP_PTR)};

static int slot_take(void **fns, size_t stride, void *fn)
{
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < ABI_NTRAMP; i++) {
        void **p = (void **)((char *)fns + (size_t)i * stride);
        if (*p == NULL) {
            *p = fn;
            pthread_mutex_unlock(&pool_lock);
            return i;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    return -1;
}

static int op_create(void *fn, int commute, abi_Op *op, int big)
{
    if (IVCN_PMPI_Op_create == NULL)
        return abi_unsupported("MPI_Op_create", NULL);
    int i = slot_take(&op_slot[0].fn, sizeof(op_slot[0]), fn);
    if (i < 0)
        return abi_err_out(MPI_ERR_INTERN);
    MPI_Op op_i = NULL;
    int rc = big ? IVCN_PMPI_Op_create_c((MPI_User_function_c *)(void *)op_tramp[i], commute, &op_i)
                 : IVCN_PMPI_Op_create(op_tramp[i], commute, &op_i);
    if (rc != MPI_SUCCESS) {
        op_slot[i].fn = NULL;
        return abi_err_out(rc);
    }
    op_slot[i].op = op_i;
    *op = (abi_Op)abi_out(ABI_K_OP, op_i);
    return MPI_SUCCESS;
}

/* The _c form: IVC's MPI_Count and MPICH's are both 64-bit, so one trampoline serves. */
ABI_EXPORT(int, Op_create, (abi_User_function * user_fn, int commute, abi_Op *op))
int abi_POp_create(abi_User_function *user_fn, int commute, abi_Op *op)
{
    return op_create((void *)user_fn, commute, op, 0);
}
ABI_EXPORT(int, Op_create_c, (abi_User_function_c * user_fn, int commute, abi_Op *op))
int abi_POp_create_c(abi_User_function_c *user_fn, int commute, abi_Op *op)
{
    return op_create((void *)user_fn, commute, op, 1);
}

ABI_EXPORT(int, Op_free, (abi_Op * op))
int abi_POp_free(abi_Op *op)
{
    MPI_Op op_i = op ? abi_in(ABI_K_OP, *op) : NULL, before = op_i;
    int rc = IVCN_PMPI_Op_free(op ? &op_i : NULL);
    if (rc == MPI_SUCCESS && before != NULL) {
        pthread_mutex_lock(&pool_lock);
        for (int i = 0; i < ABI_NTRAMP; i++)
            if (op_slot[i].fn != NULL && op_slot[i].op == before) {
                op_slot[i].op = NULL;
                op_slot[i].fn = NULL;
            }
        pthread_mutex_unlock(&pool_lock);
    }
    if (op != NULL)
        *op = abi_inout_back(ABI_K_OP, *op, before, op_i);
    return abi_err_out(rc);
}

/* ---- error handlers ---- */

/* A file has no table (the profile's abi_file_out): its handler's kind. */
#define EH_FILE ABI_K_N

static struct {
    void *fn; /* the program's handler; NULL: free */
    int kind; /* ABI_K_COMM, ABI_K_WIN, ABI_K_SESSION or EH_FILE: the handle it receives */
} eh_slot[ABI_NTRAMP];

static void eh_call(int i, void **obj, int *code)
{
    if (eh_slot[i].kind == EH_FILE) {
        abi_File f = abi_file_out(*(MPI_File *)obj);
        int e = abi_err_out(*code);
        ((abi_File_errhandler_function *)eh_slot[i].fn)(&f, &e);
        return;
    }
    abi_h h = abi_find(eh_slot[i].kind, *obj);
    int e = abi_err_out(*code);
    ((void (*)(abi_h *, int *, ...))eh_slot[i].fn)(&h, &e);
}
#define EH_DEF(i)                                                                                  \
    static void eh_t##i(void **obj, int *code, ...)                                                \
    {                                                                                              \
        eh_call(i, obj, code);                                                                     \
    }
ABI_TRAMPOLINES(EH_DEF)
#define EH_PTR(i) eh_t##i,
static void (*const eh_tramp[ABI_NTRAMP])(void **, int *, ...) = {ABI_TRAMPOLINES(EH_PTR)};

static int eh_create(void *fn, int kind, abi_Errhandler *errhandler)
{
    int i = slot_take(&eh_slot[0].fn, sizeof(eh_slot[0]), fn);
    if (i < 0)
        return abi_err_out(MPI_ERR_INTERN);
    eh_slot[i].kind = kind;
    MPI_Errhandler eh = NULL;
    int rc;
    if (kind == ABI_K_WIN)
        rc = IVCN_PMPI_Win_create_errhandler((MPI_Win_errhandler_function *)(void *)eh_tramp[i],
                                             &eh);
    else if (kind == ABI_K_SESSION)
        rc = IVCN_PMPI_Session_create_errhandler(
            (MPI_Session_errhandler_function *)(void *)eh_tramp[i], &eh);
    else if (kind == EH_FILE)
        rc = IVCN_PMPI_File_create_errhandler((MPI_File_errhandler_function *)(void *)eh_tramp[i],
                                              &eh);
    else
        rc = IVCN_PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)(void *)eh_tramp[i],
                                              &eh);
    if (rc != MPI_SUCCESS) {
        eh_slot[i].fn = NULL;
        return abi_err_out(rc);
    }
    *errhandler = (abi_Errhandler)abi_out(ABI_K_ERRHANDLER, eh);
    return MPI_SUCCESS;
}

ABI_EXPORT(int, Comm_create_errhandler,
           (abi_Comm_errhandler_function * fn, abi_Errhandler *errhandler))
int abi_PComm_create_errhandler(abi_Comm_errhandler_function *fn, abi_Errhandler *errhandler)
{
    return eh_create((void *)fn, ABI_K_COMM, errhandler);
}
ABI_EXPORT(int, Errhandler_create, (abi_Comm_errhandler_function * fn, abi_Errhandler *errhandler))
int abi_PErrhandler_create(abi_Comm_errhandler_function *fn, abi_Errhandler *errhandler)
{
    return eh_create((void *)fn, ABI_K_COMM, errhandler);
}
ABI_EXPORT(int, Win_create_errhandler,
           (abi_Win_errhandler_function * fn, abi_Errhandler *errhandler))
int abi_PWin_create_errhandler(abi_Win_errhandler_function *fn, abi_Errhandler *errhandler)
{
    return eh_create((void *)fn, ABI_K_WIN, errhandler);
}
ABI_EXPORT(int, Session_create_errhandler,
           (abi_Session_errhandler_function * fn, abi_Errhandler *errhandler))
int abi_PSession_create_errhandler(abi_Session_errhandler_function *fn, abi_Errhandler *errhandler)
{
    return eh_create((void *)fn, ABI_K_SESSION, errhandler);
}
ABI_EXPORT(int, File_create_errhandler,
           (abi_File_errhandler_function * fn, abi_Errhandler *errhandler))
int abi_PFile_create_errhandler(abi_File_errhandler_function *fn, abi_Errhandler *errhandler)
{
    return eh_create((void *)fn, EH_FILE, errhandler);
}

ABI_EXPORT(int, Errhandler_set, (abi_Comm comm, abi_Errhandler errhandler))
int abi_PErrhandler_set(abi_Comm comm, abi_Errhandler errhandler)
{
    return abi_err_out(IVCN_PMPI_Comm_set_errhandler(abi_in(ABI_K_COMM, comm),
                                                     abi_in(ABI_K_ERRHANDLER, errhandler)));
}
ABI_EXPORT(int, Errhandler_get, (abi_Comm comm, abi_Errhandler *errhandler))
int abi_PErrhandler_get(abi_Comm comm, abi_Errhandler *errhandler)
{
    MPI_Errhandler eh = NULL;
    int rc = IVCN_PMPI_Comm_get_errhandler(abi_in(ABI_K_COMM, comm), &eh);
    if (rc == MPI_SUCCESS)
        *errhandler = (abi_Errhandler)abi_out(ABI_K_ERRHANDLER, eh);
    return abi_err_out(rc);
}

/* ---- data representations: extra_state carries the program's functions ---- */

typedef struct {
    void *read, *write;                   /* the program's; NULL: MPI_CONVERSION_FN_NULL */
    abi_Datarep_extent_function *extent;
    void *extra;
} rep_t;

static int rep_convert(void *fn, void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf,
                       MPI_Offset pos, void *extra, int big)
{
    rep_t *r = extra;
    abi_Datatype d = (abi_Datatype)abi_find(ABI_K_DATATYPE, dt);
    int rc = big ? ((abi_Datarep_conversion_function_c *)fn)(userbuf, d, count, filebuf, pos,
                                                             r->extra)
                 : ((abi_Datarep_conversion_function *)fn)(userbuf, d, (int)count, filebuf, pos,
                                                           r->extra);
    return rc == 0 ? MPI_SUCCESS : abi_err_in(rc);
}
static int rep_read(void *u, MPI_Datatype dt, int n, void *f, MPI_Offset pos, void *extra)
{
    return rep_convert(((rep_t *)extra)->read, u, dt, n, f, pos, extra, 0);
}
static int rep_write(void *u, MPI_Datatype dt, int n, void *f, MPI_Offset pos, void *extra)
{
    return rep_convert(((rep_t *)extra)->write, u, dt, n, f, pos, extra, 0);
}
static int rep_read_c(void *u, MPI_Datatype dt, MPI_Count n, void *f, MPI_Offset pos, void *extra)
{
    return rep_convert(((rep_t *)extra)->read, u, dt, n, f, pos, extra, 1);
}
static int rep_write_c(void *u, MPI_Datatype dt, MPI_Count n, void *f, MPI_Offset pos, void *extra)
{
    return rep_convert(((rep_t *)extra)->write, u, dt, n, f, pos, extra, 1);
}
static int rep_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    rep_t *r = extra;
    abi_Aint e = 0;
    int rc = r->extent((abi_Datatype)abi_find(ABI_K_DATATYPE, dt), &e, r->extra);
    *extent = (MPI_Aint)e;
    return rc == 0 ? MPI_SUCCESS : abi_err_in(rc);
}

/* The record lives as long as the program: a representation cannot be unregistered. */
static int rep_register(const char *datarep, void *rd, void *wr,
                        abi_Datarep_extent_function *ext, void *extra, int big)
{
    rep_t *r = malloc(sizeof(*r));
    if (r == NULL)
        return abi_err_out(MPI_ERR_NO_MEM);
    *r = (rep_t){rd, wr, ext, extra};
    /* No extent function: IVC rejects the call (MPI_ERR_ARG), so pass none. */
    MPI_Datarep_extent_function *e = ext != NULL ? rep_extent : NULL;
    int rc = big ? IVCN_PMPI_Register_datarep_c(datarep, rd ? rep_read_c : NULL,
                                                wr ? rep_write_c : NULL, e, r)
                 : IVCN_PMPI_Register_datarep(datarep, rd ? rep_read : NULL, wr ? rep_write : NULL,
                                              e, r);
    if (rc != MPI_SUCCESS)
        free(r);
    return abi_err_out(rc);
}

ABI_EXPORT(int, Register_datarep,
           (const char *datarep, abi_Datarep_conversion_function *read_conversion_fn,
            abi_Datarep_conversion_function *write_conversion_fn,
            abi_Datarep_extent_function *dtype_file_extent_fn, void *extra_state))
int abi_PRegister_datarep(const char *datarep, abi_Datarep_conversion_function *read_conversion_fn,
                          abi_Datarep_conversion_function *write_conversion_fn,
                          abi_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return rep_register(datarep, (void *)read_conversion_fn, (void *)write_conversion_fn,
                        dtype_file_extent_fn, extra_state, 0);
}
ABI_EXPORT(int, Register_datarep_c,
           (const char *datarep, abi_Datarep_conversion_function_c *read_conversion_fn,
            abi_Datarep_conversion_function_c *write_conversion_fn,
            abi_Datarep_extent_function *dtype_file_extent_fn, void *extra_state))
int abi_PRegister_datarep_c(const char *datarep,
                            abi_Datarep_conversion_function_c *read_conversion_fn,
                            abi_Datarep_conversion_function_c *write_conversion_fn,
                            abi_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return rep_register(datarep, (void *)read_conversion_fn, (void *)write_conversion_fn,
                        dtype_file_extent_fn, extra_state, 1);
}

/* ---- attribute keyvals: extra_state carries the program's functions ---- */

typedef struct {
    void *copy, *del; /* the program's; NULL is MPICH's MPI_NULL_COPY_FN / NULL_DELETE_FN */
    void *extra;
    int kind;
} kv_t;

static int kv_copy(void *obj, int keyval, void *extra, void *in, void *out, int *flag)
{
    kv_t *k = extra;
    if (k->copy == NULL) {
        *flag = 0;
        return MPI_SUCCESS;
    }
#ifdef ABI_DUP_FN
    if (k->copy == ABI_DUP_FN) { /* the ABI's MPI_COMM_DUP_FN & co. are a constant */
        *(void **)out = in;
        *flag = 1;
        return MPI_SUCCESS;
    }
#endif
    abi_h h = abi_find(k->kind, obj);
    int rc = ((abi_Comm_copy_attr_function *)k->copy)((abi_Comm)h, abi_keyval_out(keyval), k->extra,
                                                      in, out, flag);
    return rc == 0 ? MPI_SUCCESS : abi_err_in(rc);
}

static int kv_delete(void *obj, int keyval, void *val, void *extra)
{
    kv_t *k = extra;
    if (k->del == NULL)
        return MPI_SUCCESS;
    abi_h h = abi_find(k->kind, obj);
    int rc = ((abi_Comm_delete_attr_function *)k->del)((abi_Comm)h, abi_keyval_out(keyval), val,
                                                       k->extra);
    return rc == 0 ? MPI_SUCCESS : abi_err_in(rc);
}

/* The record lives as long as the program: IVC may call the functions after the keyval is
 * freed (attributes still attached), and keyvals are few. */
static int kv_create(void *copy, void *del, int *keyval, void *extra, int kind)
{
    kv_t *k = malloc(sizeof(*k));
    if (k == NULL)
        return abi_err_out(MPI_ERR_NO_MEM);
    *k = (kv_t){copy, del, extra, kind};
    int kv = MPI_KEYVAL_INVALID, rc;
    if (kind == ABI_K_DATATYPE)
        rc = IVCN_PMPI_Type_create_keyval((MPI_Type_copy_attr_function *)(void *)kv_copy,
                                          (MPI_Type_delete_attr_function *)(void *)kv_delete, &kv,
                                          k);
    else if (kind == ABI_K_WIN)
        rc = IVCN_PMPI_Win_create_keyval((MPI_Win_copy_attr_function *)(void *)kv_copy,
                                         (MPI_Win_delete_attr_function *)(void *)kv_delete, &kv, k);
    else
        rc = IVCN_PMPI_Comm_create_keyval((MPI_Comm_copy_attr_function *)(void *)kv_copy,
                                          (MPI_Comm_delete_attr_function *)(void *)kv_delete, &kv,
                                          k);
    if (rc != MPI_SUCCESS) {
        free(k);
        return abi_err_out(rc);
    }
    if (keyval != NULL)
        *keyval = abi_keyval_out(kv);
    return MPI_SUCCESS;
}

ABI_EXPORT(int, Comm_create_keyval,
           (abi_Comm_copy_attr_function * copy, abi_Comm_delete_attr_function *del, int *keyval,
            void *extra_state))
int abi_PComm_create_keyval(abi_Comm_copy_attr_function *copy, abi_Comm_delete_attr_function *del,
                            int *keyval, void *extra_state)
{
    return kv_create((void *)copy, (void *)del, keyval, extra_state, ABI_K_COMM);
}
ABI_EXPORT(int, Keyval_create,
           (abi_Copy_function * copy, abi_Delete_function *del, int *keyval, void *extra_state))
int abi_PKeyval_create(abi_Copy_function *copy, abi_Delete_function *del, int *keyval,
                       void *extra_state)
{
    return kv_create((void *)copy, (void *)del, keyval, extra_state, ABI_K_COMM);
}
ABI_EXPORT(int, Type_create_keyval,
           (abi_Type_copy_attr_function * copy, abi_Type_delete_attr_function *del, int *keyval,
            void *extra_state))
int abi_PType_create_keyval(abi_Type_copy_attr_function *copy, abi_Type_delete_attr_function *del,
                            int *keyval, void *extra_state)
{
    return kv_create((void *)copy, (void *)del, keyval, extra_state, ABI_K_DATATYPE);
}
ABI_EXPORT(int, Win_create_keyval,
           (abi_Win_copy_attr_function * copy, abi_Win_delete_attr_function *del, int *keyval,
            void *extra_state))
int abi_PWin_create_keyval(abi_Win_copy_attr_function *copy, abi_Win_delete_attr_function *del,
                           int *keyval, void *extra_state)
{
    return kv_create((void *)copy, (void *)del, keyval, extra_state, ABI_K_WIN);
}

#ifdef ABI_MPICH
/* MPICH's MPI_DUP_FN / MPI_COMM_DUP_FN / MPI_TYPE_DUP_FN / MPI_WIN_DUP_FN: its header
 * names this function; kv_copy calls it like any copy function. */
int MPIR_Dup_fn(abi_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
    __attribute__((visibility("default")));
int MPIR_Dup_fn(abi_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return 0;
}
#endif

/* Predefined attributes whose values are MPI constants that differ: MPI_HOST (a rank or
 * MPI_PROC_NULL) and MPI_LASTUSEDCODE (an error code). The value a C program gets is a
 * pointer to an int; these ints live here, one per thread would be overkill: the values
 * never change after MPI_Init. */
static int attr_host, attr_lastused;

static int get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    int k = abi_keyval_in(keyval);
    int rc = IVCN_PMPI_Comm_get_attr(comm, k, attribute_val, flag);
    if (rc == MPI_SUCCESS && flag != NULL && *flag && attribute_val != NULL) {
        int **v = attribute_val;
        if (k == MPI_HOST) {
            attr_host = abi_rank_out(**v);
            *v = &attr_host;
        } else if (k == MPI_LASTUSEDCODE) {
            attr_lastused = abi_err_out(**v);
            *v = &attr_lastused;
        }
    }
    return abi_err_out(rc);
}

ABI_EXPORT(int, Comm_get_attr, (abi_Comm comm, int keyval, void *attribute_val, int *flag))
int abi_PComm_get_attr(abi_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return get_attr(abi_in(ABI_K_COMM, comm), keyval, attribute_val, flag);
}
ABI_EXPORT(int, Attr_get, (abi_Comm comm, int keyval, void *attribute_val, int *flag))
int abi_PAttr_get(abi_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return get_attr(abi_in(ABI_K_COMM, comm), keyval, attribute_val, flag);
}

/* ---- generalized requests ---- */

typedef struct {
    abi_Grequest_query_function *query;
    abi_Grequest_free_function *free_fn;
    abi_Grequest_cancel_function *cancel;
    void *extra;
} gr_t;

static int gr_query(void *extra, MPI_Status *status)
{
    gr_t *g = extra;
    abi_Status st;
    abi_status_out(status, &st);
    int rc = g->query(g->extra, &st);
    abi_status_in(&st, status);
    return rc == 0 ? MPI_SUCCESS : abi_err_in(rc);
}

static int gr_free(void *extra)
{
    gr_t *g = extra;
    int rc = g->free_fn(g->extra);
    free(g);
    return rc == 0 ? MPI_SUCCESS : abi_err_in(rc);
}

static int gr_cancel(void *extra, int complete)
{
    gr_t *g = extra;
    int rc = g->cancel(g->extra, complete);
    return rc == 0 ? MPI_SUCCESS : abi_err_in(rc);
}

ABI_EXPORT(int, Grequest_start,
           (abi_Grequest_query_function * query_fn, abi_Grequest_free_function *free_fn,
            abi_Grequest_cancel_function *cancel_fn, void *extra_state, abi_Request *request))
int abi_PGrequest_start(abi_Grequest_query_function *query_fn, abi_Grequest_free_function *free_fn,
                        abi_Grequest_cancel_function *cancel_fn, void *extra_state,
                        abi_Request *request)
{
    gr_t *g = malloc(sizeof(*g));
    if (g == NULL)
        return abi_err_out(MPI_ERR_NO_MEM);
    *g = (gr_t){query_fn, free_fn, cancel_fn, extra_state};
    MPI_Request r = NULL;
    int rc = IVCN_PMPI_Grequest_start(gr_query, gr_free, gr_cancel, g, &r);
    if (rc != MPI_SUCCESS) {
        free(g);
        return abi_err_out(rc);
    }
    *request = (abi_Request)abi_out(ABI_K_REQUEST, r);
    return MPI_SUCCESS;
}

/* ---- buffers of another size, varargs ---- */

ABI_EXPORT(int, Get_processor_name, (char *name, int *resultlen))
int abi_PGet_processor_name(char *name, int *resultlen)
{
    char buf[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    int rc = IVCN_PMPI_Get_processor_name(buf, &len);
    if (rc == MPI_SUCCESS) {
        if (len > ABI_MAX_PROCESSOR_NAME - 1)
            len = ABI_MAX_PROCESSOR_NAME - 1; /* MPICH programs size the buffer at 128 */
        memcpy(name, buf, (size_t)len);
        name[len] = '\0';
        *resultlen = len;
    }
    return abi_err_out(rc);
}

ABI_EXPORT(int, Pcontrol, (const int level, ...))
int abi_PPcontrol(const int level, ...)
{
    return abi_err_out(IVCN_PMPI_Pcontrol(level));
}

/* ---- Fortran statuses: MPICH's INTEGER status is its C status, int for int ---- */

static int status_copy(const void *from, void *to)
{
    if (from == NULL || to == NULL)
        return abi_err_out(MPI_ERR_ARG);
    memcpy(to, from, sizeof(abi_Status));
    return MPI_SUCCESS;
}
ABI_EXPORT(int, Status_c2f, (const abi_Status *c_status, abi_Fint *f_status))
int abi_PStatus_c2f(const abi_Status *c_status, abi_Fint *f_status)
{
    return status_copy(c_status, f_status);
}
ABI_EXPORT(int, Status_f2c, (const abi_Fint *f_status, abi_Status *c_status))
int abi_PStatus_f2c(const abi_Fint *f_status, abi_Status *c_status)
{
    return status_copy(f_status, c_status);
}
ABI_EXPORT(int, Status_c2f08, (const abi_Status *c_status, abi_F08_status *f08_status))
int abi_PStatus_c2f08(const abi_Status *c_status, abi_F08_status *f08_status)
{
    return status_copy(c_status, f08_status);
}
ABI_EXPORT(int, Status_f082c, (const abi_F08_status *f08_status, abi_Status *c_status))
int abi_PStatus_f082c(const abi_F08_status *f08_status, abi_Status *c_status)
{
    return status_copy(f08_status, c_status);
}
ABI_EXPORT(int, Status_f2f08, (const abi_Fint *f_status, abi_F08_status *f08_status))
int abi_PStatus_f2f08(const abi_Fint *f_status, abi_F08_status *f08_status)
{
    return status_copy(f_status, f08_status);
}
ABI_EXPORT(int, Status_f082f, (const abi_F08_status *f08_status, abi_Fint *f_status))
int abi_PStatus_f082f(const abi_F08_status *f08_status, abi_Fint *f_status)
{
    return status_copy(f08_status, f_status);
}

#ifdef ABI_MPICH
/* ---- the MPI-1 functions removed in MPI-3.0 that MPICH still exports ---- */

ABI_EXPORT(int, Address, (void *location, abi_Aint *address))
int abi_PAddress(void *location, abi_Aint *address)
{
    return abi_err_out(IVCN_PMPI_Address(location, address));
}
ABI_EXPORT(int, Type_extent, (abi_Datatype datatype, abi_Aint *extent))
int abi_PType_extent(abi_Datatype datatype, abi_Aint *extent)
{
    return abi_err_out(IVCN_PMPI_Type_extent(abi_in(ABI_K_DATATYPE, datatype), extent));
}
ABI_EXPORT(int, Type_lb, (abi_Datatype datatype, abi_Aint *displacement))
int abi_PType_lb(abi_Datatype datatype, abi_Aint *displacement)
{
    return abi_err_out(IVCN_PMPI_Type_lb(abi_in(ABI_K_DATATYPE, datatype), displacement));
}
ABI_EXPORT(int, Type_ub, (abi_Datatype datatype, abi_Aint *displacement))
int abi_PType_ub(abi_Datatype datatype, abi_Aint *displacement)
{
    return abi_err_out(IVCN_PMPI_Type_ub(abi_in(ABI_K_DATATYPE, datatype), displacement));
}
ABI_EXPORT(int, Type_hvector,
           (int count, int blocklength, abi_Aint stride, abi_Datatype oldtype,
            abi_Datatype *newtype))
int abi_PType_hvector(int count, int blocklength, abi_Aint stride, abi_Datatype oldtype,
                      abi_Datatype *newtype)
{
    MPI_Datatype t = NULL;
    int rc =
        IVCN_PMPI_Type_hvector(count, blocklength, stride, abi_in(ABI_K_DATATYPE, oldtype), &t);
    if (rc == MPI_SUCCESS)
        *newtype = abi_out(ABI_K_DATATYPE, t);
    return abi_err_out(rc);
}
ABI_EXPORT(int, Type_hindexed,
           (int count, int blocklengths[], abi_Aint displacements[], abi_Datatype oldtype,
            abi_Datatype *newtype))
int abi_PType_hindexed(int count, int blocklengths[], abi_Aint displacements[],
                       abi_Datatype oldtype, abi_Datatype *newtype)
{
    MPI_Datatype t = NULL;
    int rc = IVCN_PMPI_Type_hindexed(count, blocklengths, displacements,
                                     abi_in(ABI_K_DATATYPE, oldtype), &t);
    if (rc == MPI_SUCCESS)
        *newtype = abi_out(ABI_K_DATATYPE, t);
    return abi_err_out(rc);
}
ABI_EXPORT(int, Type_struct,
           (int count, int blocklengths[], abi_Aint displacements[], abi_Datatype types[],
            abi_Datatype *newtype))
int abi_PType_struct(int count, int blocklengths[], abi_Aint displacements[], abi_Datatype types[],
                     abi_Datatype *newtype)
{
    MPI_Datatype s[ABI_STACK_N], *ti = abi_scratch(count > 0 ? (size_t)count : 0, sizeof(*ti), s);
    for (int k = 0; k < count; k++)
        ti[k] = abi_in(ABI_K_DATATYPE, types[k]);
    MPI_Datatype t = NULL;
    int rc = IVCN_PMPI_Type_struct(count, blocklengths, displacements, ti, &t);
    abi_scratch_free(ti, s);
    if (rc == MPI_SUCCESS)
        *newtype = abi_out(ABI_K_DATATYPE, t);
    return abi_err_out(rc);
}

/* ---- MPIX_ names of MPICH: fault tolerance maps to IVC's ULFM (mpi-ext.h) ---- */

#define ABI_EXPORT_X(ret, name, params)                                                            \
    ret abi_PX##name params __asm__("PMPIX_" #name) __attribute__((visibility("default")));        \
    ret abi_MX##name params __asm__("MPIX_" #name) __attribute__((weak, alias("PMPIX_" #name)));

ABI_EXPORT_X(int, Comm_revoke, (abi_Comm comm))
int abi_PXComm_revoke(abi_Comm comm)
{
    return abi_err_out(IVCN_PMPIX_Comm_revoke(abi_in(ABI_K_COMM, comm)));
}
ABI_EXPORT_X(int, Comm_shrink, (abi_Comm comm, abi_Comm *newcomm))
int abi_PXComm_shrink(abi_Comm comm, abi_Comm *newcomm)
{
    MPI_Comm c = NULL;
    int rc = IVCN_PMPIX_Comm_shrink(abi_in(ABI_K_COMM, comm), &c);
    if (rc == MPI_SUCCESS)
        *newcomm = abi_out(ABI_K_COMM, c);
    return abi_err_out(rc);
}
ABI_EXPORT_X(int, Comm_agree, (abi_Comm comm, int *flag))
int abi_PXComm_agree(abi_Comm comm, int *flag)
{
    return abi_err_out(IVCN_PMPIX_Comm_agree(abi_in(ABI_K_COMM, comm), flag));
}
ABI_EXPORT_X(int, Comm_failure_ack, (abi_Comm comm))
int abi_PXComm_failure_ack(abi_Comm comm)
{
    return abi_err_out(IVCN_PMPIX_Comm_failure_ack(abi_in(ABI_K_COMM, comm)));
}
ABI_EXPORT_X(int, Comm_failure_get_acked, (abi_Comm comm, abi_Group *failedgrp))
int abi_PXComm_failure_get_acked(abi_Comm comm, abi_Group *failedgrp)
{
    MPI_Group g = NULL;
    int rc = IVCN_PMPIX_Comm_failure_get_acked(abi_in(ABI_K_COMM, comm), &g);
    if (rc == MPI_SUCCESS)
        *failedgrp = abi_out(ABI_K_GROUP, g);
    return abi_err_out(rc);
}
/* No GPU memory: MPICH's queries answer 0 (not supported). */
ABI_EXPORT_X(int, Query_cuda_support, (void))
int abi_PXQuery_cuda_support(void)
{
    return 0;
}
ABI_EXPORT_X(int, Query_hip_support, (void))
int abi_PXQuery_hip_support(void)
{
    return 0;
}
ABI_EXPORT_X(int, Query_ze_support, (void))
int abi_PXQuery_ze_support(void)
{
    return 0;
}
ABI_EXPORT_X(int, GPU_query_support, (int gpu_type, int *is_supported))
int abi_PXGPU_query_support(int gpu_type, int *is_supported)
{
    (void)gpu_type;
    *is_supported = 0;
    return MPI_SUCCESS;
}

#endif /* ABI_MPICH */

#ifdef ABI_MPICH
/* ---- entry points of MPICH's own Fortran library ----
 * A program built with mpif90.mpich needs libmpichfort.so.12 (Debian's libmpich12 package),
 * whose wrappers call the C functions of this library by their MPICH names, and these
 * internal ones for Fortran attributes, Fortran attribute callbacks and Fortran generalized
 * requests. Their semantics are MPICH's internals, not in its header: they answer
 * MPI_ERR_UNSUPPORTED_OPERATION (void ones do nothing), so that such a program loads and
 * everything else in it works; the README lists what does not. */
#define ABI_MPII_STUB(name)                                                                        \
    int name(void) __attribute__((visibility("default")));                                         \
    int name(void)                                                                                 \
    {                                                                                              \
        return abi_err_out(MPI_ERR_UNSUPPORTED_OPERATION);                                         \
    }
ABI_MPII_STUB(MPII_Comm_get_attr)
ABI_MPII_STUB(MPII_Comm_set_attr)
ABI_MPII_STUB(MPII_Type_get_attr)
ABI_MPII_STUB(MPII_Type_set_attr)
ABI_MPII_STUB(MPII_Win_get_attr)
ABI_MPII_STUB(MPII_Win_set_attr)
ABI_MPII_STUB(MPII_Keyval_set_proxy)
ABI_MPII_STUB(MPII_Grequest_set_lang_f77)
#endif /* ABI_MPICH */
