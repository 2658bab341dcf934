#include "monitor.h"

#include "sect_broker.h"
#include "dyn_server.h"

#include "migrate.h"
#include "output.h"
#include "pmi_server.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KILL_AFTER_MS    1000 /* SIGTERM, then SIGKILL this much later */
#define DRAIN_MS         1000 /* output still open after the ranks ended (their leftovers) */
#define ABORT_POLL_MS    100  /* how often the region's abort word is read */
#define TIMEOUT_LIST_MAX 32   /* ranks named by the timeout message */
#define ABORT_GRACE_MS   1000 /* waiting for the end of a failed rank that caused an abort */

typedef struct monitor {
    job_t *job;
    int status;       /* exit status of the first failure, -1 while none */
    int deferred;     /* --disable-auto-cleanup: first failed rank's status, -1 while none */
    uint32_t running; /* ranks not yet ended */
    uint64_t kill_at; /* ms: SIGKILL what is left; 0 unless stopping */
    int stopping, killed;
    uint64_t deadline; /* ms: --timeout; 0 for none */
    uint64_t next_abort_check;
    int unlinked; /* the region files' names are gone (every rank has mapped them) */
    uint64_t abort_grace; /* ms: when an abort that followed a failure is reported anyway */
    uint64_t drain_at; /* ms: give up on output; 0 until the ranks have ended */
    output_t *outs;    /* --tag-output: 2 per rank, stdout then stderr */
    size_t nouts;
} monitor_t;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void stop(monitor_t *m, int sig)
{
    if (m->stopping)
        return;
    m->stopping = 1;
    m->kill_at = now_ms() + KILL_AFTER_MS;
    job_signal(m->job, sig);
}

/* Records the first failure: prints "ivcrun: <what>[<then>]", `then` only while ranks are
 * still running, and stops the job with `sig`. Later failures are consequences: ignored. */
static void __attribute__((format(printf, 5, 6)))
fail(monitor_t *m, int status, int sig, const char *then, const char *fmt, ...)
{
    if (m->status >= 0)
        return;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    fprintf(stderr, "ivcrun: %s%s\n", what, m->running > 0 ? then : "");
    m->status = status;
    if (m->running > 0)
        stop(m, sig);
}

/* Whether a rank this launch still counts as running is FAILED in its region: a peer saw
 * it die before this launcher heard of it. */
static int failed_unreaped(monitor_t *m)
{
    job_t *job = m->job;
    for (uint32_t r = 0; r < job->opts->nranks; r++)
        if (job->ranks[r].running &&
            ivc_region_member_get(&job->regions[job_host_of(job, r)], job_global_rank(job, r)) ==
                IVC_MEMBER_FAILED)
            return 1;
    return 0;
}

/* With sections: whether the rank the abort word names says ABORTED in its own section
 * (the word and the file's slot can be written by any rank, or by anyone who can open the
 * file). Without sections the file is all there is. */
static int abort_confirmed(const job_t *job, uint32_t host, uint32_t rank)
{
    if (job->sect == NULL)
        return 1;
    uint32_t r = rank - job->opts->first_rank; /* job_global_rank's inverse (wraps if below) */
    return r < job->opts->nranks && job_host_of(job, r) == host &&
           sect_broker_state(job->sect, r) == IVC_MEMBER_ABORTED;
}

static int check_abort(monitor_t *m)
{
    uint32_t rank;
    int code, aborted = 0;
    uint32_t host = 0;
    for (uint32_t h = 0; h < m->job->nhosts && !aborted; h++)
        if ((aborted = ivc_region_aborted(&m->job->regions[h], &rank, &code)))
            host = h;
    if (!aborted || !abort_confirmed(m->job, host, rank))
        return 0;
    /* An abort because a peer died (MPI_ERRORS_ARE_FATAL): name the rank that died, the
     * cause, once its end reaches this launcher (its status may still be on its way). */
    if (failed_unreaped(m)) {
        uint64_t now = now_ms();
        if (m->abort_grace == 0)
            m->abort_grace = now + ABORT_GRACE_MS;
        if (now < m->abort_grace)
            return 0;
    }
    fail(m, (code & 255) != 0 ? code & 255 : 1, SIGTERM, "; stopping the other ranks",
         "rank %u called MPI_Abort with code %d", rank, code);
    return 1;
}

