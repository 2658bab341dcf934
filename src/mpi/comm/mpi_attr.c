/* Attribute caching on communicators, datatypes and windows (keyvals with copy and delete
 * callbacks), the MPI-1 forms (Keyval_create, Attr_put ...), and datatype names. The
 * predefined keys stay with their objects (MPI_TAG_UB ... in mpi_comm.c, MPI_WIN_BASE ...
 * in rma/mpi_win.c); user keyvals live here.
 *
 * A keyval is an index into one table for all three kinds, offset by KEYVAL_BASE so that it
 * never collides with a predefined key or MPI_KEYVAL_INVALID; each remembers its kind, and
 * a keyval of another kind is MPI_ERR_KEYVAL. A freed keyval stays in the table until the
 * last attribute that uses it is deleted (the standard lets such attributes live on).
 * Every object keeps its attributes in a list (comm->attrs, dt->attrs, win->attrs). */
#include "mpi_impl.h"

#include "rma/rma_impl.h"

#include <stdlib.h>
#include <string.h>

#define KEYVAL_BASE 0x10000

enum { KV_COMM = 1, KV_TYPE, KV_WIN };

static const char *const kind_name[] = {"", "communicator", "datatype", "window"};

typedef struct keyval {
    int used;
    int freed; /* the user freed the handle; the slot waits for refs to reach 0 */
    int refs;  /* the user's handle plus attributes set with it */
    int kind;  /* KV_COMM, KV_TYPE, KV_WIN */
    union {
        MPI_Comm_copy_attr_function *comm;
        MPI_Type_copy_attr_function *type;
        MPI_Win_copy_attr_function *win;
    } copy;
    union {
        MPI_Comm_delete_attr_function *comm;
        MPI_Type_delete_attr_function *type;
        MPI_Win_delete_attr_function *win;
    } del;
    void *extra;
    int fortran; /* the callbacks are Fortran's (their glue's trampolines): they take and
                  * give attribute values, not C's pointers */
} keyval_t;

/* Language interoperability (MPI-4.1 section 19.3.7): an attribute set from C holds the
 * caller's pointer; one set from Fortran holds the INTEGER(KIND=MPI_ADDRESS_KIND) value
 * (ATTR_AINT) or the INTEGER of MPI_ATTR_PUT (ATTR_FINT) in `f`, and C's get returns the
 * address of that storage, as the standard requires; Fortran's get returns the value of a
 * Fortran attribute and the pointer (as an integer) of a C one. */
enum { ATTR_C, ATTR_AINT, ATTR_FINT };

struct ivc_mpi_attr {
    struct ivc_mpi_attr *next;
    int keyval;
    int lang;  /* ATTR_C, ATTR_AINT, ATTR_FINT */
    void *val; /* ATTR_C: the caller's pointer; otherwise &f */
    union {
        MPI_Aint a;
        MPI_Fint i;
    } f;
};

/* The object an attribute list belongs to, for the callbacks. */
typedef struct obj {
    int kind;
    void *h; /* MPI_Comm, MPI_Datatype or MPI_Win */
    struct ivc_mpi_attr **list;
} obj_t;

static keyval_t *keyvals;
static int nkeyvals;

/* ---- predefined callbacks ---- */

