#define _GNU_SOURCE
#include "migrate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOVE_POLL_MS   2     /* how often a move in progress is looked at */
#define MOVE_REPORT_MS 10000 /* a move not done by then is reported, once */

static struct {
    uint64_t t0;   /* ms: the ranks started */
    uint32_t next; /* next move in opts->moves (sorted by time) */
    int busy;      /* a move is in progress */
    uint32_t vm, from, to;
    uint64_t seq, started, reported;
} st;

int migrate_parse(ivcrun_opts_t *o, const char *v)
{
    unsigned vm, host;
    double sec;
    int used = 0;
    if (v == NULL || sscanf(v, "%u:%u@%lf%n", &vm, &host, &sec, &used) != 3 || v[used] != '\0' ||
        sec < 0 || sec > 1e6) {
        fprintf(stderr, "ivcrun: --migrate needs VM:HOST@SECONDS (e.g. 1:0@2.5), got '%s'\n",
                v ? v : "");
        return -EINVAL;
    }
    ivcrun_move_t *m = realloc(o->moves, (o->nmoves + 1) * sizeof(*m));
    if (m == NULL)
        return -ENOMEM;
    o->moves = m;
    uint32_t i = o->nmoves++;
    /* Kept sorted by time, ties in the order given. */
    while (i > 0 && m[i - 1].at_ms > (uint64_t)(sec * 1000)) {
        m[i] = m[i - 1];
        i--;
    }
    m[i] = (ivcrun_move_t){vm, host, (uint64_t)(sec * 1000)};
    return 0;
}

int migrate_check(const ivcrun_opts_t *o)
{
    if (o->nmoves == 0)
        return 0;
    if (o->hosts < 2) {
        fprintf(stderr, "ivcrun: --migrate needs --hosts 2 or more\n");
        return -EINVAL;
    }
    for (uint32_t i = 0; i < o->nmoves; i++) {
        if (o->moves[i].vm >= o->nvms || o->moves[i].host >= o->hosts) {
            fprintf(stderr, "ivcrun: --migrate %u:%u: the job has VMs 0..%u and hosts 0..%u\n",
                    o->moves[i].vm, o->moves[i].host, o->nvms - 1, o->hosts - 1);
            return -EINVAL;
        }
    }
    return 0;
}

int migrate_start(job_t *job, uint64_t now_ms)
{
    const ivcrun_opts_t *o = job->opts;
    if (o->nmoves == 0)
        return 0;
    memset(&st, 0, sizeof(st));
    st.t0 = now_ms;
    return 0;
}

static void begin(job_t *job, const ivcrun_move_t *mv, uint64_t now)
{
    uint32_t from = job->vm_host[mv->vm];
    st.vm = mv->vm;
    st.from = from;
    st.to = mv->host;
    st.seq++;
    st.started = now;
    st.reported = 0;
    st.busy = 1;
    /* M1 (region_layout.h): into each rank's slot of the region it is in now. */
    for (uint32_t r = 0; r < job->opts->nranks; r++)
        if (job->ranks[r].vm == mv->vm)
            ivc_store_release(&ivc_region_move(&job->regions[from], job_global_rank(job, r))->order,
                              st.seq << 16 | (mv->host + 1));
}

/* Whether every rank of the moving VM is through: it says it is done, or it ended (died,
 * or finished the program before it took the order: a rank in MPI_Finalize takes none).
 * *took: the slowest one's time; *moved: how many said done. */
static int all_done(job_t *job, uint64_t *took, uint32_t *moved)
{
    *took = 0;
    *moved = 0;
    for (uint32_t r = 0; r < job->opts->nranks; r++) {
        if (job->ranks[r].vm != st.vm)
            continue;
        const ivc_move_t *s = ivc_region_move(&job->regions[st.to], job_global_rank(job, r));
        if (ivc_load_acquire(&s->done) != st.seq) {
            if (job->ranks[r].running)
                return 0;
            continue;
        }
        (*moved)++;
        uint64_t t = ivc_load_relaxed(&s->took_ns);
        if (t > *took)
            *took = t;
    }
    return 1;
}

static int vm_running(const job_t *job, uint32_t vm)
{
    for (uint32_t r = 0; r < job->opts->nranks; r++)
        if (job->ranks[r].vm == vm && job->ranks[r].running)
            return 1;
    return 0;
}

int migrate_tick(job_t *job, uint64_t now)
{
    const ivcrun_opts_t *o = job->opts;
    if (o->nmoves == 0 || job->vm_host == NULL)
        return -1;
    if (st.busy) {
        uint64_t took;
        uint32_t moved;
        int through = all_done(job, &took, &moved);
        if (through && moved == 0) {
            /* Its ranks ended first (the monitor reports a rank that died). */
            st.busy = 0;
            fprintf(stderr, "ivcrun: vm%u did not move to host %u: its ranks ended first\n",
                    st.vm, st.to);
        } else if (through) {
            job->vm_host[st.vm] = st.to;
            st.busy = 0;
            fprintf(stderr,
                    "ivcrun: vm%u moved from host %u to host %u at %.3f s: its ranks switched "
                    "in %.1f ms\n",
                    st.vm, st.from, st.to, (st.started - st.t0) / 1000.0, took / 1e6);
        } else {
            if (!st.reported && now - st.started > MOVE_REPORT_MS) {
                fprintf(stderr,
                        "ivcrun: vm%u has not finished moving to host %u after %d s (its ranks "
                        "move while they are in MPI calls)\n",
                        st.vm, st.to, MOVE_REPORT_MS / 1000);
                st.reported = 1;
            }
            return MOVE_POLL_MS;
        }
    }
    while (st.next < o->nmoves) {
        const ivcrun_move_t *mv = &o->moves[st.next];
        if (now < st.t0 + mv->at_ms)
            return (int)(st.t0 + mv->at_ms - now);
        st.next++;
        if (!vm_running(job, mv->vm))
            continue; /* its ranks ended (the monitor said how): nothing to move */
        if (job->vm_host[mv->vm] == mv->host) {
            fprintf(stderr, "ivcrun: vm%u is on host %u already; not moving it\n", mv->vm,
                    mv->host);
            continue;
        }
        begin(job, mv, now);
        return MOVE_POLL_MS;
    }
    return -1;
}
