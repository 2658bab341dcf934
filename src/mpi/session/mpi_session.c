/* The sessions model (MPI-4): sessions, process sets, and communicators made from groups.
 *
 * A session holds a reference on the runtime that MPI_Init also starts (mpi_init.c), so the
 * two models coexist in one process: the first of MPI_Init / MPI_Session_init starts it (all
 * ranks of the job must do so: the bootstrap waits for them), the last of MPI_Finalize /
 * MPI_Session_finalize tears it down.
 *
 * Process sets: "mpi://WORLD" (every rank of the job), "mpi://SELF" (this process) and
 * "ivc://host" (the ranks that share this rank's inter-VM shared-memory region, whichever
 * simulated or real VM they run in: the ranks MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)
 * groups). Their info has "mpi_size".
 *
 * Thread level: the "thread_level" info key asks for one (default MPI_THREAD_SERIALIZED, or
 * MPI_THREAD_MULTIPLE once the process has it); MPI_THREAD_MULTIPLE is granted as by
 * MPI_Init_thread (env/mpi_init.c: only by the call that starts the runtime), and
 * MPI_Session_get_info says what was.
 *
 * MPI_Comm_create_from_group agrees on a context id among the group's members only, over a
 * stand-in communicator of the group whose context is derived from the string tag:
 * 0x80000000 | (hash(tag) & 0x0ffffffe). That range is no communicator's (those are below
 * 2^13), nor partitioned traffic's (0x40000000 + ctx) nor one-sided's (0xfffffff0), so calls
 * with different tags never take each other's messages, whatever order their members make
 * them in. Calls with the same tag and overlapping groups must be made in the same order by
 * their common members (as for any collective). */
#include "mpi_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SESSION_MAGIC 0x53455353u

struct ivc_mpi_session_s {
    uint32_t magic;
    MPI_Errhandler errh;
    int thread_level;
    struct ivc_mpi_bbuf *bbuf; /* MPI_Session_attach_buffer's buffer or NULL (p2p.h) */
};

static int session_valid(MPI_Session s)
{
    return s != MPI_SESSION_NULL && s->magic == SESSION_MAGIC;
}

/* Raises class cls on session s through handler h. */
static int session_raise(MPI_Session s, MPI_Errhandler h, int cls, const char *fn,
                         const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int session_raise(MPI_Session s, MPI_Errhandler h, int cls, const char *fn,
                         const char *fmt, ...)
{
    char detail[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    return ivc_mpi_errh_invoke(h, ERRH_OBJ_SESSION, &s, cls, fn, detail);
}

#define RAISE(s, cls, fn, ...) session_raise(s, (s)->errh, cls, fn, __VA_ARGS__)

/* An invalid session handle goes to the initial error handler (MPI_COMM_WORLD's). */
#define CHECK_SESSION(s, fn)                                                                       \
    do {                                                                                           \
        if (!session_valid(s))                                                                     \
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_SESSION, fn, "invalid session");          \
    } while (0)

static int parse_level(const char *v)
{
    for (int l = MPI_THREAD_SINGLE; l <= MPI_THREAD_MULTIPLE; l++)
        if (strcmp(v, ivc_mpi_thread_level_name(l)) == 0)
            return l;
    return -1;
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    const char *fn = "MPI_Session_init";
    if (!ivc_mpi_errh_usable(errhandler, ERRH_OBJ_SESSION))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ERRHANDLER, fn,
                             "not a predefined or session error handler");
    if (session == NULL)
        return session_raise(MPI_SESSION_NULL, errhandler, MPI_ERR_ARG, fn, "NULL session");
    if (info != MPI_INFO_NULL && (info == NULL || info->magic != INFO_MAGIC))
        return session_raise(MPI_SESSION_NULL, errhandler, MPI_ERR_INFO, fn, "invalid info");
    int level = ivc_mpi_multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SERIALIZED;
    if (info != MPI_INFO_NULL) {
        char v[32];
        int len = sizeof(v), flag = 0;
        if (PMPI_Info_get_string(info, "thread_level", &len, v, &flag) == MPI_SUCCESS && flag &&
            parse_level(v) >= 0)
            level = parse_level(v);
    }
    MPI_Session s = calloc(1, sizeof(*s));
    if (s == NULL)
        return session_raise(MPI_SESSION_NULL, errhandler, MPI_ERR_NO_MEM, fn, "out of memory");
    s->thread_level = ivc_mpi_thread_level(level, 0); /* before the runtime starts */
    int rc = ivc_mpi_runtime_start();
    if (rc != MPI_SUCCESS) {
        free(s);
        return session_raise(MPI_SESSION_NULL, errhandler, rc, fn,
                             "MPI has been finalized in this process and cannot start again");
    }
    s->magic = SESSION_MAGIC;
    s->errh = errhandler;
    ivc_mpi_errh_retain(errhandler);
    *session = s;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Session_init)