/* A rank failed. Normally the job stops; with --disable-auto-cleanup the launcher records
 * the failure in the region, which the survivors see at once (faster than their own
 * detectors), and the job goes on. */
static void __attribute__((format(printf, 5, 6)))
rank_failed(monitor_t *m, uint32_t r, int status, const char *what, const char *fmt, ...)
{
    job_t *job = m->job;
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (!job->opts->no_cleanup) {
        fail(m, status, SIGTERM, "; stopping the other ranks", "%s", text);
        return;
    }
    /* Into every host's region: ranks on other hosts learn it as fast as the rank's
     * neighbours (its slot there is ABSENT, which may become FAILED). */
    for (uint32_t h = 0; h < job->nhosts; h++)
        ivc_region_member_fail(&job->regions[h], job_global_rank(job, r), IVC_FAIL_EXITED,
                               IVC_FAIL_BY_LAUNCHER, what);
    fprintf(stderr, "ivcrun: %s%s\n", text,
            m->running > 0 ? "; the other ranks go on (--disable-auto-cleanup)" : "");
    if (m->deferred < 0)
        m->deferred = status;
}

/* Once every rank of the job has joined, each has its region mapped and open: the names
 * can go, so that nothing is left behind even if ivcrun is killed with SIGKILL. (A VM's
 * bind mount of the file goes with the name; the ranks' mappings stay.) */
static void check_joined(monitor_t *m)
{
    job_t *job = m->job;
    /* --migrate: a VM that moves opens the other host's region by its name. */
    if (m->unlinked || job->opts->keep_region || job->opts->join != NULL || job->vm_host != NULL)
        return;
    for (uint32_t r = 0; r < job->opts->nranks; r++)
        if (ivc_region_member_get(&job->regions[job_host_of(job, r)], job_global_rank(job, r)) ==
            IVC_MEMBER_ABSENT)
            return;
    for (uint32_t h = 0; h < job->nhosts; h++)
        unlink(job->region_paths[h]);
    m->unlinked = 1;
}

static void rank_ended(monitor_t *m, uint32_t r, int ws)
{
    job_t *job = m->job;
    if (r >= job->opts->nranks || !job->ranks[r].running)
        return;
    job->ranks[r].running = 0;
    m->running--;
    pmi_server_rank_gone(job->pmi, r);
    uint32_t g = job_global_rank(job, r);
    uint32_t st = ivc_region_member_get(&job->regions[job_host_of(job, r)], g);
    /* A rank a peer declared failed: its own end is the news, not the abort it caused. */
    if (m->status >= 0 || (st != IVC_MEMBER_FAILED && check_abort(m)))
        return;
    char where[32], what[32];
    job_where(job, r, where, sizeof(where));
    if (WIFSIGNALED(ws)) {
        int sig = WTERMSIG(ws);
        snprintf(what, sizeof(what), "killed by signal %d", sig);
        rank_failed(m, r, 128 + sig, what, "rank %u (%s) killed by signal %d (%s)", g, where, sig,
                    strsignal(sig));
    } else if (WEXITSTATUS(ws) != 0) {
        snprintf(what, sizeof(what), "exit status %d", WEXITSTATUS(ws));
        rank_failed(m, r, WEXITSTATUS(ws), what, "rank %u (%s) exited with status %d", g, where,
                    WEXITSTATUS(ws));
    } else if (st == IVC_MEMBER_JOINED || st == IVC_MEMBER_FAILED) {
        rank_failed(m, r, 1, "exit without Finalize",
                    "rank %u (%s) exited without calling MPI_Finalize", g, where);
    } else if (st == IVC_MEMBER_ABORTED) {
        fail(m, 1, SIGTERM, "; stopping the other ranks",
             "rank %u (%s) exited with status 0 after a fatal MPI error", g, where);
    }
}

