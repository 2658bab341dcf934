#define _GNU_SOURCE
#include "job.h"

#include "bind.h"
#include "elfdeps.h"
#include "fabric.h"
#include "pmi_server.h"
#include "rank.h"
#include "sect_broker.h"
#include "dyn_server.h"
#include "vm.h"
#include "vm_init.h"

#include "shm/shm_coll_config.h"
#include "shm/shm_config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <unistd.h>

static int new_pipe(int p[2], const char *what)
{
    if (pipe2(p, O_CLOEXEC) == 0)
        return 0;
    int err = errno;
    fprintf(stderr, "ivcrun: cannot create the %s pipe: %s\n", what, strerror(err));
    return -err;
}

int job_init(job_t *job, const ivcrun_opts_t *opts)
{
    uint32_t n = opts->nranks, m = opts->nvms;
    job->opts = opts;
    job->lifeline = -1;
    job->go[0] = job->go[1] = -1;
    job->uid = geteuid();
    job->gid = getegid();
    job->nhosts = opts->hosts;
    job->ranks = calloc(n, sizeof(*job->ranks));
    job->vms = calloc(m, sizeof(*job->vms));
    job->regions = calloc(job->nhosts, sizeof(*job->regions));
    job->region_paths = calloc(job->nhosts, sizeof(*job->region_paths));
    job->vm_ranks = calloc(n, sizeof(*job->vm_ranks));
    job->progs = calloc(opts->napps, sizeof(*job->progs));
    if (job->ranks == NULL || job->vms == NULL || job->regions == NULL ||
        job->region_paths == NULL || job->vm_ranks == NULL || job->progs == NULL) {
        fprintf(stderr, "ivcrun: out of memory\n");
        goto err_free; /* job_fini() must not see tables with descriptor 0 in them */
    }
    for (uint32_t a = 0; a < opts->napps; a++)
        job->progs[a].fd = -1;
    if (opts->nmoves > 0) {
        if ((job->vm_host = calloc(m, sizeof(*job->vm_host))) == NULL) {
            fprintf(stderr, "ivcrun: out of memory\n");
            goto err_free;
        }
        for (uint32_t k = 0; k < m; k++)
            job->vm_host[k] = k / opts->vms_per_host;
    }
    /* Blocks: the first n % m VMs get one rank more than the others; or as placed. */
    for (uint32_t k = 0, r = 0; k < m; k++) {
        uint32_t count = n / m + (k < n % m);
        for (uint32_t i = 0; i < count; i++, r++)
            job->ranks[r].vm = k;
    }
    for (uint32_t r = 0; opts->rank_vm != NULL && r < n; r++)
        job->ranks[r].vm = opts->rank_vm[r];
    for (uint32_t r = 0; r < n; r++)
        job->vms[job->ranks[r].vm].count++;
    for (uint32_t k = 0, at = 0; k < m; k++) {
        job_vm_t *v = &job->vms[k];
        v->ranks = job->vm_ranks + at;
        at += v->count;
        v->count = 0;
        v->status[0] = v->status[1] = -1;
    }
    for (uint32_t r = 0; r < n; r++) {
        job_vm_t *v = &job->vms[job->ranks[r].vm];
        v->ranks[v->count++] = r;
        job->ranks[r].out[0] = job->ranks[r].out[1] = -1;
        job->ranks[r].err[0] = job->ranks[r].err[1] = -1;
        job->ranks[r].outfile = job->ranks[r].errfile = -1;
    }
    for (uint32_t r = 0; opts->tag_output && r < n; r++) {
        int rc = new_pipe(job->ranks[r].out, "output");
        if (rc == 0)
            rc = new_pipe(job->ranks[r].err, "output");
        if (rc != 0)
            return rc; /* job_fini() closes what was opened */
    }
    return 0;

err_free:
    free(job->vm_host);
    job->vm_host = NULL;
    free(job->ranks);
    free(job->vms);
    free(job->regions);
    free(job->region_paths);
    free(job->vm_ranks);
    free(job->progs);
    job->ranks = NULL;
    job->vms = NULL;
    job->regions = NULL;
    job->region_paths = NULL;
    job->vm_ranks = NULL;
    job->progs = NULL;
    return -ENOMEM;
}

