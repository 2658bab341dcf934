/* Dynamic processes: MPI_Comm_spawn(_multiple), MPI_Comm_get_parent, ports
 * (MPI_Open_port, MPI_Comm_accept/connect), names (MPI_Publish/Lookup/Unpublish_name),
 * MPI_Comm_join and MPI_Comm_disconnect.
 *
 * Who does what:
 *  - ivcrun starts spawned processes and pairs the two sides of a connection. Every rank it
 *    starts holds IVC_DYN_FD, a SOCK_SEQPACKET socket to ivcrun (tools/ivcrun/dyn_server.h
 *    has the protocol). A spawn's root sends the request; ivcrun starts the children as a
 *    new ivcrun job of their own (own region, own VMs), makes one connected socket pair per
 *    (parent, child) and passes each process its ends (SCM_RIGHTS). Ports work alike:
 *    ivcrun meets an accept and a connect on one port name and pairs their groups.
 *  - The two jobs then talk through those sockets: the coordinator's socket channel
 *    (coord/sock_chan.h) gives every remote process a world id past this job's size; the
 *    intercommunicator is built over those ids by ivc_mpi_intercomm_from_worlds_x, which
 *    agrees on context ids through the two leaders as any intercommunicator constructor.
 *  - Without ivcrun (Hydra, Slurm, a hand-started region, a singleton) there is no
 *    IVC_DYN_FD: spawn, ports and names fail with MPI_ERR_SPAWN / MPI_ERR_PORT /
 *    MPI_ERR_NAME saying so; MPI_Comm_join needs only its socket and works everywhere. */
#include "mpi_impl.h"

#include "../../base/ivc_log.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DYN_MSG_MAX  (64 * 1024)
#define DYN_FDS_MAX  250 /* below SCM_MAX_FD (253) */
#define DYN_JOIN_TAG 0x7ffd

static int dyn_fd = -1;
static MPI_Comm parent_comm = MPI_COMM_NULL;
static int appnum_val = -1, universe_val;

/* ---- the wire to ivcrun: one datagram of NUL-separated words, maybe with descriptors ---- */

typedef struct words {
    char buf[DYN_MSG_MAX];
    size_t len;
    int bad; /* did not fit */
} words_t;

