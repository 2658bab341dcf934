/* Info objects: ordered (key, value) lists. IVC reads no info key yet; applications pass
 * them to Win_create, Comm_split_type ... and those accept any.
 *
 * The info functions may be called at any time, before MPI_Init and after MPI_Finalize too
 * (MPI 4.1 sec. 11.4.1); their errors then go to the initial error handler,
 * MPI_ERRORS_ARE_FATAL. MPI_INFO_ENV is a predefined object that cannot be freed. */
#include "mpi_impl.h"

#include "base/ivc_topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

struct ivc_mpi_info_s ivc_obj_info_env = {.magic = INFO_MAGIC, .predefined = 1};

struct ivc_info_kv {
    struct ivc_info_kv *next;
    char *key, *val;
};

#define CHECK_INFO(info, fn)                                                                       \
    do {                                                                                           \
        if ((info) == MPI_INFO_NULL || (info)->magic != INFO_MAGIC)                                \
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_INFO, fn, "invalid info object");         \
    } while (0)

#define CHECK_OUT(p, fn)                                                                           \
    do {                                                                                           \
        if ((p) == NULL)                                                                           \
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL output argument");        \
    } while (0)

/* A NULL key is an invalid pointer (MPI_ERR_ARG); an empty or too long one an invalid key. */
static int check_key(const char *key, const char *fn)
{
    CHECK_NULL_ARG(MPI_COMM_WORLD, key, fn, "key");
    if (key[0] == '\0' || strlen(key) > MPI_MAX_INFO_KEY)
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
    CHECK_OUT(info, "MPI_Info_create");
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
    CHECK_NULL_ARG(MPI_COMM_WORLD, value, fn, "value");
    if (strlen(value) > MPI_MAX_INFO_VAL)
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
    CHECK_OUT(flag, fn);
    struct ivc_info_kv *kv = *kv_find(info, key);
    if (kv != NULL && value == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL value buffer");
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
    CHECK_OUT(valuelen, fn);
    CHECK_OUT(flag, fn);
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
    CHECK_OUT(nkeys, "MPI_Info_get_nkeys");
    *nkeys = info->nkeys;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    const char *fn = "MPI_Info_get_nthkey";
    CHECK_INFO(info, fn);
    CHECK_OUT(key, fn);
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
    info->nkeys = 0;
    if (info->predefined)
        return;
    info->magic = 0;
    free(info);
}

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    const char *fn = "MPI_Info_dup";
    CHECK_INFO(info, fn);
    CHECK_OUT(newinfo, fn);
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
    if ((*info)->predefined)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_INFO, fn, "MPI_INFO_ENV cannot be freed");
    info_destroy(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Info_free)

int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    const char *fn = "MPI_Info_get_string";
    CHECK_INFO(info, fn);
    int rc = check_key(key, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    CHECK_OUT(buflen, fn);
    CHECK_OUT(flag, fn);
    if (*buflen < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "negative buflen");
    struct ivc_info_kv *kv = *kv_find(info, key);
    *flag = kv != NULL;
    if (kv == NULL)
        return MPI_SUCCESS;
    /* buflen counts the NUL; 0 asks for the length only (value may be NULL). A value longer
     * than the buffer is truncated; buflen then tells the size it needs. */
    size_t n = strlen(kv->val);
    if (*buflen > 0) {
        if (value == NULL)
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL value buffer");
        size_t m = n < (size_t)*buflen - 1 ? n : (size_t)*buflen - 1;
        memcpy(value, kv->val, m);
        value[m] = '\0';
    }
    *buflen = (int)n + 1;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Info_get_string)

static const char *const level_name[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                         "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};

const char *ivc_mpi_thread_level_name(int level)
{
    return level >= MPI_THREAD_SINGLE && level <= MPI_THREAD_MULTIPLE ? level_name[level] : NULL;
}

/* The keys MPI 4.1 sec. 11.4.3 lists for MPI_INFO_ENV, as far as IVC knows them: command,
 * argv (the arguments after the command, separated by spaces), maxprocs (the ranks of the
 * job), host, arch, wdir and thread_level (when thread_level >= 0). soft and file have no
 * meaning for ivcrun and are left out. Returns MPI_SUCCESS or an error class. */
static int env_keys(MPI_Info info, int argc, char **argv, int thread_level)
{
    char buf[MPI_MAX_INFO_VAL + 1];
    int rc = MPI_SUCCESS;
    if (argc > 0 && argv != NULL && argv[0] != NULL)
        rc = PMPI_Info_set(info, "command", argv[0]);
    if (rc == MPI_SUCCESS && argc > 1 && argv != NULL) {
        size_t len = 0;
        buf[0] = '\0';
        for (int i = 1; i < argc && argv[i] != NULL; i++) {
            int w = snprintf(buf + len, sizeof(buf) - len, "%s%s", i > 1 ? " " : "", argv[i]);
            if (w < 0 || (size_t)w >= sizeof(buf) - len) {
                buf[len] = '\0'; /* cut at the last whole argument */
                break;
            }
            len += (size_t)w;
        }
        rc = PMPI_Info_set(info, "argv", buf);
    }
    /* The job's size: the world once MPI runs, else what the launcher says (PMI_SIZE), else 1. */
    int size = 1;
    const char *pmi_size = getenv("PMI_SIZE");
    if (ivc_mpi_initialized && !ivc_mpi_finalized)
        size = ivc_mpi_world_size;
    else if (pmi_size != NULL && atoi(pmi_size) > 0)
        size = atoi(pmi_size);
    snprintf(buf, sizeof(buf), "%d", size);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Info_set(info, "maxprocs", buf);
    if (rc == MPI_SUCCESS && gethostname(buf, sizeof(buf) - 1) == 0) {
        buf[sizeof(buf) - 1] = '\0';
        rc = PMPI_Info_set(info, "host", buf);
    }
    struct utsname u;
    if (rc == MPI_SUCCESS && uname(&u) == 0)
        rc = PMPI_Info_set(info, "arch", u.machine);
    if (rc == MPI_SUCCESS && getcwd(buf, sizeof(buf)) != NULL)
        rc = PMPI_Info_set(info, "wdir", buf);
    if (rc == MPI_SUCCESS && ivc_mpi_thread_level_name(thread_level) != NULL)
        rc = PMPI_Info_set(info, "thread_level", ivc_mpi_thread_level_name(thread_level));
    return rc;
}

void ivc_mpi_info_env_fill(int argc, char **argv, int thread_level)
{
    info_destroy(MPI_INFO_ENV);
    if (env_keys(MPI_INFO_ENV, argc, argv, thread_level) != MPI_SUCCESS)
        info_destroy(MPI_INFO_ENV); /* out of memory: an empty MPI_INFO_ENV is still valid */
}

void ivc_mpi_info_env_clear(void)
{
    info_destroy(MPI_INFO_ENV);
}

int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    const char *fn = "MPI_Info_create_env";
    CHECK_OUT(info, fn);
    if (argc < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "negative argc");
    MPI_Info n;
    int rc = PMPI_Info_create(&n);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = env_keys(n, argc, argv, -1);
    if (rc != MPI_SUCCESS) {
        info_destroy(n);
        return rc;
    }
    *info = n;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Info_create_env)

/* What IVC can say honestly about the hardware this process runs on: that its co-located
 * peers share memory with it (mpi_hw_resource_type = mpi_shared_memory, the resource type
 * MPI_COMM_TYPE_HW_GUIDED names), through an inter-VM shared-memory region when it has one,
 * and how many CPUs it may run on. */
int PMPI_Get_hw_resource_info(MPI_Info *hw_info)
{
    const char *fn = "MPI_Get_hw_resource_info";
    CHECK_OUT(hw_info, fn);
    MPI_Info n;
    int rc = PMPI_Info_create(&n);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Info_set(n, "mpi_hw_resource_type", "mpi_shared_memory");
    if (rc == MPI_SUCCESS && ivc_mpi_initialized && !ivc_mpi_finalized)
        rc = PMPI_Info_set(n, "ivc_shared_region", ivc_coord.have_region ? "true" : "false");
    int known = 0, cpus = ivc_topo_my_cpus(NULL, 0, &known);
    if (rc == MPI_SUCCESS && known) {
        char buf[32];
        snprintf(buf, sizeof(buf), "%d", cpus);
        rc = PMPI_Info_set(n, "ivc_cpus", buf);
    }
    if (rc != MPI_SUCCESS) {
        info_destroy(n);
        return rc;
    }
    *hw_info = n;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Get_hw_resource_info)
