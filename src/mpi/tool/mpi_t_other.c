/* MPI_T: performance variables, events and event sources.
 *
 * IVC exports no performance variables and no events: MPI_T_pvar_get_num and
 * MPI_T_event_get_num give 0, and every call that names one by index, name or handle answers
 * the tool interface's error for that argument. Performance experiment sessions can still be
 * created and freed (a session with no handles), and MPI_T_PVAR_ALL_HANDLES addresses the
 * empty set of handles of a valid session. One event source exists, the monotonic clock that
 * MPI_Wtime reads, in nanoseconds. */
#include "mpi_impl.h"
#include "tool.h"

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define PSESSION_MAGIC 0x50534553u

struct ivc_mpi_t_pvar_session_s {
    uint32_t magic;
    struct ivc_mpi_t_pvar_session_s *next;
};
static struct ivc_mpi_t_pvar_session_s *sessions; /* freed at the last MPI_T_finalize */

void ivc_mpi_t_other_finalize(void)
{
    while (sessions != NULL) {
        struct ivc_mpi_t_pvar_session_s *s = sessions;
        sessions = s->next;
        s->magic = 0;
        free(s);
    }
}

static int session_valid(MPI_T_pvar_session s)
{
    for (MPI_T_pvar_session p = sessions; p != NULL; p = p->next)
        if (p == s)
            return 1;
    return 0;
}

/* ---- performance variables: none ---- */

int PMPI_T_pvar_get_num(int *num_pvar)
{
    CHECK_T_INIT();
    if (num_pvar == NULL)
        return MPI_T_ERR_INVALID;
    *num_pvar = 0;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_pvar_get_num)

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *readonly, int *continuous, int *atomic)
{
    CHECK_T_INIT();
    return MPI_T_ERR_INVALID_INDEX;
}
IVC_MPI_WEAK(T_pvar_get_info)

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    CHECK_T_INIT();
    if (name == NULL || pvar_index == NULL)
        return MPI_T_ERR_INVALID;
    return MPI_T_ERR_INVALID_NAME;
}
IVC_MPI_WEAK(T_pvar_get_index)

int PMPI_T_pvar_session_create(MPI_T_pvar_session *pe_session)
{
    CHECK_T_INIT();
    if (pe_session == NULL)
        return MPI_T_ERR_INVALID;
    MPI_T_pvar_session s = calloc(1, sizeof(*s));
    if (s == NULL)
        return MPI_T_ERR_MEMORY;
    s->magic = PSESSION_MAGIC;
    s->next = sessions;
    sessions = s;
    *pe_session = s;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_pvar_session_create)

int PMPI_T_pvar_session_free(MPI_T_pvar_session *pe_session)
{
    CHECK_T_INIT();
    if (pe_session == NULL)
        return MPI_T_ERR_INVALID;
    if (!session_valid(*pe_session))
        return MPI_T_ERR_INVALID_SESSION;
    MPI_T_pvar_session *p = &sessions;
    while (*p != *pe_session)
        p = &(*p)->next;
    *p = (*pe_session)->next;
    (*pe_session)->magic = 0;
    free(*pe_session);
    *pe_session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_pvar_session_free)

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session pe_session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    CHECK_T_INIT();
    if (!session_valid(pe_session))
        return MPI_T_ERR_INVALID_SESSION;
    return MPI_T_ERR_INVALID_INDEX;
}
IVC_MPI_WEAK(T_pvar_handle_alloc)

/* No handle exists, so any handle is invalid; ALL_HANDLES is the empty set where the
 * standard allows it (start, stop, reset). */
static int pvar_op(MPI_T_pvar_session s, MPI_T_pvar_handle h, int all_ok)
{
    CHECK_T_INIT();
    if (!session_valid(s))
        return MPI_T_ERR_INVALID_SESSION;
    if (all_ok && h == MPI_T_PVAR_ALL_HANDLES)
        return MPI_SUCCESS;
    return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session pe_session, MPI_T_pvar_handle *handle)
{
    if (handle == NULL && ivc_mpi_t_refs > 0 && session_valid(pe_session))
        return MPI_T_ERR_INVALID;
    return pvar_op(pe_session, handle != NULL ? *handle : MPI_T_PVAR_HANDLE_NULL, 0);
}
IVC_MPI_WEAK(T_pvar_handle_free)

int PMPI_T_pvar_start(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle)
{
    return pvar_op(pe_session, handle, 1);
}
IVC_MPI_WEAK(T_pvar_start)

int PMPI_T_pvar_stop(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle)
{
    return pvar_op(pe_session, handle, 1);
}
IVC_MPI_WEAK(T_pvar_stop)

int PMPI_T_pvar_reset(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle)
{
    return pvar_op(pe_session, handle, 1);
}
IVC_MPI_WEAK(T_pvar_reset)