static void describe_status(int ws, char *buf, size_t len)
{
    if (WIFSIGNALED(ws))
        snprintf(buf, len, "killed by signal %d", WTERMSIG(ws));
    else
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(ws));
}

/* A VM is over once its init is reaped and its status pipe drained: ranks that sent no
 * status died with it. */
static void check_vms(monitor_t *m)
{
    job_t *job = m->job;
    for (uint32_t k = 0; job->mode != JOB_MODE_PLAIN && k < job->opts->nvms; k++) {
        const job_vm_t *v = &job->vms[k];
        if (v->init != 0 || v->status[0] >= 0)
            continue;
        for (uint32_t i = 0; i < v->count; i++) {
            uint32_t r = v->ranks[i];
            if (!job->ranks[r].running)
                continue;
            job->ranks[r].running = 0;
            m->running--;
            char how[64];
            describe_status(v->init_status, how, sizeof(how));
            fail(m, 1, SIGTERM, "; stopping the other ranks",
                 "vm%u ended before rank %u did (its init %s)", k, job_global_rank(job, r), how);
        }
    }
}

static void reap(monitor_t *m)
{
    job_t *job = m->job;
    int ws;
    pid_t pid;
    while ((pid = waitpid(-1, &ws, WNOHANG)) > 0) {
        int failed;
        if (dyn_server_reaped(job->dyn, pid, ws, &failed)) {
            /* A spawned job's failure: its parents learnt it through their sockets; the
             * job goes on, and ivcrun's exit status says it. */
            if (failed && m->deferred < 0)
                m->deferred = 1;
            continue;
        }
        if (job->mode == JOB_MODE_PLAIN) {
            for (uint32_t r = 0; r < job->opts->nranks; r++)
                if (job->ranks[r].pid == pid)
                    rank_ended(m, r, ws);
            continue;
        }
        for (uint32_t k = 0; k < job->opts->nvms; k++) {
            if (job->vms[k].init == pid) {
                job->vms[k].init = 0;
                job->vms[k].init_status = ws;
            }
        }
    }
}

static void read_status(monitor_t *m, uint32_t k)
{
    job_vm_t *v = &m->job->vms[k];
    job_status_rec_t recs[64];
    ssize_t n = read(v->status[0], recs, sizeof(recs));
    if (n < 0 && errno == EINTR)
        return;
    if (n <= 0) {
        close(v->status[0]);
        v->status[0] = -1;
        return;
    }
    /* Records are written whole (smaller than PIPE_BUF), so reads return whole records. */
    for (ssize_t i = 0; i < n / (ssize_t)sizeof(recs[0]); i++)
        if (recs[i].rank < m->job->opts->nranks && m->job->ranks[recs[i].rank].vm == k)
            rank_ended(m, recs[i].rank, recs[i].wait_status);
}

static void on_signal(monitor_t *m, int sigfd)
{
    struct signalfd_siginfo si;
    while (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
            reap(m);
        } else if (m->stopping) {
            m->kill_at = now_ms(); /* asked again: no more waiting */
        } else {
            fail(m, 128 + sig, sig, "; stopping the ranks", "received signal %d (%s)", sig,
                 strsignal(sig));
        }
    }
}

static void on_timeout(monitor_t *m)
{
    job_t *job = m->job;
    char list[1024];
    size_t len = 0, named = 0;
    list[0] = '\0';
    for (uint32_t r = 0; r < job->opts->nranks && len < sizeof(list); r++) {
        if (!job->ranks[r].running)
            continue;
        char where[32];
        if (named++ < TIMEOUT_LIST_MAX)
            len +=
                (size_t)snprintf(list + len, sizeof(list) - len, "%s%u (%s)", named > 1 ? ", " : "",
                                 job_global_rank(job, r), job_where(job, r, where, sizeof(where)));
    }
    if (named > TIMEOUT_LIST_MAX && len < sizeof(list))
        snprintf(list + len, sizeof(list) - len, " and %zu more", named - TIMEOUT_LIST_MAX);
    fail(m, 124, SIGTERM, "; stopping them", "timeout after %u s; ranks still running: %s",
         job->opts->timeout_s, list);
}