static void w_add(words_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void w_add(words_t *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n =
        w->len < sizeof(w->buf) ? vsnprintf(w->buf + w->len, sizeof(w->buf) - w->len, fmt, ap) : -1;
    va_end(ap);
    if (n < 0 || w->len + (size_t)n + 1 > sizeof(w->buf)) {
        w->bad = 1;
        return;
    }
    w->len += (size_t)n + 1;
}

static int dyn_send(const words_t *w)
{
    if (w->bad)
        return -E2BIG;
    ssize_t n = send(dyn_fd, w->buf, w->len, MSG_NOSIGNAL);
    return n == (ssize_t)w->len ? 0 : -EPIPE;
}

/* Receives one reply: its words split into argv-like pointers into buf. Waits while
 * progressing MPI (a reply may wait for the other side's ranks, which may need this one).
 * Returns the number of words, or -errno. */
static int dyn_recv(words_t *w, char **word, int maxw, int *fds, int maxfds, int *nfds)
{
    *nfds = 0;
    for (;;) {
        struct pollfd p = {dyn_fd, POLLIN, 0};
        int r = poll(&p, 1, 1);
        if (r > 0)
            break;
        ivc_mpi_progress();
    }
    char cbuf[CMSG_SPACE(sizeof(int) * DYN_FDS_MAX)];
    struct iovec iov = {w->buf, sizeof(w->buf) - 1};
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
    ssize_t n = recvmsg(dyn_fd, &mh, MSG_CMSG_CLOEXEC);
    if (n <= 0)
        return -EPIPE;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        int *in = (int *)CMSG_DATA(c);
        for (int i = 0; i < k; i++) {
            if (*nfds < maxfds)
                fds[(*nfds)++] = in[i];
            else
                close(in[i]);
        }
    }
    w->buf[n] = '\0';
    w->len = (size_t)n;
    int nw = 0;
    for (size_t at = 0; at < (size_t)n && nw < maxw;) {
        word[nw++] = w->buf + at;
        at += strlen(w->buf + at) + 1;
    }
    return nw;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

/* A PAIRED reply: "PAIRED" rc tag nremote remote_leader why, and nremote descriptors. The
 * descriptors become world ids (rw, malloc'd). Returns MPI_SUCCESS or an error class (with
 * why[] set). */
static int take_paired(int err_class, int **rw, int *nr, int *tag, int *rleader, char *why,
                       size_t whylen)
{
    static words_t w;
    char *word[8];
    int fds[DYN_FDS_MAX], nfds, rc = 0;
    int nw = dyn_recv(&w, word, 8, fds, DYN_FDS_MAX, &nfds);
    int ok = nw == 6 && !strcmp(word[0], "PAIRED") && parse_int(word[1], 0, INT_MAX, &rc) == 0 &&
             parse_int(word[2], 0, INT_MAX, tag) == 0 &&
             parse_int(word[3], 0, DYN_FDS_MAX, nr) == 0 &&
             parse_int(word[4], 0, DYN_FDS_MAX, rleader) == 0;
    if (!ok || rc != 0 || nfds != *nr || *nr < 1 || *rleader >= *nr) {
        for (int i = 0; i < nfds; i++)
            close(fds[i]);
        snprintf(why, whylen, "%s",
                 nw < 0          ? "ivcrun is gone"
                 : ok && rc != 0 ? word[5]
                                 : "ivcrun's answer is malformed");
        return err_class;
    }
    int *ids = malloc((size_t)*nr * sizeof(int));
    if (ids == NULL) {
        for (int i = 0; i < nfds; i++)
            close(fds[i]);
        snprintf(why, whylen, "out of memory");
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < nfds; i++) {
        if (ivc_coord_sock_add(fds[i], &ids[i]) != 0) {
            for (int j = i + 1; j < nfds; j++)
                close(fds[j]);
            free(ids);
            snprintf(why, whylen, "out of memory");
            return MPI_ERR_NO_MEM;
        }
    }
    /* More processes than the failure tables knew of: they grow on the next failure. */
    *rw = ids;
    return MPI_SUCCESS;
}

/* The intercommunicator between the local group lw (nl) and the remote processes rw (nr),
 * over the sockets just paired. */
static int make_inter(MPI_Comm local, int leader, const int *rw, int nr, int rleader, int tag,
                      int low, MPI_Comm *out)
{
    return ivc_mpi_intercomm_from_worlds_x(local->local_world, local->local_size, leader, rw, nr,
                                           rleader, tag & 0xffff, low, local->errh, out);
}

/* ---- start-up of a spawned process ---- */

int ivc_mpi_dyn_init(void)
{
    const char *s = getenv("IVC_DYN_FD");
    int fd;
    universe_val = ivc_mpi_world_size;
    if (s == NULL || parse_int(s, 0, INT_MAX, &fd) != 0)
        return MPI_SUCCESS;
    dyn_fd = fd;
    const char *u = getenv("IVC_UNIVERSE_SIZE");
    int uv;
    if (u != NULL && parse_int(u, 1, INT_MAX, &uv) == 0)
        universe_val = uv;
    const char *a = getenv("IVC_APPNUM");
    if (a != NULL && parse_int(a, 0, INT_MAX, &appnum_val) != 0)
        appnum_val = -1;
    ivc_mpi_comm_set_dyn_attrs(appnum_val, universe_val);
    if (getenv("IVC_DYN_SPAWNED") == NULL)
        return MPI_SUCCESS;
    /* A spawned process: ivcrun wrote its parents' sockets before it started. */
    int *rw = NULL, nr, tag, rleader;
    char why[256];
    int rc = take_paired(MPI_ERR_SPAWN, &rw, &nr, &tag, &rleader, why, sizeof(why));
    if (rc == MPI_SUCCESS) {
        rc = make_inter(MPI_COMM_WORLD, 0, rw, nr, rleader, tag, 0, &parent_comm);
        free(rw);
    }
    if (rc != MPI_SUCCESS) {
        ivc_error("a spawned process could not connect to its parents: %s",
                  rc == MPI_ERR_SPAWN ? why : "building the intercommunicator failed");
        return rc;
    }
    snprintf(parent_comm->name, sizeof(parent_comm->name), "MPI_COMM_PARENT");
    return MPI_SUCCESS;
}

/* ---- spawn ---- */

static const char *no_launcher =
    "this process was not started by ivcrun (Hydra, Slurm, a hand-started region or a "
    "singleton): dynamic processes need ivcrun, which starts spawned ranks and pairs "
    "connections; MPI_Comm_join works everywhere";

/* The value of key in info, or NULL (into buf). */
static const char *info_val(MPI_Info info, const char *key, char *buf, int len)
{
    int flag = 0, l = len;
    if (info == MPI_INFO_NULL)
        return NULL;
    if (PMPI_Info_get_string(info, key, &l, buf, &flag) != MPI_SUCCESS || !flag)
        return NULL;
    return buf;
}

/* A program named without a '/' is searched in the info key "path" (':'-separated), then
 * left to ivcrun's PATH. */
static void resolve(const char *cmd, const char *path, char *out, size_t len)
{
    snprintf(out, len, "%s", cmd);
    if (path == NULL || strchr(cmd, '/') != NULL)
        return;
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s", path);
    for (char *save = NULL, *d = strtok_r(p, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char f[PATH_MAX];
        snprintf(f, sizeof(f), "%s/%s", d, cmd);
        if (access(f, X_OK) == 0) {
            snprintf(out, len, "%s", f);
            return;
        }
    }
}

/* At the root: the request, or an error class with why[]. */
static int spawn_request(int count, char *cmds[], char **argvs[], const int maxprocs[],
                         const MPI_Info infos[], MPI_Comm comm, int root, char *why, size_t wl,
                         int *total)
{
    static words_t w;
    w.len = 0;
    w.bad = 0;
    if (dyn_fd < 0) {
        snprintf(why, wl, "%s", no_launcher);
        return MPI_ERR_SPAWN;
    }
    w_add(&w, "SPAWN");
    w_add(&w, "%d", comm->local_size);
    w_add(&w, "%d", root);
    for (int i = 0; i < comm->local_size; i++)
        w_add(&w, "%d", comm->local_world[i]);
    w_add(&w, "%d", count);
    *total = 0;
    for (int a = 0; a < count; a++) {
        if (cmds[a] == NULL || maxprocs[a] < 1) {
            snprintf(why, wl, "command %d: %s", a,
                     cmds[a] == NULL ? "no program named" : "maxprocs must be at least 1");
            return MPI_ERR_ARG;
        }
        *total += maxprocs[a];
        char v[PATH_MAX], wdir[PATH_MAX], vm[64], prog[PATH_MAX];
        MPI_Info in = infos != NULL ? infos[a] : MPI_INFO_NULL;
        const char *path = info_val(in, "path", v, sizeof(v));
        resolve(cmds[a], path, prog, sizeof(prog));
        const char *wd = info_val(in, "wdir", wdir, sizeof(wdir));
        if (wd != NULL) {
            struct stat st;
            if (stat(wd, &st) != 0 || !S_ISDIR(st.st_mode)) {
                snprintf(why, wl, "info wdir=%.400s is not a directory", wd);
                return MPI_ERR_INFO_VALUE;
            }
        }
        const char *vmk = info_val(in, "ivc_vm", vm, sizeof(vm));
        if (vmk != NULL && strcmp(vmk, "new") != 0 && strcmp(vmk, "plain") != 0) {
            snprintf(why, wl,
                     "info ivc_vm=%s: a spawn starts its ranks in new simulated VMs (\"new\", "
                     "the default) or as plain processes (\"plain\"); starting them inside a "
                     "VM of the running job is not supported",
                     vmk);
            return MPI_ERR_INFO_VALUE;
        }
        char h[256];
        const char *host = info_val(in, "host", h, sizeof(h));
        char me[256] = "";
        gethostname(me, sizeof(me) - 1);
        if (host != NULL && strcmp(host, "localhost") != 0 && strcmp(host, me) != 0 &&
            strcmp(host, "127.0.0.1") != 0) {
            snprintf(why, wl,
                     "info host=%s: spawned ranks run on this host (%s) only, in new "
                     "simulated VMs",
                     host, me);
            return MPI_ERR_INFO_VALUE;
        }
        w_add(&w, "%d", maxprocs[a]);
        w_add(&w, "%s", prog);
        w_add(&w, "%s", wd != NULL ? wd : "");
        w_add(&w, "%s", vmk != NULL ? vmk : "new");
        int n = 0;
        char **av = argvs != NULL ? argvs[a] : NULL;
        while (av != NULL && av[n] != NULL)
            n++;
        w_add(&w, "%d", n);
        for (int i = 0; i < n; i++)
            w_add(&w, "%s", av[i]);
    }
    if (w.bad) {
        snprintf(why, wl, "the commands and arguments exceed %d bytes", DYN_MSG_MAX);
        return MPI_ERR_SPAWN;
    }
    if (dyn_send(&w) != 0) {
        snprintf(why, wl, "ivcrun is gone");
        return MPI_ERR_SPAWN;
    }
    return MPI_SUCCESS;
}

static int spawn_common(const char *fn, int count, char *cmds[], char **argvs[],
                        const int maxprocs[], const MPI_Info infos[], int root, MPI_Comm comm,
                        MPI_Comm *intercomm, int errcodes[])
{
    CHECK_COMM(comm, fn);
    CHECK_NULL_ARG(comm, intercomm, fn, "intercomm");
    if (comm->inter)
        return ivc_mpi_raise(comm, MPI_ERR_COMM, fn, "comm must be an intracommunicator");
    if (root < 0 || root >= comm->local_size)
        return ivc_mpi_raise(comm, MPI_ERR_ROOT, fn, "root %d is not a rank of comm", root);
    /* The root's status first, so that every rank fails alike when it cannot ask. */
    char why[512] = "";
    int st[2] = {MPI_SUCCESS, 0};
    if (comm->rank == root) {
        if (count < 1)
            st[0] = MPI_ERR_ARG, snprintf(why, sizeof(why), "count must be at least 1");
        else
            st[0] = spawn_request(count, cmds, argvs, maxprocs, infos, comm, root, why, sizeof(why),
                                  &st[1]);
    }
    if (comm->rank != root)
        st[0] = st[1] = 0;
    int rc = ivc_mpi_coll_allreduce(MPI_IN_PLACE, st, 2, MPI_INT, MPI_BOR, comm);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "telling the group the root's status failed");
    if (st[0] != MPI_SUCCESS)
        return ivc_mpi_raise(comm, st[0], fn, "%s",
                             comm->rank == root ? why : "the root could not spawn (it says why)");
    if (dyn_fd < 0)
        return ivc_mpi_raise(comm, MPI_ERR_SPAWN, fn, "%s", no_launcher);
    int *rw = NULL, nr, tag, rleader;
    rc = take_paired(MPI_ERR_SPAWN, &rw, &nr, &tag, &rleader, why, sizeof(why));
    if (rc == MPI_SUCCESS) {
        rc = make_inter(comm, root, rw, nr, rleader, tag, 1, intercomm);
        free(rw);
        if (rc == MPI_ERR_PROC_FAILED) {
            rc = MPI_ERR_SPAWN; /* e.g. the program could not be run: ivcrun said why */
            snprintf(why, sizeof(why),
                     "the spawned processes did not start or ended before "
                     "they connected (ivcrun's message says why)");
        } else if (rc != MPI_SUCCESS) {
            snprintf(why, sizeof(why), "connecting to the spawned processes failed");
        }
    }
    if (errcodes != MPI_ERRCODES_IGNORE)
        for (int i = 0; i < st[1]; i++)
            errcodes[i] = rc;
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "%s", why);
    return MPI_SUCCESS;
}

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    char *cmd = (char *)command;
    char **av[1] = {argv};
    MPI_Info in[1] = {info};
    return spawn_common("MPI_Comm_spawn", 1, &cmd, av, &maxprocs, in, root, comm, intercomm,
                        array_of_errcodes);
}
IVC_MPI_WEAK(Comm_spawn)

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    const char *fn = "MPI_Comm_spawn_multiple";
    CHECK_COMM(comm, fn);
    if (comm->rank == root) {
        CHECK_NULL_ARG(comm, array_of_commands, fn, "array_of_commands");
        CHECK_NULL_ARG(comm, array_of_maxprocs, fn, "array_of_maxprocs");
    }
    return spawn_common(fn, count, array_of_commands, array_of_argv, array_of_maxprocs,
                        array_of_info, root, comm, intercomm, array_of_errcodes);
}
IVC_MPI_WEAK(Comm_spawn_multiple)

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    int rc = ivc_mpi_check_init("MPI_Comm_get_parent");
    if (rc != MPI_SUCCESS)
        return rc;
    CHECK_NULL_ARG(MPI_COMM_WORLD, parent, "MPI_Comm_get_parent", "parent");
    *parent = ivc_mpi_comm_valid(parent_comm) ? parent_comm : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_get_parent)

