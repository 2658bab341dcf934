#define _GNU_SOURCE
#include "rank.h"

#include "abi.h"
#include "bind.h"
#include "pmi_server.h"
#include "prog.h"
#include "sect_broker.h"
#include "dyn_server.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int set_env_u64(const char *name, uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "%" PRIu64, v);
    return setenv(name, buf, 1);
}

static int setup_stdio(const job_t *job, uint32_t rank)
{
    const job_rank_t *r = &job->ranks[rank];
    if (rank != 0) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || dup2(fd, 0) < 0)
            return -errno;
        close(fd);
    }
    /* An output file takes its stream; tagging takes what is left. */
    if (r->outfile >= 0 ? dup2(r->outfile, 1) < 0 : r->out[1] >= 0 && dup2(r->out[1], 1) < 0)
        return -errno;
    if (r->errfile >= 0 ? dup2(r->errfile, 2) < 0 : r->err[1] >= 0 && dup2(r->err[1], 2) < 0)
        return -errno;
    return 0;
}

/* Gives the rank the environment -genv/-env/-x and -genvnone/-genvlist ask for: ivcrun's
 * own (all of it, none, or only the listed variables), then the global settings, then the
 * program's own (Hydra: -env wins over -genv). */
static int apply_env(const job_t *job, uint32_t rank)
{
    const ivcrun_env_t *g = &job->opts->genv, *l = &ivcrun_app_of(job->opts, rank)->env;
    int prop = l->prop >= 0 ? l->prop : g->prop;
    if (prop != IVCRUN_ENV_ALL) {
        /* Keep the listed ones (names without '='), then start from nothing. */
        uint32_t n = g->nvars + l->nvars, k = 0;
        char **kept = calloc(n ? n : 1, sizeof(*kept));
        if (kept == NULL)
            return -ENOMEM;
        for (uint32_t i = 0; i < n; i++) {
            const char *name = i < g->nvars ? g->vars[i] : l->vars[i - g->nvars];
            const char *v = strchr(name, '=') == NULL ? getenv(name) : NULL;
            if (v != NULL && asprintf(&kept[k], "%s=%s", name, v) >= 0)
                k++;
        }
        clearenv();
        for (uint32_t i = 0; i < k; i++)
            if (putenv(kept[i]) != 0) /* the strings become the environment: not freed */
                return -errno;
        free(kept);
    }
    const ivcrun_env_t *sets[2] = {g, l};
    for (int e = 0; e < 2; e++) {
        for (uint32_t i = 0; i < sets[e]->nvars; i++) {
            const char *kv = sets[e]->vars[i], *eq = strchr(kv, '=');
            if (eq == NULL)
                continue;
            char name[256];
            snprintf(name, sizeof(name), "%.*s", (int)(eq - kv), kv);
            if (setenv(name, eq + 1, 1) != 0)
                return -errno;
        }
    }
    return 0;
}