/* Bytes of each rank's write-exclusive section (region/region_sect.h), 0 for none: what a
 * rank puts there (its shared-memory channel block and its collective area, each
 * page-aligned) for as many co-located ranks as its host has. None when VMs migrate (a
 * rank's memory must then follow it to another host's region), when IVC_MIGRATE=1 asks for
 * the same, or with IVC_SECTIONS=no. */
static uint64_t job_sections_size(const job_t *job)
{
    const char *mig = getenv("IVC_MIGRATE");
    if (job->opts->nranks < 2 || job->opts->nmoves > 0 || (mig != NULL && strcmp(mig, "1") == 0))
        return 0;
    uint32_t *count = calloc(job->nhosts, sizeof(*count));
    if (count == NULL)
        return 0;
    for (uint32_t r = 0; r < job->opts->nranks; r++)
        count[job_host_of(job, r) < job->nhosts ? job_host_of(job, r) : 0]++;
    uint64_t most = 0;
    for (uint32_t h = 0; h < job->nhosts; h++) {
        uint64_t need = ivc_shm_section_bytes(count[h], job->opts->nranks);
        most = need > most ? need : most;
    }
    free(count);
    return most;
}

int job_region_create(job_t *job, uint64_t size)
{
    /* A random nonzero id whose file does not exist yet: O_EXCL claims the name, so two
     * jobs never share (or truncate) a region. */
    for (int tries = 0;; tries++) {
        uint32_t id;
        if (getrandom(&id, sizeof(id), 0) != sizeof(id)) {
            int err = errno;
            fprintf(stderr, "ivcrun: cannot draw a job id: getrandom: %s\n", strerror(err));
            return -err;
        }
        if (id == 0)
            continue;
        snprintf(job->region_paths[0], PATH_MAX, "/dev/shm/ivc-%u%s", id,
                 job->nhosts > 1 ? "-h0" : "");
        int fd = open(job->region_paths[0], O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0) {
            close(fd);
            job->id = id;
            break;
        }
        if (errno != EEXIST || tries > 100) {
            int err = errno;
            fprintf(stderr, "ivcrun: cannot create %s: %s\n", job->region_paths[0], strerror(err));
            return -err;
        }
    }
    job->sec_size = job_sections_size(job);
    /* The other hosts' names follow from the first one, which claimed the id. */
    for (uint32_t h = 1; h < job->nhosts; h++)
        snprintf(job->region_paths[h], PATH_MAX, "/dev/shm/ivc-%" PRIu64 "-h%u", job->id, h);
    for (uint32_t h = 0; h < job->nhosts; h++) {
        int rc = ivc_region_create_sect(job->region_paths[h], size, job->id, job->opts->nranks,
                                        job->sec_size, &job->regions[h]);
        if (rc != 0) {
            unlink(job->region_paths[h]);
            return rc; /* job_fini() removes the ones made before */
        }
    }
    return 0;
}

int job_region_join(job_t *job)
{
    const ivcrun_opts_t *o = job->opts;
    char *path = job->region_paths[0];
    if (realpath(o->join, path) == NULL) {
        int err = errno;
        fprintf(stderr, "ivcrun: --join %s: %s\n", o->join, strerror(err));
        return -err;
    }
    /* A simulated VM sees only its own /dev/shm with the region bound into it. */
    if (!o->no_ns && (strncmp(path, "/dev/shm/", 9) != 0 || strchr(path + 9, '/') != NULL)) {
        fprintf(stderr,
                "ivcrun: --join %s: simulated VMs can share only a region directly "
                "in /dev/shm (or use --no-ns)\n",
                path);
        return -EINVAL;
    }
    int rc = ivc_region_attach(path, o->job_id, o->world, &job->regions[0]);
    if (rc != 0)
        return rc;
    job->id = o->job_id;
    return 0;
}