int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    const char *fn = "MPI_Comm_disconnect";
    CHECK_NULL_ARG(MPI_COMM_WORLD, comm, fn, "comm");
    CHECK_COMM(*comm, fn);
    MPI_Comm c = *comm;
    if (c->predefined)
        return ivc_mpi_raise(c, MPI_ERR_COMM, fn, "%s cannot be disconnected", c->name);
    /* Every pending communication completes: the barrier is the last message on c. */
    int rc = PMPI_Barrier(c);
    for (int i = 0; i < c->size; i++)
        if (c->world[i] >= ivc_mpi_world_size)
            ivc_coord_sock_bye(c->world[i]);
    if (c == parent_comm)
        parent_comm = MPI_COMM_NULL;
    int frc = PMPI_Comm_free(comm);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(MPI_COMM_WORLD, rc, fn, "completing the communication failed");
    return frc;
}
IVC_MPI_WEAK(Comm_disconnect)

/* ---- ports and names ---- */

/* Sends the words and reads back "OK" value / "ERR" text. Returns 0 or -1 (why[]). */
static int ask(words_t *w, char *val, size_t vlen)
{
    if (dyn_fd < 0) {
        snprintf(val, vlen, "%s", no_launcher);
        return -1;
    }
    if (dyn_send(w) != 0) {
        snprintf(val, vlen, "ivcrun is gone");
        return -1;
    }
    static words_t r;
    char *word[4];
    int fds[1], nfds;
    int n = dyn_recv(&r, word, 4, fds, 1, &nfds);
    for (int i = 0; i < nfds; i++)
        close(fds[i]);
    if (n != 2 || (strcmp(word[0], "OK") != 0 && strcmp(word[0], "ERR") != 0)) {
        snprintf(val, vlen, "ivcrun's answer is malformed");
        return -1;
    }
    snprintf(val, vlen, "%s", word[1]);
    return strcmp(word[0], "OK") == 0 ? 0 : -1;
}