int MPI_COMM_NULL_COPY_FN(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_COMM_DUP_FN(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_COMM_NULL_DELETE_FN(MPI_Comm c, int k, void *val, void *extra)
{
    return MPI_SUCCESS;
}

int MPI_NULL_COPY_FN(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_DUP_FN(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_NULL_DELETE_FN(MPI_Comm c, int k, void *val, void *extra)
{
    return MPI_SUCCESS;
}

int MPI_TYPE_NULL_COPY_FN(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_TYPE_DUP_FN(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype t, int k, void *val, void *extra)
{
    return MPI_SUCCESS;
}

int MPI_WIN_NULL_COPY_FN(MPI_Win w, int k, void *extra, void *in, void *out, int *flag)
{
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_WIN_DUP_FN(MPI_Win w, int k, void *extra, void *in, void *out, int *flag)
{
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_WIN_NULL_DELETE_FN(MPI_Win w, int k, void *val, void *extra)
{
    return MPI_SUCCESS;
}

/* ---- keyvals ---- */

/* The live keyval `keyval` of `kind` (0: any kind), or NULL. */
static keyval_t *keyval_get(int keyval, int kind)
{
    int i = keyval - KEYVAL_BASE;
    if (i < 0 || i >= nkeyvals || !keyvals[i].used || (kind && keyvals[i].kind != kind))
        return NULL;
    return &keyvals[i];
}

static void keyval_unref(int keyval)
{
    keyval_t *k = keyval_get(keyval, 0);
    if (k != NULL && --k->refs == 0)
        memset(k, 0, sizeof(*k));
}

/* Returns MPI_SUCCESS with *out set, or raises. */
static int keyval_new(const keyval_t *proto, int *out, const char *fn)
{
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (out == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL keyval");
    int i = 0;
    while (i < nkeyvals && keyvals[i].used)
        i++;
    if (i == nkeyvals) {
        int n = nkeyvals ? nkeyvals * 2 : 16;
        keyval_t *t = realloc(keyvals, (size_t)n * sizeof(*t));
        if (t == NULL)
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
        memset(t + nkeyvals, 0, (size_t)(n - nkeyvals) * sizeof(*t));
        keyvals = t;
        nkeyvals = n;
    }
    keyvals[i] = *proto;
    keyvals[i].used = 1;
    keyvals[i].freed = 0;
    keyvals[i].refs = 1;
    *out = KEYVAL_BASE + i;
    return MPI_SUCCESS;
}

static int keyval_free(int *keyval, int kind, const char *fn)
{
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    CHECK_NULL_ARG(MPI_COMM_WORLD, keyval, fn, "keyval pointer");
    keyval_t *k = keyval_get(*keyval, kind);
    if (k == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_KEYVAL, fn, "invalid %s keyval",
                             kind_name[kind]);
    /* A second free through a copy of the handle (or from a delete callback, a common
     * idiom) while attributes still hold the keyval is let through: the keyval is already
     * on its way out, and MPICH accepts it too. Once the last attribute is gone the handle
     * is invalid again. */
    if (!k->freed) {
        k->freed = 1;
        keyval_unref(*keyval);
    }
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                            MPI_Comm_delete_attr_function *delete_fn, int *comm_keyval,
                            void *extra_state)
{
    keyval_t k = {.kind = KV_COMM, .copy.comm = copy_fn, .del.comm = delete_fn,
                  .extra = extra_state};
    return keyval_new(&k, comm_keyval, "MPI_Comm_create_keyval");
}
IVC_MPI_WEAK(Comm_create_keyval)

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return keyval_free(comm_keyval, KV_COMM, "MPI_Comm_free_keyval");
}
IVC_MPI_WEAK(Comm_free_keyval)

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn,
                            MPI_Type_delete_attr_function *delete_fn, int *type_keyval,
                            void *extra_state)
{
    keyval_t k = {.kind = KV_TYPE, .copy.type = copy_fn, .del.type = delete_fn,
                  .extra = extra_state};
    return keyval_new(&k, type_keyval, "MPI_Type_create_keyval");
}
IVC_MPI_WEAK(Type_create_keyval)

int PMPI_Type_free_keyval(int *type_keyval)
{
    return keyval_free(type_keyval, KV_TYPE, "MPI_Type_free_keyval");
}
IVC_MPI_WEAK(Type_free_keyval)

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn,
                           MPI_Win_delete_attr_function *delete_fn, int *win_keyval,
                           void *extra_state)
{
    keyval_t k = {.kind = KV_WIN, .copy.win = copy_fn, .del.win = delete_fn,
                  .extra = extra_state};
    return keyval_new(&k, win_keyval, "MPI_Win_create_keyval");
}
IVC_MPI_WEAK(Win_create_keyval)

int PMPI_Win_free_keyval(int *win_keyval)
{
    return keyval_free(win_keyval, KV_WIN, "MPI_Win_free_keyval");
}
IVC_MPI_WEAK(Win_free_keyval)

/* ---- attribute lists ---- */

static struct ivc_mpi_attr **attr_find(struct ivc_mpi_attr **list, int keyval)
{
    struct ivc_mpi_attr **p = list;
    while (*p != NULL && (*p)->keyval != keyval)
        p = &(*p)->next;
    return p;
}

/* Runs the delete callback of *p and unlinks it. Returns the callback's result; the
 * attribute stays when the callback fails (the standard's rule for *_delete_attr). */
/* The value a callback of k is given for a: Fortran's callbacks take the Fortran value
 * (a C attribute's pointer as an integer), C's the attribute as C's get returns it. */
static void *attr_arg(const keyval_t *k, const struct ivc_mpi_attr *a)
{
    if (!k->fortran || a->lang == ATTR_C)
        return a->val;
    return (void *)(a->lang == ATTR_FINT ? (MPI_Aint)a->f.i : a->f.a);
}

static int attr_remove(const obj_t *o, struct ivc_mpi_attr **p)
{
    struct ivc_mpi_attr *a = *p;
    keyval_t *k = keyval_get(a->keyval, o->kind);
    int rc = MPI_SUCCESS;
    if (k != NULL && k->del.comm != NULL) {
        void *v = attr_arg(k, a);
        switch (o->kind) {
        case KV_COMM: rc = k->del.comm(o->h, a->keyval, v, k->extra); break;
        case KV_TYPE: rc = k->del.type(o->h, a->keyval, v, k->extra); break;
        case KV_WIN: rc = k->del.win(o->h, a->keyval, v, k->extra); break;
        }
        if (rc != MPI_SUCCESS)
            return rc;
    }
    *p = a->next;
    keyval_unref(a->keyval);
    free(a);
    return MPI_SUCCESS;
}

/* Sets keyval's attribute on o: a C pointer (lang ATTR_C) or a Fortran value. */
static int attr_set_lang(const obj_t *o, int keyval, void *val, int lang)
{
    struct ivc_mpi_attr **p = attr_find(o->list, keyval);
    if (*p != NULL) {
        int rc = attr_remove(o, p);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    struct ivc_mpi_attr *a = malloc(sizeof(*a));
    if (a == NULL)
        return MPI_ERR_NO_MEM;
    a->keyval = keyval;
    a->lang = lang;
    a->val = val;
    if (lang == ATTR_AINT) {
        a->f.a = (MPI_Aint)val;
        a->val = &a->f;
    } else if (lang == ATTR_FINT) {
        a->f.i = (MPI_Fint)(MPI_Aint)val;
        a->val = &a->f;
    }
    a->next = *o->list;
    *o->list = a;
    keyval_get(keyval, 0)->refs++;
    return MPI_SUCCESS;
}

static int attr_set(const obj_t *o, int keyval, void *val)
{
    return attr_set_lang(o, keyval, val, ATTR_C);
}

/* Copies the attributes of `from` whose copy callback says so onto `to` (same kind). The
 * list is newest-first; copying in that order and prepending reverses it, which no caller
 * can observe. */
static int attrs_copy(const obj_t *from, const obj_t *to)
{
    for (struct ivc_mpi_attr *a = *from->list; a != NULL; a = a->next) {
        keyval_t *k = keyval_get(a->keyval, from->kind);
        if (k == NULL || k->copy.comm == NULL)
            continue;
        void *out = NULL, *in = attr_arg(k, a);
        int flag = 0, rc = MPI_SUCCESS;
        switch (from->kind) {
        case KV_COMM: rc = k->copy.comm(from->h, a->keyval, k->extra, in, &out, &flag); break;
        case KV_TYPE: rc = k->copy.type(from->h, a->keyval, k->extra, in, &out, &flag); break;
        case KV_WIN: rc = k->copy.win(from->h, a->keyval, k->extra, in, &out, &flag); break;
        }
        if (rc != MPI_SUCCESS)
            return rc;
        if (!flag)
            continue;
        /* A Fortran callback gives a Fortran value; a C one that hands the Fortran storage's
         * address back (MPI_COMM_DUP_FN) copies the Fortran value; else the copy is C's. */
        int lang = ATTR_C;
        if (k->fortran)
            lang = a->lang == ATTR_C ? ATTR_AINT : a->lang;
        else if (a->lang != ATTR_C && out == a->val)
            lang = a->lang, out = (void *)(a->lang == ATTR_FINT ? (MPI_Aint)a->f.i : a->f.a);
        if ((rc = attr_set_lang(to, a->keyval, out, lang)) != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int attrs_delete_all(const obj_t *o)
{
    while (*o->list != NULL) {
        int rc = attr_remove(o, o->list);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Looks keyval up on o: MPI_ERR_ARG for a NULL output (callers in other rooms may not have
 * checked), MPI_ERR_KEYVAL unless it is a live keyval of o's kind. */
static int attr_get(const obj_t *o, int keyval, void *attribute_val, int *flag)
{
    if (attribute_val == NULL || flag == NULL)
        return MPI_ERR_ARG;
    if (keyval_get(keyval, o->kind) == NULL)
        return MPI_ERR_KEYVAL;
    struct ivc_mpi_attr *a = *attr_find(o->list, keyval);
    *flag = a != NULL;
    if (a != NULL)
        *(void **)attribute_val = a->val;
    return MPI_SUCCESS;
}

static int attr_put(const obj_t *o, int keyval, void *val, MPI_Comm raise_on, const char *fn)
{
    keyval_t *k = keyval_get(keyval, o->kind);
    if (k == NULL || k->freed)
        return ivc_mpi_raise(raise_on, MPI_ERR_KEYVAL, fn, "%d is not a live %s keyval", keyval,
                             kind_name[o->kind]);
    int rc = attr_set(o, keyval, val);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(raise_on, rc, fn, "replacing the attribute failed");
    return MPI_SUCCESS;
}

static int attr_del(const obj_t *o, int keyval, MPI_Comm raise_on, const char *fn)
{
    struct ivc_mpi_attr **p = attr_find(o->list, keyval);
    if (keyval_get(keyval, o->kind) == NULL || *p == NULL)
        return ivc_mpi_raise(raise_on, MPI_ERR_KEYVAL, fn, "no attribute for %s keyval %d",
                             kind_name[o->kind], keyval);
    int rc = attr_remove(o, p);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(raise_on, rc, fn, "the delete callback failed");
    return MPI_SUCCESS;
}

static obj_t comm_obj(MPI_Comm c)
{
    return (obj_t){KV_COMM, c, &c->attrs};
}

static obj_t type_obj(MPI_Datatype t)
{
    return (obj_t){KV_TYPE, t, &t->attrs};
}

static obj_t win_obj(MPI_Win w)
{
    return (obj_t){KV_WIN, w, &w->attrs};
}

/* ---- communicators ---- */

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    const char *fn = "MPI_Comm_set_attr";
    CHECK_COMM(comm, fn);
    obj_t o = comm_obj(comm);
    return attr_put(&o, comm_keyval, attribute_val, comm, fn);
}
IVC_MPI_WEAK(Comm_set_attr)

int ivc_mpi_attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    obj_t o = comm_obj(comm);
    return attr_get(&o, keyval, attribute_val, flag);
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    const char *fn = "MPI_Comm_delete_attr";
    CHECK_COMM(comm, fn);
    obj_t o = comm_obj(comm);
    return attr_del(&o, comm_keyval, comm, fn);
}
IVC_MPI_WEAK(Comm_delete_attr)

int ivc_mpi_attr_copy(MPI_Comm from, MPI_Comm to)
{
    obj_t f = comm_obj(from), t = comm_obj(to);
    return attrs_copy(&f, &t);
}

int ivc_mpi_attr_delete_all(MPI_Comm comm)
{
    obj_t o = comm_obj(comm);
    return attrs_delete_all(&o);
}

/* ---- the MPI-1 forms (deprecated, still called by old codes): communicator keyvals ---- */

int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    keyval_t k = {.kind = KV_COMM, .copy.comm = copy_fn, .del.comm = delete_fn,
                  .extra = extra_state};
    return keyval_new(&k, keyval, "MPI_Keyval_create");
}
IVC_MPI_WEAK(Keyval_create)

int PMPI_Keyval_free(int *keyval)
{
    return keyval_free(keyval, KV_COMM, "MPI_Keyval_free");
}
IVC_MPI_WEAK(Keyval_free)

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    const char *fn = "MPI_Attr_put";
    CHECK_COMM(comm, fn);
    obj_t o = comm_obj(comm);
    return attr_put(&o, keyval, attribute_val, comm, fn);
}
IVC_MPI_WEAK(Attr_put)

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
IVC_MPI_WEAK(Attr_get)

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    const char *fn = "MPI_Attr_delete";
    CHECK_COMM(comm, fn);
    obj_t o = comm_obj(comm);
    return attr_del(&o, keyval, comm, fn);
}
IVC_MPI_WEAK(Attr_delete)

/* ---- datatypes ---- */

#define CHECK_TYPE(t, fn)                                                                          \
    do {                                                                                           \
        int rc_ = ivc_mpi_check_init(fn);                                                          \
        if (rc_ != MPI_SUCCESS)                                                                    \
            return rc_;                                                                            \
        if (!ivc_mpi_dt_valid(t))                                                                  \
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "invalid datatype");            \
    } while (0)

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    const char *fn = "MPI_Type_set_attr";
    CHECK_TYPE(datatype, fn);
    obj_t o = type_obj(datatype);
    return attr_put(&o, type_keyval, attribute_val, MPI_COMM_WORLD, fn);
}
IVC_MPI_WEAK(Type_set_attr)

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    const char *fn = "MPI_Type_get_attr";
    CHECK_TYPE(datatype, fn);
    if (attribute_val == NULL || flag == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    obj_t o = type_obj(datatype);
    int rc = attr_get(&o, type_keyval, attribute_val, flag);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(MPI_COMM_WORLD, rc, fn, "%d is not a datatype keyval", type_keyval);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_get_attr)

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    const char *fn = "MPI_Type_delete_attr";
    CHECK_TYPE(datatype, fn);
    obj_t o = type_obj(datatype);
    return attr_del(&o, type_keyval, MPI_COMM_WORLD, fn);
}
IVC_MPI_WEAK(Type_delete_attr)

int ivc_mpi_type_attr_copy(MPI_Datatype from, MPI_Datatype to)
{
    obj_t f = type_obj(from), t = type_obj(to);
    return attrs_copy(&f, &t);
}

int ivc_mpi_type_attr_delete_all(MPI_Datatype dt)
{
    obj_t o = type_obj(dt);
    return attrs_delete_all(&o);
}

/* ---- windows (the predefined MPI_WIN_* keys are answered in rma/mpi_win.c) ---- */

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    const char *fn = "MPI_Win_set_attr";
    CHECK_WIN(win, fn);
    obj_t o = win_obj(win);
    return attr_put(&o, win_keyval, attribute_val, win->comm, fn);
}
IVC_MPI_WEAK(Win_set_attr)

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    const char *fn = "MPI_Win_delete_attr";
    CHECK_WIN(win, fn);
    obj_t o = win_obj(win);
    return attr_del(&o, win_keyval, win->comm, fn);
}
IVC_MPI_WEAK(Win_delete_attr)

int ivc_mpi_win_attr_get(MPI_Win win, int keyval, void *attribute_val, int *flag)
{
    obj_t o = win_obj(win);
    return attr_get(&o, keyval, attribute_val, flag);
}

int ivc_mpi_win_attr_delete_all(MPI_Win win)
{
    obj_t o = win_obj(win);
    return attrs_delete_all(&o);
}

/* ---- datatype names ---- */

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    if (!ivc_mpi_dt_valid(datatype))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_set_name", "invalid datatype");
    CHECK_NULL_ARG(MPI_COMM_WORLD, type_name, "MPI_Type_set_name", "type_name");
    snprintf(datatype->name, sizeof(datatype->name), "%s", type_name);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_set_name)