int job_open_progs(job_t *job)
{
    const ivcrun_opts_t *o = job->opts;
    for (uint32_t a = 0; a < o->napps; a++) {
        const char *name = o->apps[a].argv[0];
        int rc = -ENOENT;
        /* A relative path is looked up in the program's -wdir first (where it will run). */
        if (o->apps[a].wdir != NULL && name[0] != '/' && strchr(name, '/') != NULL) {
            char in_wdir[PATH_MAX];
            snprintf(in_wdir, sizeof(in_wdir), "%s/%s", o->apps[a].wdir, name);
            if (access(in_wdir, F_OK) == 0)
                rc = prog_open(in_wdir, &job->progs[a]);
        }
        if (rc == -ENOENT)
            rc = prog_open(name, &job->progs[a]);
        if (rc == -ENOENT && o->dyn_parent >= 0 &&
            (!strncmp(name, "/tmp/", 5) || !strncmp(name, "/dev/shm/", 9)))
            /* MPI_Comm_spawn of a program a rank wrote into its VM's private /tmp: this
             * ivcrun, outside every simulated VM, cannot see it. */
            fprintf(stderr,
                    "ivcrun: %s is not visible outside the spawning rank's simulated VM (each "
                    "has a /tmp and /dev/shm of its own): put the program in a directory "
                    "every VM shares (the working directory, or one named with ivcrun --share "
                    "DIR)\n",
                    name);
        if (rc != 0)
            return rc == -ENOENT ? 127 : 126;
    }
    return 0;
}

/* Adds "/tmp/<entry>" for a canonical `path` under /tmp, once. Returns 0 or -E2BIG. */
static int add_tmp_tree(job_t *job, const char *path)
{
    if (strncmp(path, "/tmp/", 5) != 0 || path[5] == '\0')
        return 0;
    size_t len = 5 + strcspn(path + 5, "/");
    for (int i = 0; i < job->ntmp_trees; i++)
        if (strlen(job->tmp_trees[i]) == len && !strncmp(job->tmp_trees[i], path, len))
            return 0;
    if (job->ntmp_trees >= VM_KEEP_MAX) {
        if (!job->opts->no_ns)
            fprintf(stderr,
                    "ivcrun: the ranks need more than %d directories under /tmp (%.*s is one "
                    "too many): a simulated VM keeps at most %d; put them under fewer /tmp "
                    "entries, or use --no-ns\n",
                    VM_KEEP_MAX, (int)len, path, VM_KEEP_MAX);
        return -E2BIG;
    }
    snprintf(job->tmp_trees[job->ntmp_trees++], PATH_MAX, "%.*s", (int)len, path);
    return 0;
}

/* Adds the tree of `path` as written and, if it exists, of where it really is (a symbolic
 * link may lead from one to the other). */
static int add_tmp_path(job_t *job, const char *path)
{
    char real[PATH_MAX];
    int rc = path[0] == '/' ? add_tmp_tree(job, path) : 0;
    if (rc == 0 && realpath(path, real) != NULL)
        rc = add_tmp_tree(job, real);
    if (rc == 0 && !job->opts->no_ns && !strncmp(path, "/dev/shm/", 9))
        fprintf(stderr,
                "ivcrun: note: %s is under /dev/shm, which a simulated VM does not see "
                "(its /dev/shm is its own)\n",
                path);
    return rc;
}

#define LOADER_FILES_MAX 64 /* ELF files followed through DT_NEEDED */

/* The files (and search directories) of one program's loader walk. */
typedef struct loader_walk {
    char files[LOADER_FILES_MAX][PATH_MAX];
    int nfiles;
    char dirs[64][PATH_MAX]; /* the current file's DT_RUNPATH/DT_RPATH, then LD_LIBRARY_PATH */
    int ndirs, nlib_path_dirs;
    char needed[64][NAME_MAX + 1];
    int nneeded;
    char interp[PATH_MAX];
} loader_walk_t;

