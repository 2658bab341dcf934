#define _GNU_SOURCE
#include "job.h"

#include "fabric.h"
#include "pmi_server.h"
#include "rank.h"
#include "vm.h"
#include "vm_init.h"

#include <errno.h>
#include <fcntl.h>
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
    job->prog.fd = job->lifeline = -1;
    job->go[0] = job->go[1] = -1;
    job->uid = geteuid();
    job->gid = getegid();
    job->nhosts = opts->hosts;
    job->ranks = calloc(n, sizeof(*job->ranks));
    job->vms = calloc(m, sizeof(*job->vms));
    job->regions = calloc(job->nhosts, sizeof(*job->regions));
    job->region_paths = calloc(job->nhosts, sizeof(*job->region_paths));
    if (job->ranks == NULL || job->vms == NULL || job->regions == NULL ||
        job->region_paths == NULL) {
        fprintf(stderr, "ivcrun: out of memory\n");
        goto err_free; /* job_fini() must not see tables with descriptor 0 in them */
    }
    /* Blocks: the first n % m VMs get one rank more than the others. */
    for (uint32_t k = 0, r = 0; k < m; k++) {
        job_vm_t *v = &job->vms[k];
        v->first = r;
        v->count = n / m + (k < n % m);
        v->status[0] = v->status[1] = -1;
        for (uint32_t i = 0; i < v->count; i++, r++) {
            job->ranks[r].vm = k;
            job->ranks[r].out[0] = job->ranks[r].out[1] = -1;
            job->ranks[r].err[0] = job->ranks[r].err[1] = -1;
        }
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
    free(job->ranks);
    free(job->vms);
    free(job->regions);
    free(job->region_paths);
    job->ranks = NULL;
    job->vms = NULL;
    job->regions = NULL;
    job->region_paths = NULL;
    return -ENOMEM;
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
    /* The other hosts' names follow from the first one, which claimed the id. */
    for (uint32_t h = 1; h < job->nhosts; h++)
        snprintf(job->region_paths[h], PATH_MAX, "/dev/shm/ivc-%" PRIu64 "-h%u", job->id, h);
    for (uint32_t h = 0; h < job->nhosts; h++) {
        int rc = ivc_region_create(job->region_paths[h], size, job->id, job->opts->nranks,
                                   &job->regions[h]);
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

/* Adds "/tmp/<entry>" for a canonical `path` under /tmp, once. */
static void add_tmp_tree(job_t *job, const char *path)
{
    if (strncmp(path, "/tmp/", 5) != 0 || path[5] == '\0' || job->ntmp_trees >= VM_KEEP_MAX)
        return;
    size_t len = 5 + strcspn(path + 5, "/");
    for (int i = 0; i < job->ntmp_trees; i++)
        if (strlen(job->tmp_trees[i]) == len && !strncmp(job->tmp_trees[i], path, len))
            return;
    snprintf(job->tmp_trees[job->ntmp_trees++], PATH_MAX, "%.*s", (int)len, path);
}

void job_find_tmp_trees(job_t *job)
{
    char path[PATH_MAX], link[64];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", job->prog.fd);
    ssize_t n = readlink(link, path, sizeof(path) - 1);
    if (n > 0) {
        path[n] = '\0';
        add_tmp_tree(job, path);
    }
    if (getcwd(path, sizeof(path)) != NULL)
        add_tmp_tree(job, path);
}

void job_vm_conf(const job_t *job, uint32_t k, int userns, vm_conf_t *c)
{
    memset(c, 0, sizeof(*c));
    c->index = k;
    c->userns = userns;
    c->uid = job->uid;
    c->gid = job->gid;
    c->region_path = job->region_paths[k / job->opts->vms_per_host];
    for (int i = 0; i < job->ntmp_trees; i++)
        c->tmp_trees[c->ntmp_trees++] = job->tmp_trees[i];
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
    /* Its own process group lets a stop reach whatever the rank started, as a VM's pid
     * namespace does; rank 0 stays in ours when stdin is a terminal, so it may read it. */
    rk->own_pgrp = r != 0 || !isatty(0);
    pid_t pid = fork();
    if (pid == 0) {
        if (rk->own_pgrp)
            setpgid(0, 0);
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
    if (rk->own_pgrp)
        setpgid(pid, pid); /* also here: signals may come before the child gets to it */
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
    for (uint32_t r = v->first; r < v->first + v->count; r++)
        rank_started(&job->ranks[r]);
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
        if (rc == 0 && job->pmi != NULL)
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
    if (job->mode != JOB_MODE_PLAIN) {
        for (uint32_t k = 0; k < job->opts->nvms; k++)
            if (job->vms[k].init > 0)
                kill(job->vms[k].init, sig);
        return;
    }
    /* A rank stops running when reaped, so its pid never names a recycled process. */
    for (uint32_t r = 0; r < job->opts->nranks; r++) {
        const job_rank_t *rk = &job->ranks[r];
        if (rk->running && rk->pid > 0)
            kill(rk->own_pgrp ? -rk->pid : rk->pid, sig);
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
    close_fd(&job->prog.fd);
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
    free(job->regions);
    free(job->region_paths);
    job->regions = NULL;
    job->region_paths = NULL;
    free(job->ranks);
    free(job->vms);
    job->ranks = NULL;
    job->vms = NULL;
}