static size_t open_outputs(const monitor_t *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nouts; i++)
        n += m->outs[i].fd >= 0;
    return n;
}

/* Takes the read ends of the --tag-output pipes over from the job. */
static int outputs_init(monitor_t *m)
{
    job_t *job = m->job;
    if (!job->opts->tag_output)
        return 0;
    m->nouts = 2 * (size_t)job->opts->nranks;
    m->outs = malloc(m->nouts * sizeof(*m->outs));
    if (m->outs == NULL) {
        fprintf(stderr, "ivcrun: out of memory\n");
        return -ENOMEM;
    }
    for (uint32_t r = 0; r < job->opts->nranks; r++) {
        output_init(&m->outs[2 * r], job->ranks[r].out[0], 1, job_global_rank(job, r),
                    job->opts->tag_output);
        output_init(&m->outs[2 * r + 1], job->ranks[r].err[0], 2, job_global_rank(job, r),
                    job->opts->tag_output);
        job->ranks[r].out[0] = job->ranks[r].err[0] = -1;
    }
    return 0;
}

/* Milliseconds until the next timer, or -1 for none. Also carries out the --migrate moves
 * that are due (migrate.h), which poll for their ranks' replies. */
static int next_wait(const monitor_t *m, uint64_t now)
{
    uint64_t t = UINT64_MAX;
    if (m->stopping && !m->killed && m->kill_at < t)
        t = m->kill_at;
    if (m->status < 0 && m->deadline != 0 && m->deadline < t)
        t = m->deadline;
    if (m->status < 0 && m->running > 0 && m->next_abort_check < t)
        t = m->next_abort_check;
    if (m->drain_at != 0 && m->drain_at < t)
        t = m->drain_at;
    int mig = m->status < 0 && m->running > 0 ? migrate_tick(m->job, now) : -1;
    if (mig >= 0 && now + (uint64_t)mig < t)
        t = now + (uint64_t)mig;
    if (t == UINT64_MAX)
        return -1;
    return t <= now ? 0 : (int)(t - now);
}

static void on_timers(monitor_t *m)
{
    uint64_t now = now_ms();
    if (m->status < 0 && m->deadline != 0 && now >= m->deadline)
        on_timeout(m);
    if (m->status < 0 && now >= m->next_abort_check) {
        check_abort(m);
        check_joined(m);
        m->next_abort_check = now + ABORT_POLL_MS;
    }
    if (m->stopping && !m->killed && now >= m->kill_at) {
        m->killed = 1;
        job_signal(m->job, SIGKILL);
    }
    if (m->drain_at != 0 && now >= m->drain_at)
        for (size_t i = 0; i < m->nouts; i++)
            output_close(&m->outs[i]);
}

static int vms_alive(const job_t *job)
{
    for (uint32_t k = 0; job->mode != JOB_MODE_PLAIN && k < job->opts->nvms; k++)
        if (job->vms[k].init != 0 || job->vms[k].status[0] >= 0)
            return 1;
    return 0;
}