int PMPI_Open_port(MPI_Info info, char *port_name)
{
    const char *fn = "MPI_Open_port";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    CHECK_NULL_ARG(MPI_COMM_WORLD, port_name, fn, "port_name");
    words_t w = {.len = 0};
    w_add(&w, "OPEN");
    char val[MPI_MAX_PORT_NAME];
    if (ask(&w, val, sizeof(val)) != 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_PORT, fn, "%s", val);
    snprintf(port_name, MPI_MAX_PORT_NAME, "%s", val);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Open_port)

int PMPI_Close_port(const char *port_name)
{
    const char *fn = "MPI_Close_port";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    CHECK_NULL_ARG(MPI_COMM_WORLD, port_name, fn, "port_name");
    words_t w = {.len = 0};
    w_add(&w, "CLOSE");
    w_add(&w, "%s", port_name);
    char val[MPI_MAX_PORT_NAME + 64];
    if (ask(&w, val, sizeof(val)) != 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_PORT, fn, "%s", val);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Close_port)

static int accept_connect(const char *fn, const char *verb, int low, const char *port_name,
                          int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    CHECK_COMM(comm, fn);
    CHECK_NULL_ARG(comm, newcomm, fn, "newcomm");
    if (comm->inter)
        return ivc_mpi_raise(comm, MPI_ERR_COMM, fn, "comm must be an intracommunicator");
    if (root < 0 || root >= comm->local_size)
        return ivc_mpi_raise(comm, MPI_ERR_ROOT, fn, "root %d is not a rank of comm", root);
    char why[512] = "";
    int st = MPI_SUCCESS;
    if (comm->rank == root) {
        static words_t w;
        w.len = 0;
        w.bad = 0;
        if (port_name == NULL) {
            st = MPI_ERR_ARG;
            snprintf(why, sizeof(why), "NULL port_name");
        } else if (dyn_fd < 0) {
            st = MPI_ERR_PORT;
            snprintf(why, sizeof(why), "%s", no_launcher);
        } else {
            w_add(&w, "%s", verb);
            w_add(&w, "%s", port_name);
            w_add(&w, "%d", comm->local_size);
            w_add(&w, "%d", root);
            for (int i = 0; i < comm->local_size; i++)
                w_add(&w, "%d", comm->local_world[i]);
            if (dyn_send(&w) != 0) {
                st = MPI_ERR_PORT;
                snprintf(why, sizeof(why), "ivcrun is gone (or the group is too large)");
            }
        }
    }
    int rc = ivc_mpi_coll_allreduce(MPI_IN_PLACE, &st, 1, MPI_INT, MPI_BOR, comm);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "telling the group the root's status failed");
    if (st != MPI_SUCCESS)
        return ivc_mpi_raise(comm, st, fn, "%s",
                             comm->rank == root ? why : "the root could not ask (it says why)");
    int *rw = NULL, nr, tag, rleader;
    rc = take_paired(MPI_ERR_PORT, &rw, &nr, &tag, &rleader, why, sizeof(why));
    if (rc == MPI_SUCCESS) {
        rc = make_inter(comm, root, rw, nr, rleader, tag, low, newcomm);
        free(rw);
        if (rc != MPI_SUCCESS)
            snprintf(why, sizeof(why), "building the intercommunicator failed");
    }
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "%s", why);
    return MPI_SUCCESS;
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    return accept_connect("MPI_Comm_accept", "ACCEPT", 1, port_name, root, comm, newcomm);
}
IVC_MPI_WEAK(Comm_accept)

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm)
{
    return accept_connect("MPI_Comm_connect", "CONNECT", 0, port_name, root, comm, newcomm);
}
IVC_MPI_WEAK(Comm_connect)