/* MPI-4.1: MPI_DATATYPE_NULL is named "MPI_DATATYPE_NULL". */
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    CHECK_NULL_ARG(MPI_COMM_WORLD, type_name, "MPI_Type_get_name", "type_name");
    CHECK_NULL_ARG(MPI_COMM_WORLD, resultlen, "MPI_Type_get_name", "resultlen");
    if (datatype == MPI_DATATYPE_NULL)
        return ivc_mpi_name_out("MPI_DATATYPE_NULL", type_name, resultlen);
    if (!ivc_mpi_dt_valid(datatype))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_get_name", "invalid datatype");
    return ivc_mpi_name_out(datatype->name, type_name, resultlen);
}
IVC_MPI_WEAK(Type_get_name)

/* ---- the Fortran glue's side (src/binding/fortran/fortran_glue.c) ---- */

static int fort_obj(int kind, void *h, obj_t *o)
{
    switch (kind) {
    case 'c': *o = comm_obj(h); return ivc_mpi_comm_valid(h);
    case 't': *o = type_obj(h); return ivc_mpi_dt_valid(h);
    case 'w': *o = win_obj(h); return ivc_win_valid(h);
    }
    return 0;
}

void ivc_fort_keyval_mark(int keyval)
{
    keyval_t *k = keyval_get(keyval, 0);
    if (k != NULL)
        k->fortran = 1;
}

void ivc_fort_attr_mark(int kind, void *h, int keyval, int fint)
{
    obj_t o;
    if (!fort_obj(kind, h, &o))
        return;
    struct ivc_mpi_attr *a = *attr_find(o.list, keyval);
    if (a == NULL || a->lang != ATTR_C)
        return;
    if (fint) {
        a->f.i = (MPI_Fint)(MPI_Aint)a->val;
        a->lang = ATTR_FINT;
    } else {
        a->f.a = (MPI_Aint)a->val;
        a->lang = ATTR_AINT;
    }
    a->val = &a->f;
}

int ivc_fort_attr_value(int kind, void *h, int keyval, MPI_Aint *val)
{
    obj_t o;
    if (!fort_obj(kind, h, &o))
        return 0;
    struct ivc_mpi_attr *a = *attr_find(o.list, keyval);
    if (a == NULL || a->lang == ATTR_C)
        return 0;
    *val = a->lang == ATTR_FINT ? (MPI_Aint)a->f.i : a->f.a;
    return 1;
}
