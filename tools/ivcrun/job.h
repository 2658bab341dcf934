/* A job: its region, its ranks and the VMs (or plain processes) that run them.
 *
 * Exit statuses flow to ivcrun's monitor (monitor.h) as wait statuses:
 *  - plain processes: ivcrun is the ranks' parent and reaps them itself;
 *  - VMs: ivcrun is the parent of each VM's init only; the init reaps its ranks and writes
 *    one job_status_rec_t per rank to its status pipe. A VM is over when its init has been
 *    reaped and its pipe is at EOF; a rank with no record by then died with its VM. */
#ifndef IVCRUN_JOB_H
#define IVCRUN_JOB_H

#include "doors.h"
#include "opts.h"
#include "prog.h"
#include "region/region.h"
#include "vm.h"

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum {
    JOB_MODE_VM,        /* namespaces, created with our own privileges */
    JOB_MODE_VM_USERNS, /* namespaces inside a new user namespace */
    JOB_MODE_PLAIN,     /* plain processes */
} job_mode_t;

typedef struct job_rank {
    uint32_t vm;
    pid_t pid;          /* plain mode: the rank's pid (reaped once !running); VM mode: 0 */
    int own_pgrp;       /* plain mode: the rank leads its own process group */
    int running;        /* started, and no exit status seen yet */
    int out[2], err[2]; /* --tag-output pipes, else -1 */
    int outfile, errfile; /* -outfile-pattern/-errfile-pattern files, else -1 */
} job_rank_t;

typedef struct job_vm {
    uint32_t *ranks;       /* its ranks (this launch's indexes), ascending */
    uint32_t count;
    pid_t init;            /* pid of its init; 0 once reaped (or never started) */
    int init_status;       /* wait status of the init once reaped */
    int status[2];         /* init -> ivcrun: job_status_rec_t per rank; [0] -1 at EOF */
} job_vm_t;

/* One rank's end, as the VM init reports it. Smaller than PIPE_BUF: written atomically. */
typedef struct job_status_rec {
    uint32_t rank;
    int32_t wait_status;
} job_status_rec_t;

typedef struct job {
    const ivcrun_opts_t *opts;
    job_mode_t mode;
    uint64_t id;
    uint32_t nhosts;                /* --hosts: one region each (1 without) */
    char (*region_paths)[PATH_MAX]; /* per host */
    ivc_region_t *regions;          /* per host */
    struct pmi_server *pmi;         /* multi-host jobs: ivcrun's PMI-1 service, else NULL */
    int fabric;                     /* the multi-host network namespace exists */
    prog_t *progs;                  /* per app (opts->apps): the ranks' programs */
    int lifeline; /* pidfd of ivcrun, so a VM init can see that ivcrun died early; or -1 */
    int go[2];    /* multi-host VMs: inits start their ranks at its EOF (network is up) */
    uid_t uid;
    gid_t gid;
    char tmp_trees[VM_KEEP_MAX][PATH_MAX]; /* see vm.h: host /tmp entries a VM keeps */
    int ntmp_trees;
    sigset_t sigs;                /* the signals ivcrun and VM inits take synchronously */
    sigset_t old_mask;            /* ivcrun's original signal mask, restored in ranks */
    struct sigaction old_sigpipe; /* and SIGPIPE's action */
    job_rank_t *ranks;
    job_vm_t *vms;
    uint32_t *vm_ranks; /* every VM's ranks, VM after VM (job_vm_t.ranks point in here) */
    struct bind_plan *bind; /* -bind-to: the CPU sets ranks take in turn; else NULL */
    job_doors_t doors;      /* the ranks' doorbells (doors.h) */
    uint32_t *vm_host;      /* --migrate: the host each VM is on now; else NULL */
    uint64_t sec_size;      /* bytes of each rank's write-exclusive section; 0: none */
    struct sect_broker *sect; /* hands the sections out (sect_broker.h); NULL without */
    struct dyn_server *dyn;   /* dynamic processes (dyn_server.h); NULL without */
} job_t;

/* Fills the rank and VM tables (block distribution: VM k gets a contiguous block, unless
 * opts->rank_vm places each rank) and opens the --tag-output pipes. Returns 0 or -errno
 * (printed). */
int job_init(job_t *job, const ivcrun_opts_t *opts);

/* Creates and formats /dev/shm/ivc-<job> (with --hosts, /dev/shm/ivc-<job>-h<k> for each
 * host k) under a fresh random job id, with write-exclusive sections (sect_broker.h) unless
 * the job migrates or IVC_SECTIONS=off. Returns 0 or -errno (printed). */
int job_region_create(job_t *job, uint64_t size);

/* --join: attaches the existing region of a job that other launchers (or guests) share,
 * formatting it if it is still zero-filled. Returns 0 or -errno (printed). */
int job_region_join(job_t *job);

/* The simulated host of this launch's rank `r` (0 without --hosts). */
static inline uint32_t job_host_of(const job_t *job, uint32_t r)
{
    uint32_t vm = job->ranks[r].vm;
    return job->vm_host != NULL ? job->vm_host[vm] : vm / job->opts->vms_per_host;
}

/* The job-wide rank of this launch's rank `r`. */
static inline uint32_t job_global_rank(const job_t *job, uint32_t r)
{
    return job->opts->first_rank + r;
}

/* Opens every app's program (prog_open). Returns 0, or 127 (not found) or 126 (not
 * executable): the exit status, after printing why. */
int job_open_progs(job_t *job);

/* Notes which entries of the host's /tmp hold the programs, the directories their loader
 * searches and the working directories, for the VMs to keep them visible (vm.h). Returns 0
 * or -E2BIG after printing that too many are needed. */
int job_find_tmp_trees(job_t *job);

/* -outfile-pattern/-errfile-pattern: opens each rank's files (here, on the host, so any
 * path works in a VM too). Call once the mode is known (%h). Returns 0 or -errno
 * (printed). */
int job_open_outfiles(job_t *job);

/* The app of this launch's rank `r`. */
static inline uint32_t job_app_of(const job_t *job, uint32_t r)
{
    return (uint32_t)(ivcrun_app_of(job->opts, r) - job->opts->apps);
}

/* The set-up of VM `k` (vm.h); `userns` as job->mode says. */
void job_vm_conf(const job_t *job, uint32_t k, int userns, vm_conf_t *c);

/* Starts every VM (with its ranks) or every plain rank. On failure, the ones already started
 * keep running for the caller to stop. Returns 0 or -errno (printed). */
int job_start(job_t *job);

/* Sends `sig` to every live VM init (which forwards it to its ranks) or plain rank (its
 * process group). */
void job_signal(job_t *job, int sig);

/* "vm3" or "pid 1234" (plain mode): where rank `r` runs, for messages. */
const char *job_where(const job_t *job, uint32_t r, char *buf, size_t len);

/* Closes descriptors and unmaps the region, removing it unless --keep-region. */
void job_fini(job_t *job);

#endif
