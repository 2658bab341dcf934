#include "rank.h"

#include "pmi_server.h"
#include "prog.h"

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
    if (job->opts->tag_output && (dup2(r->out[1], 1) < 0 || dup2(r->err[1], 2) < 0))
        return -errno;
    return 0;
}

void rank_exec(const job_t *job, uint32_t rank)
{
    sigaction(SIGPIPE, &job->old_sigpipe, NULL);
    sigprocmask(SIG_SETMASK, &job->old_mask, NULL);

    const char *what = "set up stdio";
    int rc = setup_stdio(job, rank);
    if (rc == 0) {
        what = "set the environment";
        if (set_env_u64("PMI_RANK", job_global_rank(job, rank)) != 0 ||
            set_env_u64("PMI_SIZE", job->opts->world) != 0 ||
            set_env_u64("IVC_JOB", job->id) != 0 ||
            setenv("IVC_REGION", job->region_paths[job_host_of(job, rank)], 1) != 0 ||
            set_env_u64("IVC_VM", job->ranks[rank].vm) != 0)
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
    if (rc == 0) {
        what = "execute";
        rc = prog_exec(&job->prog, job->opts->argv);
    }
    if (!strcmp(what, "execute"))
        fprintf(stderr, "ivcrun: rank %u: cannot execute %s: %s\n", job_global_rank(job, rank),
                job->opts->argv[0], strerror(-rc));
    else
        fprintf(stderr, "ivcrun: rank %u: cannot %s: %s\n", job_global_rank(job, rank), what,
                strerror(-rc));
    _exit(rc == -ENOENT ? 127 : 126);
}