int PMPI_Session_finalize(MPI_Session *session)
{
    const char *fn = "MPI_Session_finalize";
    if (session == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    MPI_Session s = *session;
    CHECK_SESSION(s, fn);
    if (s->bbuf != NULL) /* delivers what is buffered, as MPI_Session_detach_buffer would */
        ivc_mpi_bbuf_detach(&s->bbuf, NULL, NULL);
    int rc = ivc_mpi_runtime_stop();
    MPI_Errhandler h = s->errh;
    s->magic = 0;
    free(s);
    *session = MPI_SESSION_NULL;
    if (rc != MPI_SUCCESS) {
        rc = session_raise(MPI_SESSION_NULL, h, rc, fn, "the final barrier failed");
        ivc_mpi_errh_release(h);
        return rc;
    }
    ivc_mpi_errh_release(h);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Session_finalize)

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    const char *fn = "MPI_Session_get_info";
    CHECK_SESSION(session, fn);
    if (info_used == NULL)
        return RAISE(session, MPI_ERR_ARG, fn, "NULL output argument");
    MPI_Info n;
    int rc = PMPI_Info_create(&n);
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Info_set(n, "thread_level", ivc_mpi_thread_level_name(session->thread_level));
        if (rc != MPI_SUCCESS)
            PMPI_Info_free(&n);
    }
    if (rc != MPI_SUCCESS)
        return RAISE(session, rc, fn, "out of memory");
    *info_used = n;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Session_get_info)

/* ---- error handlers ---- */

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    const char *fn = "MPI_Session_set_errhandler";
    CHECK_SESSION(session, fn);
    if (!ivc_mpi_errh_usable(errhandler, ERRH_OBJ_SESSION))
        return RAISE(session, MPI_ERR_ERRHANDLER, fn, "not a predefined or session error handler");
    ivc_mpi_errh_retain(errhandler);
    ivc_mpi_errh_release(session->errh);
    session->errh = errhandler;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Session_set_errhandler)

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_Session_get_errhandler";
    CHECK_SESSION(session, fn);
    if (errhandler == NULL)
        return RAISE(session, MPI_ERR_ARG, fn, "NULL output argument");
    ivc_mpi_errh_retain(session->errh);
    *errhandler = session->errh;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Session_get_errhandler)

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    const char *fn = "MPI_Session_call_errhandler";
    CHECK_SESSION(session, fn);
    RAISE(session, errorcode, fn, "error raised by the program");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Session_call_errhandler)

/* ---- process sets ---- */

enum { PSET_WORLD, PSET_SELF, PSET_HOST, NPSETS };
static const char *const pset_names[NPSETS] = {"mpi://WORLD", "mpi://SELF", "ivc://host"};

/* The world ranks of pset p: a new array (*n entries), NULL without memory. */
static int *pset_members(int p, int *n)
{
    int *w;
    switch (p) {
    case PSET_WORLD:
        w = malloc((size_t)ivc_mpi_world_size * sizeof(int));
        for (int i = 0; w != NULL && i < ivc_mpi_world_size; i++)
            w[i] = i;
        *n = ivc_mpi_world_size;
        return w;
    case PSET_HOST:
        if (ivc_coord.local != NULL && ivc_coord.nlocal > 0) {
            w = malloc((size_t)ivc_coord.nlocal * sizeof(int));
            for (uint32_t i = 0; w != NULL && i < ivc_coord.nlocal; i++)
                w[i] = (int)ivc_coord.local[i];
            *n = (int)ivc_coord.nlocal;
            return w;
        }
        /* alone: the host is this process */
        /* fall through */
    default:
        w = malloc(sizeof(int));
        if (w != NULL)
            w[0] = ivc_mpi_world_rank;
        *n = 1;
        return w;
    }
}

/* Names compare without regard to case: the standard spells them mpi://WORLD and
 * mpi://SELF, and programs written for MPICH and Open MPI (which compare so) also use
 * mpi://world and mpi://self (MPICH's own tests do). */
static int pset_find(const char *name)
{
    if (name == NULL)
        return -1;
    for (int p = 0; p < NPSETS; p++)
        if (strcasecmp(name, pset_names[p]) == 0)
            return p;
    return -1;
}

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    const char *fn = "MPI_Session_get_num_psets";
    CHECK_SESSION(session, fn);
    if (npset_names == NULL)
        return RAISE(session, MPI_ERR_ARG, fn, "NULL output argument");
    *npset_names = NPSETS;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Session_get_num_psets)