static void on_dep(void *arg, int kind, const char *text)
{
    loader_walk_t *w = arg;
    if (kind == ELF_DEP_INTERP)
        snprintf(w->interp, sizeof(w->interp), "%s", text);
    else if (kind == ELF_DEP_DIR && w->ndirs < 64)
        snprintf(w->dirs[w->ndirs++], PATH_MAX, "%s", text);
    else if (kind == ELF_DEP_NEEDED && w->nneeded < 64 && strchr(text, '/') == NULL)
        snprintf(w->needed[w->nneeded++], NAME_MAX + 1, "%s", text);
}

/* The value the ranks of app `a` will see for `name`: set by -env/-genv/-x, else ivcrun's
 * own unless the propagation leaves it out. */
static const char *rank_env_value(const job_t *job, uint32_t a, const char *name)
{
    const ivcrun_env_t *envs[2] = {&job->opts->apps[a].env, &job->opts->genv};
    size_t len = strlen(name);
    for (int e = 0; e < 2; e++)
        for (uint32_t i = envs[e]->nvars; i-- > 0;)
            if (!strncmp(envs[e]->vars[i], name, len) && envs[e]->vars[i][len] == '=')
                return envs[e]->vars[i] + len + 1;
    int prop = envs[0]->prop >= 0 ? envs[0]->prop : job->opts->genv.prop;
    if (prop == IVCRUN_ENV_ALL)
        return getenv(name);
    for (int e = 0; e < 2; e++)
        for (uint32_t i = 0; i < envs[e]->nvars; i++)
            if (!strcmp(envs[e]->vars[i], name))
                return getenv(name);
    return NULL;
}

/* Follows program `a`'s ELF file and the libraries it needs that lie in the directories
 * its loader searches beyond the system's (DT_RUNPATH/DT_RPATH with $ORIGIN expanded,
 * LD_LIBRARY_PATH), adding every such directory. Library names come from the files. */