void rank_exec(const job_t *job, uint32_t rank)
{
    /* A session of its own, as Hydra gives each rank: with the scheduler's autogroups (on by
     * default in Debian) each session gets its share of the CPUs, so a job of N ranks gets
     * N shares on a loaded host, not one. (Plain ranks made theirs in start_plain_rank.)
     * Rank 0 keeps the caller's when stdin is a terminal, so that it may read it. */
    if (job->mode != JOB_MODE_PLAIN && (rank != 0 || !isatty(0)))
        setsid();
    sigaction(SIGPIPE, &job->old_sigpipe, NULL);
    sigprocmask(SIG_SETMASK, &job->old_mask, NULL);

    const char *what = "bind to its CPUs";
    int rc = bind_rank(job, rank);
    if (rc == 0) {
        what = "set up stdio";
        rc = setup_stdio(job, rank);
    }
    const ivcrun_app_t *app = ivcrun_app_of(job->opts, rank);
    if (rc == 0 && app->wdir != NULL) {
        what = "change to its working directory";
        if (chdir(app->wdir) != 0)
            rc = -errno;
    }
    if (rc == 0) {
        what = "set the environment";
        rc = apply_env(job, rank);
        if (rc == 0)
            rc = abi_apply(job->progs[job_app_of(job, rank)].abi_libdir);
    }
    if (rc == 0) {
        if (set_env_u64("PMI_RANK", job_global_rank(job, rank)) != 0 ||
            set_env_u64("PMI_SIZE", job->opts->world) != 0 ||
            set_env_u64("IVC_JOB", job->id) != 0 ||
            setenv("IVC_REGION", job->region_paths[job_host_of(job, rank)], 1) != 0 ||
            set_env_u64("IVC_VM", job->ranks[rank].vm) != 0)
            rc = -errno;
        if (rc == 0 && job->vm_host != NULL) {
            /* --migrate (migrate.h): the library may move to any host's region. */
            char list[4096];
            size_t at = 0;
            for (uint32_t h = 0; h < job->nhosts && at < sizeof(list); h++)
                at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s", h ? ":" : "",
                                       job->region_paths[h]);
            if (at >= sizeof(list) || setenv("IVC_MIGRATE", "1", 1) != 0 ||
                setenv("IVC_HOST_REGIONS", list, 1) != 0)
                rc = at >= sizeof(list) ? -E2BIG : -errno;
        }
        if (rc == 0)
            rc = job_doors_export(&job->doors);
        /* -v: the library reports at MPI_Init where the rank runs (coord_report.c). */
        if (rc == 0 && job->opts->verbose &&
            (setenv("IVC_REPORT_MAP", "1", 1) != 0 ||
             set_env_u64("IVC_REPORT_HOST", job_host_of(job, rank)) != 0))
            rc = -errno;
    }
    if (rc == 0 && job->pmi != NULL) {
        /* Multi-host: ivcrun is the process manager; UCX goes over the simulated hosts'
         * network unless the user chose otherwise. */
        what = "set up PMI";
        int fd = dup(pmi_server_rank_fd(job->pmi, rank)); /* the copy survives exec */
        if (fd < 0 || set_env_u64("PMI_FD", (uint64_t)fd) != 0 ||
            setenv("UCX_TLS", "tcp,self", 0) != 0 ||
            setenv("UCX_NET_DEVICES", job->mode == JOB_MODE_PLAIN ? "lo" : "eth0", 0) != 0)
            rc = -errno;
    }
    if (rc == 0 && job->sect != NULL) {
        /* Write-exclusive sections: this rank's socket only (the others close on exec). */
        what = "set up its section socket";
        int fd = dup(sect_broker_rank_fd(job->sect, rank)); /* the copy survives exec */
        if (fd < 0 || set_env_u64("IVC_SECTION_FD", (uint64_t)fd) != 0)
            rc = -errno;
    }
    if (rc == 0 && job->dyn != NULL) {
        /* Dynamic processes (dyn_server.h): this rank's socket to ivcrun. */
        what = "set up its dynamic-process socket";
        int fd = dup(dyn_server_rank_fd(job->dyn, rank)); /* the copy survives exec */
        uint32_t universe = job->opts->universe ? job->opts->universe : job->opts->world;
        if (fd < 0 || set_env_u64("IVC_DYN_FD", (uint64_t)fd) != 0 ||
            set_env_u64("IVC_UNIVERSE_SIZE", universe) != 0 ||
            (job->opts->dyn_parent >= 0 && setenv("IVC_DYN_SPAWNED", "1", 1) != 0))
            rc = -errno;
    }
    if (rc == 0 && set_env_u64("IVC_APPNUM", job_app_of(job, rank)) != 0)
        rc = -errno;
    if (rc == 0) {
        what = "execute";
        rc = prog_exec(&job->progs[job_app_of(job, rank)], app->argv);
    }
    if (!strcmp(what, "execute"))
        fprintf(stderr, "ivcrun: rank %u: cannot execute %s: %s\n", job_global_rank(job, rank),
                app->argv[0], strerror(-rc));
    else
        fprintf(stderr, "ivcrun: rank %u: cannot %s: %s\n", job_global_rank(job, rank), what,
                strerror(-rc));
    _exit(rc == -ENOENT ? 127 : 126);
}