/* pset_len counts the NUL: 0 asks for the length only; a longer name is truncated. On
 * return it is the length the whole name needs. */
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                              char *pset_name)
{
    const char *fn = "MPI_Session_get_nth_pset";
    CHECK_SESSION(session, fn);
    if (n < 0 || n >= NPSETS)
        return RAISE(session, MPI_ERR_ARG, fn, "process set %d of %d does not exist", n, NPSETS);
    if (pset_len == NULL || *pset_len < 0 || (*pset_len > 0 && pset_name == NULL))
        return RAISE(session, MPI_ERR_ARG, fn, "invalid pset_len or pset_name");
    size_t len = strlen(pset_names[n]);
    if (*pset_len > 0) {
        size_t m = len < (size_t)*pset_len - 1 ? len : (size_t)*pset_len - 1;
        memcpy(pset_name, pset_names[n], m);
        pset_name[m] = '\0';
    }
    *pset_len = (int)len + 1;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Session_get_nth_pset)

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    const char *fn = "MPI_Session_get_pset_info";
    CHECK_SESSION(session, fn);
    int p = pset_find(pset_name);
    if (p < 0)
        return RAISE(session, MPI_ERR_ARG, fn, "no process set \"%s\"",
                     pset_name ? pset_name : "(null)");
    if (info == NULL)
        return RAISE(session, MPI_ERR_ARG, fn, "NULL output argument");
    int n;
    int *w = pset_members(p, &n);
    MPI_Info i;
    int rc = w != NULL ? PMPI_Info_create(&i) : MPI_ERR_NO_MEM;
    free(w);
    if (rc == MPI_SUCCESS) {
        char buf[16];
        snprintf(buf, sizeof(buf), "%d", n);
        rc = PMPI_Info_set(i, "mpi_size", buf);
        if (rc != MPI_SUCCESS)
            PMPI_Info_free(&i);
    }
    if (rc != MPI_SUCCESS)
        return RAISE(session, rc, fn, "out of memory");
    *info = i;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Session_get_pset_info)

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_from_session_pset";
    CHECK_SESSION(session, fn);
    int p = pset_find(pset_name);
    if (p < 0)
        return RAISE(session, MPI_ERR_ARG, fn, "no process set \"%s\"",
                     pset_name ? pset_name : "(null)");
    if (newgroup == NULL)
        return RAISE(session, MPI_ERR_ARG, fn, "NULL output argument");
    int n;
    int *w = pset_members(p, &n);
    MPI_Group g = w != NULL ? ivc_mpi_group_new(w, n) : NULL;
    free(w);
    if (g == NULL)
        return RAISE(session, MPI_ERR_NO_MEM, fn, "out of memory");
    *newgroup = g;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Group_from_session_pset)

/* ---- communicators from groups ---- */

static uint32_t tag_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s != '\0'; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* Errors of the two constructors go to the handler they were given (MPI 4.1 sec. 7.4.2),
 * called with MPI_COMM_NULL; without a usable one, to the initial handler. */
static int from_group_raise(MPI_Errhandler errh, int cls, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int from_group_raise(MPI_Errhandler errh, int cls, const char *fn, const char *fmt, ...)
{
    char detail[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    if (!ivc_mpi_errh_usable(errh, ERRH_OBJ_COMM))
        return ivc_mpi_raise(MPI_COMM_WORLD, cls, fn, "%s", detail);
    MPI_Comm none = MPI_COMM_NULL;
    return ivc_mpi_errh_invoke(errh, ERRH_OBJ_COMM, &none, cls, fn, detail);
}

/* Checks shared by both constructors. */
static int check_from_group(MPI_Group g, const char *stringtag, MPI_Info info,
                            MPI_Errhandler errh, void *out, const char *fn)
{
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ivc_mpi_errh_usable(errh, ERRH_OBJ_COMM))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ERRHANDLER, fn,
                             "not a predefined or communicator error handler");
    if (!ivc_mpi_group_valid(g))
        return from_group_raise(errh, MPI_ERR_GROUP, fn, "invalid group");
    if (stringtag == NULL || strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN)
        return from_group_raise(errh, MPI_ERR_ARG, fn,
                                "the string tag must have fewer than %d characters",
                                MPI_MAX_STRINGTAG_LEN);
    if (info != MPI_INFO_NULL && (info == NULL || info->magic != INFO_MAGIC))
        return from_group_raise(errh, MPI_ERR_INFO, fn, "invalid info");
    if (out == NULL)
        return from_group_raise(errh, MPI_ERR_ARG, fn, "NULL output argument");
    if (g->rank == MPI_UNDEFINED)
        return from_group_raise(errh, MPI_ERR_GROUP, fn,
                                "the calling process is not a member of the group");
    return MPI_SUCCESS;
}