static int name_op(const char *fn, const char *verb, const char *service, const char *port,
                   char *out)
{
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    CHECK_NULL_ARG(MPI_COMM_WORLD, service, fn, "service_name");
    words_t w = {.len = 0};
    w_add(&w, "%s", verb);
    w_add(&w, "%s", service);
    if (port != NULL)
        w_add(&w, "%s", port);
    char val[MPI_MAX_PORT_NAME + 256];
    if (w.bad || ask(&w, val, sizeof(val)) != 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NAME, fn, "%s: %s", service,
                             w.bad ? "too long" : val);
    if (out != NULL)
        snprintf(out, MPI_MAX_PORT_NAME, "%.*s", MPI_MAX_PORT_NAME - 1, val);
    return MPI_SUCCESS;
}

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    CHECK_NULL_ARG(MPI_COMM_WORLD, port_name, "MPI_Publish_name", "port_name");
    return name_op("MPI_Publish_name", "PUBLISH", service_name, port_name, NULL);
}
IVC_MPI_WEAK(Publish_name)

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    return name_op("MPI_Unpublish_name", "UNPUBLISH", service_name, NULL, NULL);
}
IVC_MPI_WEAK(Unpublish_name)

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    CHECK_NULL_ARG(MPI_COMM_WORLD, port_name, "MPI_Lookup_name", "port_name");
    return name_op("MPI_Lookup_name", "LOOKUP", service_name, NULL, port_name);
}
IVC_MPI_WEAK(Lookup_name)

