/* Info objects: ordered (key, value) lists. IVC reads no info key yet; applications pass
 * them to Win_create, Comm_split_type ... and those accept any. */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

struct ivc_info_kv {
    struct ivc_info_kv *next;
    char *key, *val;
};

#define CHECK_INFO(info, fn)                                                                       \
    do {                                                                                           \
        int rc_ = ivc_mpi_check_init(fn);                                                          \
        if (rc_ != MPI_SUCCESS)                                                                    \
            return rc_;                                                                            \
        if ((info) == MPI_INFO_NULL || (info)->magic != INFO_MAGIC)                                \
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_INFO, fn, "invalid info object");         \
    } while (0)

static int check_key(const char *key, const char *fn)
{
    if (key == NULL || key[0] == '\0' || strlen(key) > MPI_MAX_INFO_KEY)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_INFO_KEY, fn,
                             "keys must have 1 to %d characters", MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

static struct ivc_info_kv **kv_find(MPI_Info info, const char *key)
{
    struct ivc_info_kv **p = &info->head;
    while (*p != NULL && strcmp((*p)->key, key) != 0)
        p = &(*p)->next;
    return p;
}

int PMPI_Info_create(MPI_Info *info)
{
    int rc = ivc_mpi_check_init("MPI_Info_create");
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Info i = calloc(1, sizeof(*i));
    if (i == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Info_create", "out of memory");
    i->magic = INFO_MAGIC;
    *info = i;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Info_create)

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    const char *fn = "MPI_Info_set";
    CHECK_INFO(info, fn);
    int rc = check_key(key, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (value == NULL || strlen(value) > MPI_MAX_INFO_VAL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_INFO_VALUE, fn,
                             "values must have at most %d characters", MPI_MAX_INFO_VAL);
    char *v = strdup(value);
    if (v == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    struct ivc_info_kv **p = kv_find(info, key);
    if (*p != NULL) {
        free((*p)->val);
        (*p)->val = v;
        return MPI_SUCCESS;
    }
    struct ivc_info_kv *kv = malloc(sizeof(*kv));
    char *k = strdup(key);
    if (kv == NULL || k == NULL) {
        free(kv);
        free(k);
        free(v);
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    kv->key = k;
    kv->val = v;
    kv->next = NULL;
    *p = kv; /* appended: get_nthkey follows insertion order */
    info->nkeys++;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Info_set)

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    const char *fn = "MPI_Info_get";
    CHECK_INFO(info, fn);
    int rc = check_key(key, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (valuelen < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "negative valuelen");
    struct ivc_info_kv *kv = *kv_find(info, key);
    *flag = kv != NULL;
    if (kv != NULL) {
        /* valuelen excludes the terminating NUL (the standard's convention). */
        size_t n = strlen(kv->val);
        if (n > (size_t)valuelen)
            n = (size_t)valuelen;
        memcpy(value, kv->val, n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Info_get)

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    const char *fn = "MPI_Info_get_valuelen";
    CHECK_INFO(info, fn);
    int rc = check_key(key, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    struct ivc_info_kv *kv = *kv_find(info, key);
    *flag = kv != NULL;
    if (kv != NULL)
        *valuelen = (int)strlen(kv->val);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Info_get_valuelen)

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    CHECK_INFO(info, "MPI_Info_get_nkeys");
    *nkeys = info->nkeys;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    const char *fn = "MPI_Info_get_nthkey";
    CHECK_INFO(info, fn);
    if (n < 0 || n >= info->nkeys)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "key %d of %d does not exist", n,
                             info->nkeys);
    struct ivc_info_kv *kv = info->head;
    for (int i = 0; i < n; i++)
        kv = kv->next;
    snprintf(key, MPI_MAX_INFO_KEY + 1, "%s", kv->key);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Info_get_nthkey)

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    const char *fn = "MPI_Info_delete";
    CHECK_INFO(info, fn);
    int rc = check_key(key, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    struct ivc_info_kv **p = kv_find(info, key);
    if (*p == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_INFO_NOKEY, fn, "no key \"%s\"", key);
    struct ivc_info_kv *kv = *p;
    *p = kv->next;
    free(kv->key);
    free(kv->val);
    free(kv);
    info->nkeys--;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Info_delete)

static void info_destroy(MPI_Info info)
{
    while (info->head != NULL) {
        struct ivc_info_kv *kv = info->head;
        info->head = kv->next;
        free(kv->key);
        free(kv->val);
        free(kv);
    }
    info->magic = 0;
    free(info);
}

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    const char *fn = "MPI_Info_dup";
    CHECK_INFO(info, fn);
    MPI_Info n;
    int rc = PMPI_Info_create(&n);
    if (rc != MPI_SUCCESS)
        return rc;
    for (struct ivc_info_kv *kv = info->head; kv != NULL; kv = kv->next) {
        if ((rc = PMPI_Info_set(n, kv->key, kv->val)) != MPI_SUCCESS) {
            info_destroy(n);
            return rc;
        }
    }
    *newinfo = n;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Info_dup)

int PMPI_Info_free(MPI_Info *info)
{
    const char *fn = "MPI_Info_free";
    if (info == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    CHECK_INFO(*info, fn);
    info_destroy(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Info_free)
