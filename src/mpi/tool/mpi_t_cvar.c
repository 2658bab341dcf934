/* MPI_T: initialization, control variables, categories and enumerations.
 *
 * The control variables are IVC's tunables: every row of the per-layer tables that IVC_*
 * environment variables set (coordinator, shared-memory channel, collectives, one-sided), in
 * that order, named as the environment variable (IVC_EAGER_LIMIT ...), one category per
 * table. Their values:
 *  - while MPI runs and after it, the values this process started MPI with: a snapshot taken
 *    when the runtime started, from the same environment the layers read at that moment;
 *  - before, the values MPI_Init would use now: the environment, or the default where a
 *    variable is unset or invalid (MPI_Init would then refuse to start, naming it).
 * No tunable can change once MPI runs (they size the region, the rings, the areas), so every
 * variable has scope MPI_T_SCOPE_CONSTANT and MPI_T_cvar_write answers
 * MPI_T_ERR_CVAR_SET_NEVER; set them in the environment before MPI_Init.
 * Types: sizes and counts are MPI_UNSIGNED_LONG_LONG, booleans MPI_INT with the enumeration
 * "ivc_bool" (0 no, 1 yes), text MPI_CHAR (count CVAR_TEXT bytes with the NUL).
 *
 * Thread level: MPI_THREAD_MULTIPLE turns on the process-wide lock (env/mpi_init.c), without
 * changing how MPI's collectives run. */
#include "mpi_impl.h"
#include "tool.h"

#include "shm/shm_coll_config.h"
#include "shm/shm_config.h"
#include "shm/shm_rma_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CVAR_MAGIC 0x43564152u
#define ENUM_MAGIC 0x454e554du
#define CVAR_TEXT  256

int ivc_mpi_t_refs;

void ivc_mpi_t_string(const char *s, char *buf, int *len)
{
    if (len == NULL)
        return;
    size_t n = strlen(s);
    if (buf != NULL && *len > 0) {
        size_t m = n < (size_t)*len - 1 ? n : (size_t)*len - 1;
        memcpy(buf, s, m);
        buf[m] = '\0';
    }
    *len = (int)n + 1;
}

/* ---- the variables ---- */

static const struct layer {
    const ivc_cfg_table_t *table;
    const char *category; /* its category's name; the description is table->layer */
} layers[] = {
    {&ivc_coord_config_table, "ivc_coordinator"},
    {&ivc_shm_config_table, "ivc_shm_channel"},
    {&ivc_coll_config_table, "ivc_collectives"},
    {&ivc_rma_config_table, "ivc_one_sided"},
};
#define NLAYERS ((int)(sizeof(layers) / sizeof(layers[0])))

typedef union {
    uint64_t u;           /* SIZE, UINT */
    int b;                /* BOOL */
    char s[CVAR_TEXT];    /* STRING, truncated */
} cvar_value_t;

static cvar_value_t *snapshot; /* by cvar index, once the runtime has started */

static int num_cvars(void)
{
    int n = 0;
    for (int l = 0; l < NLAYERS; l++)
        n += (int)layers[l].table->count;
    return n;
}

/* The table row of cvar `idx` (and its layer), or NULL for an invalid index. */
static const ivc_cfg_entry_t *cvar_entry(int idx, int *layer)
{
    if (idx < 0)
        return NULL;
    for (int l = 0; l < NLAYERS; l++) {
        if ((size_t)idx < layers[l].table->count) {
            if (layer != NULL)
                *layer = l;
            return &layers[l].table->entries[idx];
        }
        idx -= (int)layers[l].table->count;
    }
    return NULL;
}

/* The value MPI_Init would read now: the environment's, else the default. */
static void cvar_from_env(const ivc_cfg_entry_t *e, cvar_value_t *v)
{
    char var[160];
    snprintf(var, sizeof(var), "IVC_%s", e->name);
    const char *text = getenv(var);
    memset(v, 0, sizeof(*v));
    if (e->type == IVC_CFG_STRING) {
        snprintf(v->s, sizeof(v->s), "%s", text != NULL && *text != '\0' ? text : e->dflt);
        return;
    }
    void *field = e->type == IVC_CFG_BOOL ? (void *)&v->b : (void *)&v->u;
    if (text == NULL || *text == '\0' || ivc_cfg_parse_value(e, text, field) != 0)
        ivc_cfg_parse_value(e, e->dflt, field);
}

void ivc_mpi_t_snapshot(void)
{
    int n = num_cvars();
    cvar_value_t *s = calloc((size_t)n, sizeof(*s));
    if (s == NULL)
        return; /* reads then use the environment, which has not changed since */
    for (int i = 0; i < n; i++)
        cvar_from_env(cvar_entry(i, NULL), &s[i]);
    free(snapshot);
    snapshot = s;
}

static void cvar_value(int idx, cvar_value_t *v)
{
    if (snapshot != NULL)
        *v = snapshot[idx];
    else
        cvar_from_env(cvar_entry(idx, NULL), v);
}

