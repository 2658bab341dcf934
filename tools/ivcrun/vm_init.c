#include "vm_init.h"

#include "rank.h"
#include "vm.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Keeps only this VM's descriptors: other VMs' pipe ends held here would delay their EOF. */
static void close_foreign(const job_t *job, uint32_t vm)
{
    for (uint32_t i = 0; i < job->opts->nvms; i++) {
        const job_vm_t *v = &job->vms[i];
        close(v->status[0]);
        if (i != vm)
            close(v->status[1]);
    }
    for (uint32_t r = 0; r < job->opts->nranks; r++) {
        const job_rank_t *rk = &job->ranks[r];
        if (rk->out[0] < 0)
            continue;
        close(rk->out[0]);
        close(rk->err[0]);
        if (rk->vm != vm) {
            close(rk->out[1]);
            close(rk->err[1]);
        }
    }
}

static void report(int fd, uint32_t rank, int ws)
{
    job_status_rec_t rec = {rank, ws};
    ssize_t n;
    while ((n = write(fd, &rec, sizeof(rec))) < 0 && errno == EINTR)
        ;
}

int vm_init_main(void *p)
{
    const vm_init_arg_t *a = p;
    const job_t *job = a->job;
    const job_vm_t *vm = &job->vms[a->vm];

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    prctl(PR_SET_NAME, "ivcrun-init");
    /* ivcrun may have died before the line above took effect. */
    struct pollfd pf = {job->lifeline, POLLIN, 0};
    if (job->lifeline >= 0 && poll(&pf, 1, 0) != 0)
        _exit(1);
    close_foreign(job, a->vm);
    /* Multi-host: the VM's network is set up from outside; its ranks start once it is. */
    if (job->go[0] >= 0) {
        char c;
        close(job->go[1]);
        while (read(job->go[0], &c, 1) < 0 && errno == EINTR)
            ;
        close(job->go[0]);
    }

    vm_conf_t conf;
    job_vm_conf(job, a->vm, job->mode == JOB_MODE_VM_USERNS, &conf);
    char why[256];
    if (vm_setup(&conf, why, sizeof(why)) != 0) {
        fprintf(stderr, "ivcrun: vm%u: cannot set up the VM: %s\n", a->vm, why);
        _exit(1);
    }

    /* ivcrun's mask blocks job->sigs, so nothing is lost before sigwaitinfo(). Blocked, they
     * reach pid 1 even with the default action, which would otherwise ignore them. */
    pid_t *pids = calloc(vm->count, sizeof(*pids));
    if (pids == NULL) {
        fprintf(stderr, "ivcrun: vm%u: out of memory\n", a->vm);
        _exit(1);
    }
    for (uint32_t i = 0; i < vm->count; i++) {
        pids[i] = fork();
        if (pids[i] == 0)
            rank_exec(job, vm->ranks[i]);
        if (pids[i] < 0) {
            /* Exiting kills the ranks already started: they are in our pid namespace. */
            fprintf(stderr, "ivcrun: vm%u: cannot start rank %u: fork: %s\n", a->vm, vm->ranks[i],
                    strerror(errno));
            _exit(1);
        }
    }
    for (uint32_t i = 0; i < vm->count; i++) {
        const job_rank_t *rk = &job->ranks[vm->ranks[i]];
        if (rk->out[1] >= 0) {
            close(rk->out[1]);
            close(rk->err[1]);
        }
    }

    uint32_t live = vm->count;
    while (live > 0) {
        int sig = sigwaitinfo(&job->sigs, NULL);
        if (sig == SIGCHLD) {
            int ws;
            pid_t pid;
            while ((pid = waitpid(-1, &ws, WNOHANG)) > 0) {
                for (uint32_t i = 0; i < vm->count; i++) {
                    if (pids[i] == pid) {
                        report(vm->status[1], vm->ranks[i], ws);
                        pids[i] = 0;
                        live--;
                    }
                }
            }
        } else if (sig > 0) {
            for (uint32_t i = 0; i < vm->count; i++)
                if (pids[i] > 0)
                    kill(pids[i], sig);
        }
    }
    _exit(0);
}