static int add_loader_trees(job_t *job, uint32_t a)
{
    loader_walk_t *w = calloc(1, sizeof(*w));
    if (w == NULL)
        return -ENOMEM;
    char link[64];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", job->progs[a].fd);
    ssize_t n = readlink(link, w->files[0], PATH_MAX - 1);
    int rc = 0;
    if (n <= 0)
        goto out;
    w->files[0][n] = '\0';
    w->nfiles = 1;
    const char *lib_path = rank_env_value(job, a, "LD_LIBRARY_PATH");
    for (int f = 0; f < w->nfiles && rc == 0; f++) {
        int fd = open(w->files[f], O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue; /* unreadable (or a script's interpreter's business) */
        char origin[PATH_MAX];
        snprintf(origin, sizeof(origin), "%s", w->files[f]);
        w->ndirs = w->nneeded = 0;
        w->interp[0] = '\0';
        int erc = elf_deps(fd, dirname(origin), on_dep, w);
        close(fd);
        if (erc != 0)
            continue; /* not ELF (a script): nothing to follow */
        if (w->interp[0] != '\0')
            rc = add_tmp_path(job, w->interp);
        for (const char *p = lib_path; p != NULL && *p && w->ndirs < 64;) {
            size_t len = strcspn(p, ":");
            if (len > 0 && len < PATH_MAX)
                snprintf(w->dirs[w->ndirs++], PATH_MAX, "%.*s", (int)len, p);
            p += len + (p[len] == ':');
        }
        for (int d = 0; d < w->ndirs && rc == 0; d++)
            rc = add_tmp_path(job, w->dirs[d]);
        /* Where the loader will find each needed library among these directories. */
        for (int i = 0; i < w->nneeded && rc == 0; i++) {
            for (int d = 0; d < w->ndirs; d++) {
                char lib[PATH_MAX], real[PATH_MAX];
                if (snprintf(lib, sizeof(lib), "%s/%s", w->dirs[d], w->needed[i]) >=
                        (int)sizeof(lib) ||
                    realpath(lib, real) == NULL)
                    continue;
                rc = add_tmp_path(job, lib);
                int seen = 0;
                for (int k = 0; k < w->nfiles && !seen; k++)
                    seen = !strcmp(w->files[k], real);
                if (!seen && w->nfiles < LOADER_FILES_MAX)
                    snprintf(w->files[w->nfiles++], PATH_MAX, "%s", real);
                break;
            }
        }
    }
out:
    free(w);
    return rc;
}

int job_find_tmp_trees(job_t *job)
{
    char path[PATH_MAX], link[64];
    int rc = 0;
    for (uint32_t a = 0; a < job->opts->napps && rc == 0; a++) {
        snprintf(link, sizeof(link), "/proc/self/fd/%d", job->progs[a].fd);
        ssize_t n = readlink(link, path, sizeof(path) - 1);
        if (n > 0) {
            path[n] = '\0';
            rc = add_tmp_tree(job, path);
        }
        if (rc == 0 && job->progs[a].script)
            rc = add_tmp_path(job, job->progs[a].path);
        if (rc == 0)
            rc = add_loader_trees(job, a);
        if (rc == 0 && job->progs[a].abi_libdir != NULL)
            rc = add_tmp_path(job, job->progs[a].abi_libdir);
        if (rc == 0 && job->opts->apps[a].wdir != NULL)
            rc = add_tmp_tree(job, job->opts->apps[a].wdir);
    }
    if (rc == 0 && getcwd(path, sizeof(path)) != NULL)
        rc = add_tmp_tree(job, path);
    for (uint32_t i = 0; i < job->opts->nshare && rc == 0; i++)
        rc = add_tmp_tree(job, job->opts->share[i]); /* --share, IVC_SHARE */
    return job->opts->no_ns ? 0 : rc;
}

/* Expands %r, %h and %% of an output file pattern for rank `r`. */
static void expand_pattern(const job_t *job, const char *pat, uint32_t r, char *buf, size_t len)
{
    size_t n = 0;
    for (const char *c = pat; *c && n + 1 < len; c++) {
        if (*c == '%' && c[1] == 'r') {
            n += (size_t)snprintf(buf + n, len - n, "%u", job_global_rank(job, r));
            c++;
        } else if (*c == '%' && c[1] == 'h') {
            char host[64];
            if (job->mode == JOB_MODE_PLAIN && gethostname(host, sizeof(host)) == 0)
                host[sizeof(host) - 1] = '\0';
            else
                snprintf(host, sizeof(host), "vm%u", job->ranks[r].vm);
            n += (size_t)snprintf(buf + n, len - n, "%s", host);
            c++;
        } else {
            if (*c == '%' && c[1] == '%')
                c++;
            buf[n++] = *c;
        }
        if (n >= len)
            n = len - 1;
    }
    buf[n] = '\0';
}

/* Opens one pattern's files. Without %r a name depends only on the rank's VM (%h): the
 * ranks of a VM share the file its first rank opened (each through its own descriptor). */
static int open_pattern(job_t *job, const char *pat, int is_err)
{
    int per_rank = strstr(pat, "%r") != NULL, shared_by_all = strstr(pat, "%h") == NULL;
    char path[PATH_MAX];
    for (uint32_t r = 0; r < job->opts->nranks; r++) {
        int *fd = is_err ? &job->ranks[r].errfile : &job->ranks[r].outfile;
        uint32_t q = shared_by_all ? 0 : job->vms[job->ranks[r].vm].ranks[0];
        if (!per_rank && q < r) {
            *fd = fcntl(is_err ? job->ranks[q].errfile : job->ranks[q].outfile,
                        F_DUPFD_CLOEXEC, 3);
            if (*fd < 0) {
                int err = errno;
                fprintf(stderr, "ivcrun: cannot share an output file: %s\n", strerror(err));
                return -err;
            }
            continue;
        }
        expand_pattern(job, pat, r, path, sizeof(path));
        /* O_APPEND: ranks sharing a file do not write over each other. */
        *fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
        if (*fd < 0) {
            int err = errno;
            fprintf(stderr, "ivcrun: %s %s: %s\n",
                    is_err ? "-errfile-pattern" : "-outfile-pattern", path, strerror(err));
            return -err;
        }
    }
    return 0;
}

int job_open_outfiles(job_t *job)
{
    int rc = 0;
    if (job->opts->outfile != NULL)
        rc = open_pattern(job, job->opts->outfile, 0);
    if (rc == 0 && job->opts->errfile != NULL)
        rc = open_pattern(job, job->opts->errfile, 1);
    return rc;
}

void job_vm_conf(const job_t *job, uint32_t k, int userns, vm_conf_t *c)
{
    memset(c, 0, sizeof(*c));
    c->index = k;
    c->userns = userns;
    c->uid = job->uid;
    c->gid = job->gid;
    c->region_path = job->region_paths[k / job->opts->vms_per_host];
    for (uint32_t h = 0; job->vm_host != NULL && h < job->nhosts && h < VM_KEEP_MAX; h++)
        c->regions[c->nregions++] = job->region_paths[h];
    for (int i = 0; i < job->ntmp_trees; i++)
        c->tmp_trees[c->ntmp_trees++] = job->tmp_trees[i];
    c->net = job->opts->hosts > 1 || job->opts->vm_net;
    c->nvms = job->opts->nvms;
}

/* The rank runs: the launcher drops its copies of the rank's output pipes' write ends, so
 * the pipes end when the rank does. */
static void rank_started(job_rank_t *rk)
{
    rk->running = 1;
    if (rk->out[1] >= 0) {
        close(rk->out[1]);
        close(rk->err[1]);
        rk->out[1] = rk->err[1] = -1;
    }
}

static int start_plain_rank(job_t *job, uint32_t r)
{
    job_rank_t *rk = &job->ranks[r];
    pid_t parent = getpid();
    /* Its own session (and so its own process group) lets a stop reach whatever the rank
     * started, as a VM's pid namespace does, and gives it a CPU share of its own
     * (rank_exec); rank 0 stays in ours when stdin is a terminal, so it may read it. */
    rk->own_pgrp = r != 0 || !isatty(0);
    pid_t pid = fork();
    if (pid == 0) {
        if (rk->own_pgrp)
            setsid();
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        rank_exec(job, r);
    }
    if (pid < 0) {
        int err = errno;
        fprintf(stderr, "ivcrun: cannot start rank %u: fork: %s\n", job_global_rank(job, r),
                strerror(err));
        return -err;
    }
    /* No setpgid(pid, pid) here: a group leader could not make a session. A signal sent
     * before the child made its session reaches the rank alone (job_signal). */
    rk->pid = pid;
    rank_started(rk);
    return 0;
}

static int start_vm(job_t *job, uint32_t k)
{
    job_vm_t *v = &job->vms[k];
    vm_init_arg_t arg = {job, k};
    pid_t pid = vm_clone(job->mode == JOB_MODE_VM_USERNS, vm_init_main, &arg);
    if (pid < 0) {
        fprintf(stderr, "ivcrun: cannot start vm%u: clone: %s\n", k, strerror((int)-pid));
        return (int)pid;
    }
    v->init = pid;
    close(v->status[1]);
    v->status[1] = -1;
    for (uint32_t i = 0; i < v->count; i++)
        rank_started(&job->ranks[v->ranks[i]]);
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* After a failed start: nothing will ever write to the pipes of what did not start, so
 * close them for the monitor to see the job end. */
static void drop_unstarted(job_t *job)
{
    for (uint32_t r = 0; r < job->opts->nranks; r++) {
        job_rank_t *rk = &job->ranks[r];
        for (int i = 0; !rk->running && i < 2; i++) {
            close_fd(&rk->out[i]);
            close_fd(&rk->err[i]);
        }
    }
    for (uint32_t k = 0; k < job->opts->nvms; k++) {
        if (job->vms[k].init == 0) {
            close_fd(&job->vms[k].status[0]);
            close_fd(&job->vms[k].status[1]);
        }
    }
}

int job_start(job_t *job)
{
    int rc = 0;
    if (job->mode == JOB_MODE_PLAIN) {
        for (uint32_t r = 0; r < job->opts->nranks && rc == 0; r++)
            rc = start_plain_rank(job, r);
    } else {
        /* All status pipes first: each init closes every end but its own write end. */
        for (uint32_t k = 0; k < job->opts->nvms && rc == 0; k++)
            rc = new_pipe(job->vms[k].status, "status");
        /* The VMs wait for the network (--hosts, --net) before they start their ranks. */
        if (rc == 0 && (job->pmi != NULL || job->opts->vm_net))
            rc = new_pipe(job->go, "start");
        for (uint32_t k = 0; k < job->opts->nvms && rc == 0; k++)
            rc = start_vm(job, k);
    }
    if (rc != 0)
        drop_unstarted(job);
    return rc;
}

void job_signal(job_t *job, int sig)
{
    dyn_server_signal(job->dyn, sig); /* spawned jobs: their ivcruns stop their ranks */
    if (job->mode != JOB_MODE_PLAIN) {
        for (uint32_t k = 0; k < job->opts->nvms; k++)
            if (job->vms[k].init > 0)
                kill(job->vms[k].init, sig);
        return;
    }
    /* A rank stops running when reaped, so its pid never names a recycled process. */
    for (uint32_t r = 0; r < job->opts->nranks; r++) {
        const job_rank_t *rk = &job->ranks[r];
        if (rk->running && rk->pid > 0 &&
            (!rk->own_pgrp || (kill(-rk->pid, sig) != 0 && errno == ESRCH)))
            kill(rk->pid, sig);
    }
}

const char *job_where(const job_t *job, uint32_t r, char *buf, size_t len)
{
    if (job->mode == JOB_MODE_PLAIN)
        snprintf(buf, len, "pid %d", (int)job->ranks[r].pid);
    else
        snprintf(buf, len, "vm%u", job->ranks[r].vm);
    return buf;
}

void job_fini(job_t *job)
{
    for (uint32_t r = 0; job->ranks != NULL && r < job->opts->nranks; r++) {
        for (int i = 0; i < 2; i++) {
            close_fd(&job->ranks[r].out[i]);
            close_fd(&job->ranks[r].err[i]);
        }
    }
    for (uint32_t k = 0; job->vms != NULL && k < job->opts->nvms; k++) {
        close_fd(&job->vms[k].status[0]);
        close_fd(&job->vms[k].status[1]);
    }
    for (uint32_t r = 0; job->ranks != NULL && r < job->opts->nranks; r++) {
        close_fd(&job->ranks[r].outfile);
        close_fd(&job->ranks[r].errfile);
    }
    for (uint32_t a = 0; job->progs != NULL && a < job->opts->napps; a++)
        close_fd(&job->progs[a].fd);
    free(job->progs);
    job->progs = NULL;
    free(job->vm_ranks);
    job->vm_ranks = NULL;
    bind_plan_free(job);
    close_fd(&job->lifeline);
    close_fd(&job->go[0]);
    close_fd(&job->go[1]);
    for (uint32_t h = 0; job->regions != NULL && h < job->nhosts; h++) {
        if (job->regions[h].base == NULL)
            continue;
        int keep = job->opts->keep_region || job->opts->join != NULL;
        ivc_region_detach(&job->regions[h], !keep);
        if (job->opts->keep_region)
            fprintf(stderr, "ivcrun: kept the region %s (job %" PRIu64 ")\n", job->region_paths[h],
                    job->id);
    }
    fabric_destroy(job);
    pmi_server_destroy(job->pmi);
    job->pmi = NULL;
    sect_broker_destroy(job->sect);
    dyn_server_destroy(job->dyn);
    job->dyn = NULL;
    job->sect = NULL;
    free(job->vm_host);
    job->vm_host = NULL;
    free(job->regions);
    free(job->region_paths);
    job->regions = NULL;
    job->region_paths = NULL;
    free(job->ranks);
    free(job->vms);
    job->ranks = NULL;
    job->vms = NULL;
}
