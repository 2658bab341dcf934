/* ivcrun: the job launcher. Creates the job's region, starts its ranks in simulated VMs (or
 * plain processes), forwards their output and signals, and exits with the job's status once
 * every rank has ended, removing the region. See job.h for how the parts fit. */
#include "abi.h"
#include "bind.h"
#include "fabric.h"
#include "job.h"
#include "pmi_server.h"
#include "sect_broker.h"
#include "dyn_server.h"
#include "monitor.h"
#include "opts.h"
#include "prog.h"
#include "vm.h"

#include "coord/coord_report.h"
#include "shm/shm_config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Opens /dev/null on any of fds 0-2 that is closed, so no pipe ever lands there. */
static void ensure_stdio(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
            return;
}

/* --tag-output holds four pipe ends per rank, output files two more; raise the soft limit
 * when that needs it. */
static void raise_nofile(const ivcrun_opts_t *o)
{
    struct rlimit rl;
    rlim_t need = 64 + 6 * (rlim_t)o->nranks + 2 * (rlim_t)o->nvms;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* --region-size, else IVC_REGION_SIZE, else what the tunables need. 0 after printing why. */
static uint64_t region_size(const ivcrun_opts_t *o)
{
    uint64_t size;
    if (o->region_size != 0)
        return o->region_size;
    return ivc_shm_job_region_size(o->nranks, &size) == 0 ? size : 0;
}

/* Namespaces with our privileges, else inside a user namespace, else plain processes. */
static job_mode_t choose_mode(const job_t *job)
{
    if (job->opts->no_ns)
        return JOB_MODE_PLAIN;
    vm_conf_t c;
    char why[256], why_userns[256];
    job_vm_conf(job, 0, 0, &c);
    if (vm_probe(&c, why, sizeof(why)) == 0)
        return JOB_MODE_VM;
    job_vm_conf(job, 0, 1, &c);
    if (vm_probe(&c, why_userns, sizeof(why_userns)) == 0)
        return JOB_MODE_VM_USERNS;
    fprintf(stderr,
            "ivcrun: cannot create namespaces (%s; %s); running %u ranks as plain "
            "processes\n",
            why, why_userns, job->opts->nranks);
    return JOB_MODE_PLAIN;
}

/* -v: one line on the job; each rank adds its own at MPI_Init (IVC_REPORT_MAP). */
static void say_layout(const job_t *job)
{
    const ivcrun_opts_t *o = job->opts;
    const char *how = job->mode == JOB_MODE_PLAIN    ? "plain processes"
                      : job->mode == JOB_MODE_VM_USERNS ? "simulated VMs (in a user namespace)"
                                                        : "simulated VMs";
    fprintf(stderr, "ivcrun: job %" PRIu64 ": %u rank%s", job->id, o->nranks,
            o->nranks == 1 ? "" : "s");
    if (job->mode == JOB_MODE_PLAIN)
        fprintf(stderr, " as %s", how);
    else
        fprintf(stderr, " in %u %s on %u simulated host%s", o->nvms, how, o->hosts,
                o->hosts == 1 ? "" : "s");
    fprintf(stderr, ", region %s%s\n", job->region_paths[0], job->nhosts > 1 ? " ..." : "");
    for (uint32_t k = 0; job->mode != JOB_MODE_PLAIN && k < o->nvms; k++) {
        const job_vm_t *v = &job->vms[k];
        char list[256] = "";
        uint32_t g[32], n = v->count < 32 ? v->count : 32;
        for (uint32_t i = 0; i < n; i++)
            g[i] = job_global_rank(job, v->ranks[i]);
        fprintf(stderr, "ivcrun: vm%u (host %u): rank%s %s%s\n", k, k / o->vms_per_host,
                v->count == 1 ? "" : "s", ivc_coord_report_ranges(g, n, list, sizeof(list)),
                v->count > n ? ",..." : "");
    }
}

int main(int argc, char **argv)
{
    ivcrun_opts_t opts;
    int rc = ivcrun_opts_parse(argc, argv, &opts);
    if (rc != 0) {
        ivcrun_opts_free(&opts);
        return rc > 0 ? 0 : 2;
    }
    ensure_stdio();
    raise_nofile(&opts);

    /* From here on these signals are taken synchronously (signalfd here, sigwaitinfo in the
     * VM inits), so a SIGINT at any point still ends in the clean-up below. */
    job_t job;
    memset(&job, 0, sizeof(job));
    sigemptyset(&job.sigs);
    sigaddset(&job.sigs, SIGCHLD);
    sigaddset(&job.sigs, SIGINT);
    sigaddset(&job.sigs, SIGTERM);
    sigaddset(&job.sigs, SIGHUP);
    sigprocmask(SIG_BLOCK, &job.sigs, &job.old_mask);
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigaction(SIGPIPE, &ign, &job.old_sigpipe);

    int status = 1;
    if (job_init(&job, &opts) != 0)
        goto out;
    if ((rc = job_open_progs(&job)) != 0) {
        status = rc;
        goto out;
    }
    if (abi_choose(&job) != 0 || job_find_tmp_trees(&job) != 0 || bind_plan_make(&job) != 0)
        goto out;
    if (opts.join != NULL) {
        if (job_region_join(&job) != 0)
            goto out;
    } else {
        uint64_t size = region_size(&opts);
        if (size == 0 || job_region_create(&job, size) != 0)
            goto out;
    }
    job_doors_create(&job.doors, opts.first_rank, opts.nranks);
    job.mode = choose_mode(&job);
    if (job.mode == JOB_MODE_PLAIN && opts.nhostv > 0 && opts.nvms > 1)
        fprintf(stderr, "ivcrun: note: plain processes: the host names of -host/-f do not "
                        "separate the ranks here (no simulated VMs)\n");
    if (job_open_outfiles(&job) != 0)
        goto out;
    if (opts.verbose)
        say_layout(&job);
    job.lifeline = (int)syscall(SYS_pidfd_open, getpid(), 0);
    int sigfd = signalfd(-1, &job.sigs, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sigfd < 0) {
        fprintf(stderr, "ivcrun: signalfd: %s\n", strerror(errno));
        goto out;
    }
    /* IVC_MIGRATE=1 set by the user (a guest that will be live-migrated runs ivcrun in
     * it): its ranks connect the network channel at start-up even on one host, which takes
     * a process manager; served when this launch runs the whole job (issue 12 part 3). */
    const char *migrate_env = getenv("IVC_MIGRATE");
    int pmi_for_migrate = migrate_env != NULL && strcmp(migrate_env, "1") == 0 &&
                          (opts.join == NULL || (opts.world == opts.nranks && opts.first_rank == 0));
    if (opts.hosts > 1 || pmi_for_migrate) {
        char kvs[64];
        snprintf(kvs, sizeof(kvs), "ivc-%" PRIu64, job.id);
        if ((job.pmi = pmi_server_create(opts.nranks, kvs)) == NULL)
            goto out;
    }
    if (job.sec_size != 0) {
        uint32_t *host = malloc(opts.nranks * sizeof(*host));
        for (uint32_t r = 0; host != NULL && r < opts.nranks; r++)
            host[r] = job_host_of(&job, r);
        job.sect = host != NULL ? sect_broker_create(opts.nranks, host, job.sec_size) : NULL;
        free(host);
        if (job.sect == NULL)
            goto out;
    }
    /* Dynamic processes: every rank gets a socket to this launcher (dyn_server.h); a
     * spawned job's ranks find their parents' sockets queued in theirs. */
    if ((job.dyn = dyn_server_create(&job)) == NULL)
        goto out;
    if (opts.dyn_parent >= 0 && dyn_server_prime(job.dyn, opts.dyn_parent) != 0)
        goto out;
    int start_failed = job_start(&job) != 0;
    /* The VMs' network before any rank can pass the first PMI barrier (served below). */
    if (!start_failed && (opts.hosts > 1 || opts.vm_net) && job.mode != JOB_MODE_PLAIN &&
        fabric_create(&job) != 0)
        start_failed = 1;
    if (job.go[1] >= 0) { /* the VMs may start their ranks (or die, if start failed) */
        close(job.go[1]);
        job.go[1] = -1;
    }
    if (job.pmi != NULL)
        pmi_server_close_rank_fds(job.pmi);
    if (job.sect != NULL)
        sect_broker_close_rank_fds(job.sect);
    dyn_server_close_rank_fds(job.dyn);
    status = monitor_run(&job, sigfd, start_failed);
    close(sigfd);
out:
    job_doors_close(&job.doors);
    job_fini(&job);
    ivcrun_opts_free(&opts);
    return status;
}