int PMPI_T_pvar_read(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, void *buf)
{
    return pvar_op(pe_session, handle, 0);
}
IVC_MPI_WEAK(T_pvar_read)

int PMPI_T_pvar_write(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, const void *buf)
{
    return pvar_op(pe_session, handle, 0);
}
IVC_MPI_WEAK(T_pvar_write)

int PMPI_T_pvar_readreset(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, void *buf)
{
    return pvar_op(pe_session, handle, 0);
}
IVC_MPI_WEAK(T_pvar_readreset)

/* ---- events: none, so no registration or instance handle can be valid ---- */

int PMPI_T_event_get_num(int *num_events)
{
    CHECK_T_INIT();
    if (num_events == NULL)
        return MPI_T_ERR_INVALID;
    *num_events = 0;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_event_get_num)

int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind)
{
    CHECK_T_INIT();
    return MPI_T_ERR_INVALID_INDEX;
}
IVC_MPI_WEAK(T_event_get_info)

int PMPI_T_event_get_index(const char *name, int *event_index)
{
    CHECK_T_INIT();
    if (name == NULL || event_index == NULL)
        return MPI_T_ERR_INVALID;
    return MPI_T_ERR_INVALID_NAME;
}
IVC_MPI_WEAK(T_event_get_index)

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    CHECK_T_INIT();
    return MPI_T_ERR_INVALID_INDEX;
}
IVC_MPI_WEAK(T_event_handle_alloc)

#define NO_HANDLE()                                                                                \
    do {                                                                                           \
        CHECK_T_INIT();                                                                            \
        return MPI_T_ERR_INVALID_HANDLE;                                                           \
    } while (0)

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function free_cb_function)
{
    NO_HANDLE();
}
IVC_MPI_WEAK(T_event_handle_free)

int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    NO_HANDLE();
}
IVC_MPI_WEAK(T_event_handle_get_info)

int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    NO_HANDLE();
}
IVC_MPI_WEAK(T_event_handle_set_info)

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function event_cb_function)
{
    NO_HANDLE();
}
IVC_MPI_WEAK(T_event_register_callback)

int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
    NO_HANDLE();
}
IVC_MPI_WEAK(T_event_callback_get_info)

int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info)
{
    NO_HANDLE();
}
IVC_MPI_WEAK(T_event_callback_set_info)

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function dropped_cb_function)
{
    NO_HANDLE();
}
IVC_MPI_WEAK(T_event_set_dropped_handler)

int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    NO_HANDLE();
}
IVC_MPI_WEAK(T_event_read)

int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    NO_HANDLE();
}
IVC_MPI_WEAK(T_event_copy)

int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    NO_HANDLE();
}
IVC_MPI_WEAK(T_event_get_timestamp)

int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    NO_HANDLE();
}
IVC_MPI_WEAK(T_event_get_source)

int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    CHECK_T_INIT();
    if (cat_index < 0 || cat_index >= ivc_mpi_t_num_categories())
        return MPI_T_ERR_INVALID_INDEX;
    if (num_events == NULL)
        return MPI_T_ERR_INVALID;
    *num_events = 0;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_category_get_num_events)

int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    CHECK_T_INIT();
    if (cat_index < 0 || cat_index >= ivc_mpi_t_num_categories())
        return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && indices == NULL)) /* as the cvars: an array to fill */
        return MPI_T_ERR_INVALID;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_category_get_events)

/* ---- event sources: the monotonic clock ---- */

int PMPI_T_source_get_num(int *num_sources)
{
    CHECK_T_INIT();
    if (num_sources == NULL)
        return MPI_T_ERR_INVALID;
    *num_sources = 1;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_source_get_num)

int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                           MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                           MPI_Count *max_ticks, MPI_Info *info)
{
    CHECK_T_INIT();
    if (source_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    ivc_mpi_t_string("ivc_monotonic_clock", name, name_len);
    ivc_mpi_t_string("CLOCK_MONOTONIC in nanoseconds, the clock of MPI_Wtime", desc, desc_len);
    if (ordering != NULL)
        *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second != NULL)
        *ticks_per_second = 1000000000;
    if (max_ticks != NULL)
        *max_ticks = INT64_MAX;
    if (info != NULL) {
        int rc = PMPI_Info_create(info); /* no hints: an empty object the caller frees */
        if (rc != MPI_SUCCESS)
            return MPI_T_ERR_MEMORY;
    }
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_source_get_info)

int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    CHECK_T_INIT();
    if (source_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    if (timestamp == NULL)
        return MPI_T_ERR_INVALID;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *timestamp = (MPI_Count)ts.tv_sec * 1000000000 + ts.tv_nsec;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(T_source_get_timestamp)