/* ---- join ---- */

static int full_io(int fd, void *buf, size_t len, int wr)
{
    size_t at = 0;
    while (at < len) {
        ssize_t n = wr ? send(fd, (char *)buf + at, len - at, MSG_NOSIGNAL)
                       : recv(fd, (char *)buf + at, len - at, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        at += (size_t)n;
    }
    return 0;
}

int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    const char *fn = "MPI_Comm_join";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    CHECK_NULL_ARG(MPI_COMM_SELF, intercomm, fn, "intercomm");
    /* Which side leads: both send a random number until they differ. */
    uint64_t mine, theirs;
    int low = -1;
    for (int round = 0; round < 16 && low < 0; round++) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t t = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
        mine = (t * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)getpid() << 20) ^ (uint64_t)round;
        if (full_io(fd, &mine, sizeof(mine), 1) != 0 ||
            full_io(fd, &theirs, sizeof(theirs), 0) != 0)
            return ivc_mpi_raise(MPI_COMM_SELF, MPI_ERR_OTHER, fn,
                                 "the socket %d is not connected to a process in MPI_Comm_join",
                                 fd);
        if (mine != theirs)
            low = mine < theirs;
    }
    if (low < 0)
        return ivc_mpi_raise(MPI_COMM_SELF, MPI_ERR_INTERN, fn, "the two sides could not agree");
    int dup_fd = dup(fd);
    int id;
    if (dup_fd < 0 || ivc_coord_sock_add(dup_fd, &id) != 0)
        return ivc_mpi_raise(MPI_COMM_SELF, MPI_ERR_NO_MEM, fn, "cannot take the socket");
    int self = ivc_mpi_world_rank;
    rc = ivc_mpi_intercomm_from_worlds_x(&self, 1, 0, &id, 1, 0, DYN_JOIN_TAG, low,
                                         MPI_COMM_SELF->errh, intercomm);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(MPI_COMM_SELF, rc, fn, "building the intercommunicator failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_join)
