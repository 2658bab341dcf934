/* Attribute caching on communicators (keyvals with copy and delete callbacks) and datatype
 * names. The predefined keys (MPI_TAG_UB ...) stay in mpi_comm.c; user keyvals live here.
 *
 * A keyval is an index into a table, offset by KEYVAL_BASE so that it never collides with a
 * predefined key or MPI_KEYVAL_INVALID. A freed keyval stays in the table until the last
 * attribute that uses it is deleted (the standard lets such attributes live on). */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

#define KEYVAL_BASE 0x10000

typedef struct keyval {
    int used;
    int freed; /* the user freed the handle; the slot waits for refs to reach 0 */
    int refs;  /* the user's handle plus attributes set with it */
    MPI_Comm_copy_attr_function *copy;
    MPI_Comm_delete_attr_function *del;
    void *extra;
} keyval_t;

struct ivc_mpi_attr {
    struct ivc_mpi_attr *next;
    int keyval;
    void *val;
};

static keyval_t *keyvals;
static int nkeyvals;

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

static keyval_t *keyval_get(int keyval)
{
    int i = keyval - KEYVAL_BASE;
    if (i < 0 || i >= nkeyvals || !keyvals[i].used)
        return NULL;
    return &keyvals[i];
}

static void keyval_unref(int keyval)
{
    keyval_t *k = keyval_get(keyval);
    if (k != NULL && --k->refs == 0)
        memset(k, 0, sizeof(*k));
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                            MPI_Comm_delete_attr_function *delete_fn, int *comm_keyval,
                            void *extra_state)
{
    const char *fn = "MPI_Comm_create_keyval";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
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
    keyvals[i] = (keyval_t){1, 0, 1, copy_fn, delete_fn, extra_state};
    *comm_keyval = KEYVAL_BASE + i;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_create_keyval)

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    const char *fn = "MPI_Comm_free_keyval";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    keyval_t *k = comm_keyval ? keyval_get(*comm_keyval) : NULL;
    if (k == NULL || k->freed)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_KEYVAL, fn, "invalid keyval");
    k->freed = 1;
    keyval_unref(*comm_keyval);
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_free_keyval)

static struct ivc_mpi_attr **attr_find(MPI_Comm comm, int keyval)
{
    struct ivc_mpi_attr **p = &comm->attrs;
    while (*p != NULL && (*p)->keyval != keyval)
        p = &(*p)->next;
    return p;
}

/* Runs the delete callback of *p and unlinks it. Returns the callback's result; the
 * attribute stays when the callback fails (the standard's rule for Comm_delete_attr). */
static int attr_remove(MPI_Comm comm, struct ivc_mpi_attr **p)
{
    struct ivc_mpi_attr *a = *p;
    keyval_t *k = keyval_get(a->keyval);
    if (k != NULL && k->del != NULL) {
        int rc = k->del(comm, a->keyval, a->val, k->extra);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    *p = a->next;
    keyval_unref(a->keyval);
    free(a);
    return MPI_SUCCESS;
}

static int attr_set(MPI_Comm comm, int keyval, void *val)
{
    struct ivc_mpi_attr **p = attr_find(comm, keyval);
    if (*p != NULL) {
        int rc = attr_remove(comm, p);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    struct ivc_mpi_attr *a = malloc(sizeof(*a));
    if (a == NULL)
        return MPI_ERR_NO_MEM;
    a->keyval = keyval;
    a->val = val;
    a->next = comm->attrs;
    comm->attrs = a;
    keyval_get(keyval)->refs++;
    return MPI_SUCCESS;
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    const char *fn = "MPI_Comm_set_attr";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ivc_mpi_comm_valid(comm))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator");
    keyval_t *k = keyval_get(comm_keyval);
    if (k == NULL || k->freed)
        return ivc_mpi_raise(comm, MPI_ERR_KEYVAL, fn, "invalid keyval %d", comm_keyval);
    rc = attr_set(comm, comm_keyval, attribute_val);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "replacing the attribute failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_set_attr)

int ivc_mpi_attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    if (keyval_get(keyval) == NULL)
        return MPI_ERR_KEYVAL;
    struct ivc_mpi_attr *a = *attr_find(comm, keyval);
    *flag = a != NULL;
    if (a != NULL)
        *(void **)attribute_val = a->val;
    return MPI_SUCCESS;
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    const char *fn = "MPI_Comm_delete_attr";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ivc_mpi_comm_valid(comm))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator");
    struct ivc_mpi_attr **p = attr_find(comm, comm_keyval);
    if (keyval_get(comm_keyval) == NULL || *p == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_KEYVAL, fn, "no attribute for keyval %d", comm_keyval);
    rc = attr_remove(comm, p);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "the delete callback failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_delete_attr)

int ivc_mpi_attr_copy(MPI_Comm from, MPI_Comm to)
{
    /* The list is newest-first; copying in that order and prepending reverses it, which no
     * caller can observe. */
    for (struct ivc_mpi_attr *a = from->attrs; a != NULL; a = a->next) {
        keyval_t *k = keyval_get(a->keyval);
        if (k == NULL || k->copy == NULL)
            continue;
        void *out = NULL;
        int flag = 0;
        int rc = k->copy(from, a->keyval, k->extra, a->val, &out, &flag);
        if (rc != MPI_SUCCESS)
            return rc;
        if (flag && (rc = attr_set(to, a->keyval, out)) != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int ivc_mpi_attr_delete_all(MPI_Comm comm)
{
    while (comm->attrs != NULL) {
        int rc = attr_remove(comm, &comm->attrs);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* ---- datatype names ---- */

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    if (!ivc_mpi_dt_valid(datatype))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_set_name", "invalid datatype");
    snprintf(datatype->name, sizeof(datatype->name), "%s", type_name ? type_name : "");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_set_name)

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    if (!ivc_mpi_dt_valid(datatype))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_get_name", "invalid datatype");
    snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", datatype->name);
    *resultlen = (int)strlen(type_name);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_get_name)