/* ---- enumerations: one, for the booleans ---- */

struct ivc_mpi_t_enum_s {
    uint32_t magic;
    const char *name;
    int n;
    const char *const *items; /* item i has value i */
};

static const char *const bool_items[] = {"no", "yes"};
static struct ivc_mpi_t_enum_s bool_enum = {ENUM_MAGIC, "ivc_bool", 2, bool_items};

static int enum_valid(MPI_T_enum e)
{
    return e != MPI_T_ENUM_NULL && e->magic == ENUM_MAGIC;
}

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    CHECK_T_INIT();
    if (!enum_valid(enumtype))
        return MPI_T_ERR_INVALID_HANDLE;
    if (num != NULL)
        *num = enumtype->n;
    ivc_mpi_t_string(enumtype->name, name, name_len);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_enum_get_info)

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    CHECK_T_INIT();
    if (!enum_valid(enumtype))
        return MPI_T_ERR_INVALID_HANDLE;
    if (index < 0 || index >= enumtype->n)
        return MPI_T_ERR_INVALID_ITEM;
    if (value != NULL)
        *value = index;
    ivc_mpi_t_string(enumtype->items[index], name, name_len);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_enum_get_item)

/* ---- initialization ---- */

int PMPI_T_init_thread(int required, int *provided)
{
    if (provided == NULL)
        return MPI_T_ERR_INVALID;
    ivc_mpi_t_refs++;
    *provided = ivc_mpi_thread_level(required, 1);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_init_thread)

/* Handles still allocated when the last MPI_T_finalize comes are freed then. */
struct ivc_mpi_t_cvar_handle_s {
    uint32_t magic;
    int index;
    struct ivc_mpi_t_cvar_handle_s *next;
};
static struct ivc_mpi_t_cvar_handle_s *cvar_handles;

int PMPI_T_finalize(void)
{
    CHECK_T_INIT();
    if (--ivc_mpi_t_refs > 0)
        return MPI_SUCCESS;
    while (cvar_handles != NULL) {
        struct ivc_mpi_t_cvar_handle_s *h = cvar_handles;
        cvar_handles = h->next;
        h->magic = 0;
        free(h);
    }
    ivc_mpi_t_other_finalize();
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_finalize)

/* ---- control variables ---- */

int PMPI_T_cvar_get_num(int *num_cvar)
{
    CHECK_T_INIT();
    if (num_cvar == NULL)
        return MPI_T_ERR_INVALID;
    *num_cvar = num_cvars();
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_cvar_get_num)

static MPI_Datatype cvar_type(const ivc_cfg_entry_t *e)
{
    switch (e->type) {
    case IVC_CFG_SIZE:
    case IVC_CFG_UINT: return MPI_UNSIGNED_LONG_LONG;
    case IVC_CFG_BOOL: return MPI_INT;
    case IVC_CFG_STRING: return MPI_CHAR;
    }
    return MPI_DATATYPE_NULL;
}

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope)
{
    CHECK_T_INIT();
    const ivc_cfg_entry_t *e = cvar_entry(cvar_index, NULL);
    if (e == NULL)
        return MPI_T_ERR_INVALID_INDEX;
    char full[160], text[1024];
    snprintf(full, sizeof(full), "IVC_%s", e->name);
    ivc_mpi_t_string(full, name, name_len);
    snprintf(text, sizeof(text), "%s (default: %s; set in the environment before MPI_Init)",
             e->help, e->dflt);
    ivc_mpi_t_string(text, desc, desc_len);
    if (verbosity != NULL)
        *verbosity = MPI_T_VERBOSITY_TUNER_BASIC;
    if (datatype != NULL)
        *datatype = cvar_type(e);
    if (enumtype != NULL)
        *enumtype = e->type == IVC_CFG_BOOL ? &bool_enum : MPI_T_ENUM_NULL;
    if (bind != NULL)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope != NULL)
        *scope = MPI_T_SCOPE_CONSTANT;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_cvar_get_info)

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    CHECK_T_INIT();
    if (name == NULL || cvar_index == NULL)
        return MPI_T_ERR_INVALID;
    if (strncmp(name, "IVC_", 4) == 0) {
        for (int i = 0, n = num_cvars(); i < n; i++) {
            if (strcmp(cvar_entry(i, NULL)->name, name + 4) == 0) {
                *cvar_index = i;
                return MPI_SUCCESS;
            }
        }
    }
    return MPI_T_ERR_INVALID_NAME;
}
IVC_MPI_WEAK(T_cvar_get_index)

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    CHECK_T_INIT();
    const ivc_cfg_entry_t *e = cvar_entry(cvar_index, NULL);
    if (e == NULL)
        return MPI_T_ERR_INVALID_INDEX;
    if (handle == NULL || count == NULL)
        return MPI_T_ERR_INVALID;
    /* Bound to no object: obj_handle is ignored. */
    MPI_T_cvar_handle h = calloc(1, sizeof(*h));
    if (h == NULL)
        return MPI_T_ERR_MEMORY;
    h->magic = CVAR_MAGIC;
    h->index = cvar_index;
    h->next = cvar_handles;
    cvar_handles = h;
    *handle = h;
    *count = e->type == IVC_CFG_STRING ? CVAR_TEXT : 1;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_cvar_handle_alloc)