int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create_from_group";
    int rc = check_from_group(group, stringtag, info, errhandler, newcomm, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The stand-in: the group on the tag's context, with the new communicator's handler (the
     * constructor gives the new communicator its parent's). */
    struct ivc_mpi_comm_s tmp;
    memset(&tmp, 0, sizeof(tmp));
    tmp.magic = COMM_MAGIC;
    tmp.ctx = 0x80000000u | (tag_hash(stringtag) & 0x0ffffffeu);
    tmp.rank = group->rank;
    tmp.size = tmp.local_size = group->size;
    tmp.world = tmp.local_world = group->world;
    tmp.errh = errhandler;
    tmp.predefined = 1; /* requests neither retain nor free it */
    tmp.standin = 1;
    int *w = malloc((size_t)group->size * sizeof(int));
    if (w == NULL)
        return from_group_raise(errhandler, MPI_ERR_NO_MEM, fn, "out of memory");
    memcpy(w, group->world, (size_t)group->size * sizeof(int));
    rc = ivc_mpi_comm_make(&tmp, &tmp, 1, w, group->size, newcomm);
    if (rc != MPI_SUCCESS)
        return from_group_raise(errhandler, rc, fn, "creating the communicator failed");
    if (info != MPI_INFO_NULL && (rc = ivc_mpi_comm_info_set(*newcomm, info, 1)) != MPI_SUCCESS)
        return ivc_mpi_raise(*newcomm, rc, fn, "storing the hints failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_create_from_group)

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    const char *fn = "MPI_Intercomm_create_from_groups";
    int rc = check_from_group(local_group, stringtag, info, errhandler, newintercomm, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ivc_mpi_group_valid(remote_group))
        return from_group_raise(errhandler, MPI_ERR_GROUP, fn, "invalid remote group");
    if (local_leader < 0 || local_leader >= local_group->size)
        return from_group_raise(errhandler, MPI_ERR_RANK, fn, "local leader %d of %d",
                                local_leader, local_group->size);
    if (remote_leader < 0 || remote_leader >= remote_group->size)
        return from_group_raise(errhandler, MPI_ERR_RANK, fn, "remote leader %d of %d",
                                remote_leader, remote_group->size);
    if (remote_group->rank != MPI_UNDEFINED)
        return from_group_raise(errhandler, MPI_ERR_GROUP, fn,
                                "the local and remote groups overlap");
    rc = ivc_mpi_intercomm_from_worlds(local_group->world, local_group->size, local_leader,
                                       remote_group->world, remote_group->size, remote_leader,
                                       (int)(tag_hash(stringtag) & 0x7fffffffu), errhandler,
                                       newintercomm);
    if (rc != MPI_SUCCESS)
        return from_group_raise(errhandler, rc, fn, "creating the intercommunicator failed");
    if (info != MPI_INFO_NULL &&
        (rc = ivc_mpi_comm_info_set(*newintercomm, info, 1)) != MPI_SUCCESS)
        return ivc_mpi_raise(*newintercomm, rc, fn, "storing the hints failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Intercomm_create_from_groups)

/* ---- the session's buffer for buffered sends (p2p room, mpi_bsend.c) ---- */

int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    const char *fn = "MPI_Session_attach_buffer";
    CHECK_SESSION(session, fn);
    int rc = ivc_mpi_bbuf_attach(&session->bbuf, buffer, size);
    if (rc != MPI_SUCCESS)
        return RAISE(session, rc, fn, "cannot attach the buffer");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Session_attach_buffer)

int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
    const char *fn = "MPI_Session_detach_buffer";
    CHECK_SESSION(session, fn);
    if (buffer_addr == NULL || size == NULL)
        return RAISE(session, MPI_ERR_ARG, fn, "NULL output argument");
    MPI_Count n;
    int rc = ivc_mpi_bbuf_detach(&session->bbuf, buffer_addr, &n);
    if (rc != MPI_SUCCESS)
        return RAISE(session, rc, fn, "no buffer is attached to the session");
    *size = (int)n; /* attached through the int form (the _c form narrows) */
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Session_detach_buffer)

int PMPI_Session_flush_buffer(MPI_Session session)
{
    const char *fn = "MPI_Session_flush_buffer";
    CHECK_SESSION(session, fn);
    int rc = session->bbuf != NULL ? ivc_mpi_bbuf_flush(session->bbuf) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        return RAISE(session, rc, fn, "flushing the buffer failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Session_flush_buffer)

int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    const char *fn = "MPI_Session_iflush_buffer";
    CHECK_SESSION(session, fn);
    if (request == NULL)
        return RAISE(session, MPI_ERR_ARG, fn, "NULL request");
    /* Nothing attached: a request that is complete at once. */
    int rc = session->bbuf != NULL ? ivc_mpi_bbuf_iflush(session->bbuf, MPI_COMM_SELF, request)
                                   : PMPI_Ibarrier(MPI_COMM_SELF, request);
    if (rc != MPI_SUCCESS)
        return RAISE(session, rc, fn, "flushing the buffer failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Session_iflush_buffer)