int monitor_run(job_t *job, int sigfd, int start_failed)
{
    monitor_t m = {.job = job, .status = -1, .deferred = -1};
    for (uint32_t r = 0; r < job->opts->nranks; r++)
        m.running += job->ranks[r].running;
    if (start_failed) {
        m.status = 1;
        stop(&m, SIGTERM);
    }
    uint64_t start = now_ms();
    m.next_abort_check = start + ABORT_POLL_MS;
    migrate_start(job, start);
    if (job->opts->timeout_s != 0)
        m.deadline = start + (uint64_t)job->opts->timeout_s * 1000;
    size_t nfds = 1 + job->opts->nvms + 5 * (size_t)job->opts->nranks + 64;
    struct pollfd *pfd = calloc(nfds, sizeof(*pfd));
    void **what = calloc(nfds, sizeof(*what));
    if (pfd == NULL || what == NULL || outputs_init(&m) != 0) {
        if (pfd == NULL || what == NULL)
            fprintf(stderr, "ivcrun: out of memory\n");
        m.status = 1;
        job_signal(job, SIGKILL); /* nothing can watch them: make sure nothing stays */
        goto out;
    }

    for (;;) {
        check_vms(&m);
        if (m.running == 0 && !vms_alive(job) && dyn_server_children(job->dyn) == 0) {
            if (open_outputs(&m) == 0)
                break;
            if (m.drain_at == 0)
                m.drain_at = now_ms() + DRAIN_MS;
        }
        size_t n = 0;
        pfd[n] = (struct pollfd){sigfd, POLLIN, 0};
        what[n++] = NULL;
        for (uint32_t k = 0; job->mode != JOB_MODE_PLAIN && k < job->opts->nvms; k++) {
            if (job->vms[k].status[0] >= 0) {
                pfd[n] = (struct pollfd){job->vms[k].status[0], POLLIN, 0};
                what[n++] = &job->vms[k];
            }
        }
        size_t first_pmi = n;
        if (job->pmi != NULL)
            n += pmi_server_pollfds(job->pmi, pfd + n, nfds - n);
        size_t first_sect = n;
        if (job->sect != NULL)
            n += sect_broker_pollfds(job->sect, pfd + n, nfds - n);
        size_t first_dyn = n;
        if (job->dyn != NULL)
            n += dyn_server_pollfds(job->dyn, pfd + n, nfds - n);
        size_t first_out = n;
        for (size_t i = 0; i < m.nouts; i++) {
            if (m.outs[i].fd >= 0) {
                pfd[n] = (struct pollfd){m.outs[i].fd, POLLIN, 0};
                what[n++] = &m.outs[i];
            }
        }
        int rc = poll(pfd, n, next_wait(&m, now_ms()));
        if (rc < 0 && errno != EINTR) {
            fprintf(stderr, "ivcrun: poll: %s\n", strerror(errno));
            if (m.status < 0)
                m.status = 1;
            job_signal(job, SIGKILL);
            break;
        }
        /* Output first: a rank's last lines come before the news of its end. */
        for (size_t i = first_out; rc > 0 && i < n; i++)
            if (pfd[i].revents != 0)
                output_pump(what[i]);
        uint32_t arank;
        int acode;
        if (rc > 0 && job->pmi != NULL &&
            pmi_server_handle(job->pmi, pfd + first_pmi, first_sect - first_pmi, &arank, &acode))
            fail(&m, (acode & 255) != 0 ? acode & 255 : 1, SIGTERM, "; stopping the other ranks",
                 "rank %u called MPI_Abort with code %d", arank, acode);
        uint32_t srank;
        if (rc > 0 && job->sect != NULL &&
            sect_broker_handle(job->sect, pfd + first_sect, first_dyn - first_sect, &srank))
            fail(&m, 1, SIGTERM, "; stopping the other ranks",
                 "rank %u broke the section hand-over", job_global_rank(job, srank));
        if (rc > 0 && job->dyn != NULL)
            dyn_server_handle(job->dyn, pfd + first_dyn, first_out - first_dyn);
        /* Ends after the sockets: an abort a rank announced, or the section whose state
         * confirms it, arrived before its status did and must be known when it is read. */
        for (size_t i = 1; rc > 0 && i < first_pmi; i++)
            if (pfd[i].revents != 0)
                read_status(&m, (uint32_t)((job_vm_t *)what[i] - job->vms));
        if (rc > 0 && pfd[0].revents != 0)
            on_signal(&m, sigfd);
        on_timers(&m);
    }
out:
    for (size_t i = 0; i < m.nouts; i++)
        output_close(&m.outs[i]);
    free(m.outs);
    free(pfd);
    free(what);
    if (m.status < 0)
        return m.deferred < 0 ? 0 : m.deferred;
    return m.status;
}