static int cvar_handle_valid(MPI_T_cvar_handle h)
{
    for (MPI_T_cvar_handle p = cvar_handles; p != NULL; p = p->next)
        if (p == h)
            return 1;
    return 0;
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    CHECK_T_INIT();
    if (handle == NULL)
        return MPI_T_ERR_INVALID;
    if (!cvar_handle_valid(*handle))
        return MPI_T_ERR_INVALID_HANDLE;
    MPI_T_cvar_handle *p = &cvar_handles;
    while (*p != *handle)
        p = &(*p)->next;
    *p = (*handle)->next;
    (*handle)->magic = 0;
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_cvar_handle_free)

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    CHECK_T_INIT();
    if (!cvar_handle_valid(handle))
        return MPI_T_ERR_INVALID_HANDLE;
    if (buf == NULL)
        return MPI_T_ERR_INVALID;
    const ivc_cfg_entry_t *e = cvar_entry(handle->index, NULL);
    cvar_value_t v;
    cvar_value(handle->index, &v);
    switch (e->type) {
    case IVC_CFG_SIZE:
    case IVC_CFG_UINT: {
        unsigned long long u = v.u;
        memcpy(buf, &u, sizeof(u));
        break;
    }
    case IVC_CFG_BOOL: memcpy(buf, &v.b, sizeof(int)); break;
    case IVC_CFG_STRING: memcpy(buf, v.s, strlen(v.s) + 1); break;
    }
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_cvar_read)

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    CHECK_T_INIT();
    if (!cvar_handle_valid(handle))
        return MPI_T_ERR_INVALID_HANDLE;
    return MPI_T_ERR_CVAR_SET_NEVER;
}
IVC_MPI_WEAK(T_cvar_write)

/* ---- categories: one per layer, holding that layer's variables ---- */

int ivc_mpi_t_num_categories(void)
{
    return NLAYERS;
}

int PMPI_T_category_get_num(int *num_cat)
{
    CHECK_T_INIT();
    if (num_cat == NULL)
        return MPI_T_ERR_INVALID;
    *num_cat = NLAYERS;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_category_get_num)

/* Index of the first cvar of layer l. */
static int first_cvar(int l)
{
    int n = 0;
    for (int i = 0; i < l; i++)
        n += (int)layers[i].table->count;
    return n;
}

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars_out, int *num_pvars, int *num_categories)
{
    CHECK_T_INIT();
    if (cat_index < 0 || cat_index >= NLAYERS)
        return MPI_T_ERR_INVALID_INDEX;
    char text[256];
    snprintf(text, sizeof(text), "IVC tunables of the %s layer", layers[cat_index].table->layer);
    ivc_mpi_t_string(layers[cat_index].category, name, name_len);
    ivc_mpi_t_string(text, desc, desc_len);
    if (num_cvars_out != NULL)
        *num_cvars_out = (int)layers[cat_index].table->count;
    if (num_pvars != NULL)
        *num_pvars = 0;
    if (num_categories != NULL)
        *num_categories = 0;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_category_get_info)

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    CHECK_T_INIT();
    if (name == NULL || cat_index == NULL)
        return MPI_T_ERR_INVALID;
    for (int l = 0; l < NLAYERS; l++) {
        if (strcmp(layers[l].category, name) == 0) {
            *cat_index = l;
            return MPI_SUCCESS;
        }
    }
    return MPI_T_ERR_INVALID_NAME;
}
IVC_MPI_WEAK(T_category_get_index)

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    CHECK_T_INIT();
    if (cat_index < 0 || cat_index >= NLAYERS)
        return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && indices == NULL))
        return MPI_T_ERR_INVALID;
    int n = (int)layers[cat_index].table->count, first = first_cvar(cat_index);
    for (int i = 0; i < n && i < len; i++)
        indices[i] = first + i;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_category_get_cvars)

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    CHECK_T_INIT();
    if (cat_index < 0 || cat_index >= NLAYERS)
        return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && indices == NULL)) /* as the cvars: an array to fill */
        return MPI_T_ERR_INVALID;
    return MPI_SUCCESS; /* no performance variables */
}
IVC_MPI_WEAK(T_category_get_pvars)

int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    CHECK_T_INIT();
    if (cat_index < 0 || cat_index >= NLAYERS)
        return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && indices == NULL)) /* as the cvars: an array to fill */
        return MPI_T_ERR_INVALID;
    return MPI_SUCCESS; /* no subcategories */
}
IVC_MPI_WEAK(T_category_get_categories)

int PMPI_T_category_changed(int *update_number)
{
    CHECK_T_INIT();
    if (update_number == NULL)
        return MPI_T_ERR_INVALID;
    *update_number = 0; /* the categories never change */
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_category_changed)
