/* A hostile co-tenant: runs a job (ivcrun + work.c), maps its region file once every rank
 * is set up, and writes random bytes over one area of it while the ranks communicate.
 * Passes when the job ends within the bound either with correct data on every rank or with
 * an error report that names a rank or the damaged area; fails on a hang (the job is
 * killed), on wrong data delivered as success (work.c says CORRUPT), or on an end without
 * a report.
 *
 * usage: run AREA IVCRUN WORK [NP]
 *   AREA: header | members | rings | counters | chunks | coll | rma | own-p2p | own-coll |
 *         forge
 * own-*: the writer is a rank of the job (rank 1: work.c's HOSTILE_OWN) scribbling over its
 * own write-exclusive section during the p2p or coll workload; nothing is mapped here. The
 * verdict is the same, and also: no line reports a rank other than the writer as failed or
 * at fault (the blame falls on the section's owner). Without IVC_CHECKSUM=1 the writer's
 * receiver counts wrong data from it (its own data: work.c's WRITERDATA), nobody else
 * may get any, and the blame is not judged: a peer cannot tell a record the writer forged
 * in its own ring from a real one, answers it, and the writer, which never sent it, may
 * call the answer a protocol violation and have that peer declared failed.
 * forge: instead of random bytes, well-formed lies in the membership table and the header's
 * abort word, as a deliberately hostile rank (or co-tenant) would write them: a rank
 * declared failed by an honest peer or by the launcher, a rank marked ABORTED with an abort
 * word naming it, FINALIZED, a failure claim that blocks true declarations. Where the region
 * has sections none of them may count: the job must finish with correct data on every
 * rank, no rank ending itself or stopped by ivcrun.
 * Areas are found the way a co-tenant would find them: the header's offsets, each
 * membership slot's receive block and that block's geometry; collective areas are the heap
 * outside receive blocks (the job runs with IVC_RMA_ARENA=0 and IVC_SHARED_HEAP=off, so
 * nothing else lies there);
 * a window's control block follows its memory in its owner's arena (work.c reports where
 * the memory is). Every value read from the region is checked before it is used. */
#define _GNU_SOURCE
#include "region/region_layout.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SCRIBBLE_S 2.0  /* how long the co-tenant writes */
#define BOUND_S    60.0 /* the job must end this long after the writing starts */
#define WORK_S     "4"  /* seconds of communication (work.c) */

typedef struct range {
    uint64_t off, len;
} range_t;

static range_t ranges[4096];
static int nranges;
static uint64_t total_len;

static char out[1 << 20];
static size_t out_len;
static int np = 3, ready, job_seen;
static char job[64];
static uint64_t win_off[64];
static int nwin;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void add_range(uint64_t off, uint64_t len, uint64_t size)
{
    if (len == 0 || off >= size || len > size - off ||
        nranges == (int)(sizeof(ranges) / sizeof(ranges[0])))
        return;
    ranges[nranges++] = (range_t){off, len};
    total_len += len;
}

/* Parses the lines collected so far (from `from`). */
static void parse(size_t from)
{
    char *p = out + from;
    char *nl;
    while ((nl = memchr(p, '\n', out + out_len - p)) != NULL) {
        *nl = '\0';
        int r;
        unsigned long long off;
        if (sscanf(p, "JOB %63s", job) == 1)
            job_seen = 1;
        else if (sscanf(p, "READY %d", &r) == 1)
            ready++;
        else if (sscanf(p, "AREA win %d %llu", &r, &off) == 2 && nwin < 64)
            win_off[nwin++] = off;
        *nl = '\n';
        p = nl + 1;
    }
}

static size_t parsed;

/* Reads what the job printed; returns 0 at end of output. */
static int drain(int fd, int timeout_ms)
{
    struct pollfd pf = {fd, POLLIN, 0};
    if (poll(&pf, 1, timeout_ms) <= 0)
        return 1;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0)
        return 0;
    if (out_len + (size_t)n < sizeof(out) - 1) {
        memcpy(out + out_len, buf, (size_t)n);
        out_len += (size_t)n;
        out[out_len] = '\0';
        /* parse whole lines only */
        char *last = memrchr(out + parsed, '\n', out_len - parsed);
        if (last != NULL) {
            parse(parsed);
            parsed = (size_t)(last - out) + 1;
        }
    }
    return 1;
}

/* The ranges of `area` in the mapped region; returns a reason when it cannot find them. */
static const char *find_area(const char *area, uint8_t *base, uint64_t size)
{
    const ivc_region_hdr_t *h = (const ivc_region_hdr_t *)base;
    uint32_t world = h->world_size;
    uint64_t members = h->members_off, heap_off = h->heap_off;
    uint64_t heap_next = ivc_load_relaxed(&((ivc_region_hdr_t *)base)->heap_next);
    if (world == 0 || world > 4096 || members >= size || world * 64ull > size - members)
        return "the header's membership table is not plausible";
    if (!strcmp(area, "header")) {
        add_range(0, IVC_REGION_HDR_SIZE, size);
        return NULL;
    }
    if (!strcmp(area, "members") || !strcmp(area, "forge")) {
        add_range(members, world * sizeof(ivc_member_t), size);
        return NULL;
    }
    if (!strcmp(area, "rma")) {
        /* work.c's windows are 4096 bytes, the first block of each arena; the control
         * block follows on the next line: two lock lines and the shared holders' line
         * (rma_impl.h; one line up to 512 ranks). */
        for (int i = 0; i < nwin; i++)
            add_range(win_off[i] + 4096, 3 * IVC_CACHE_LINE, size);
        return nranges ? NULL : "work.c reported no window in the region";
    }
    range_t blocks[64];
    int nblocks = 0;
    for (uint32_t r = 0; r < world && r < 64; r++) {
        const ivc_member_t *m = (const ivc_member_t *)(base + members) + r;
        uint64_t off = ivc_load_relaxed(&((ivc_member_t *)m)->rx_off);
        if (off == 0 || off >= size || size - off < sizeof(ivc_rxblock_t))
            continue;
        ivc_rxblock_t g;
        memcpy(&g, base + off, sizeof(g));
        if (g.magic != IVC_RXBLOCK_MAGIC || g.block_size > size - off || g.nsenders > 64)
            continue;
        blocks[nblocks++] = (range_t){off, g.block_size};
        for (uint32_t i = 0; i < g.nsenders; i++) {
            uint64_t inbox = off + 4096 + i * g.inbox_stride;
            uint64_t ring = inbox + sizeof(ivc_inbox_ctl_t);
            uint64_t chunks = ring + g.ring_size + g.ring_slack;
            if (!strcmp(area, "counters"))
                add_range(inbox, sizeof(ivc_inbox_ctl_t), size);
            else if (!strcmp(area, "rings"))
                add_range(ring, (uint64_t)g.ring_size + g.ring_slack, size);
            else if (!strcmp(area, "chunks"))
                add_range(chunks, (uint64_t)g.nchunks * g.chunk_size, size);
        }
    }
    if (h->sec_size != 0 && (!strcmp(area, "coll") || !strcmp(area, "rings") ||
                             !strcmp(area, "counters") || !strcmp(area, "chunks"))) {
        /* Write-exclusive sections (src/region/region_sect.h): channel blocks and collective
         * areas lie in the ranks' sealed sections, outside this file. A co-tenant has
         * nothing to write; the job must simply finish. */
        fprintf(stderr, "hostile %s: the region has write-exclusive sections (%llu bytes "
                        "each, outside the file): nothing of it to reach\n",
                area, (unsigned long long)h->sec_size);
        return NULL;
    }
    if (!strcmp(area, "coll")) {
        /* The heap outside receive blocks, page by page. */
        if (heap_next > size)
            heap_next = size;
        for (uint64_t at = (heap_off + 4095) & ~4095ull; at + 4096 <= heap_next; at += 4096) {
            int in_block = 0;
            for (int b = 0; b < nblocks; b++)
                in_block |= at + 4096 > blocks[b].off && at < blocks[b].off + blocks[b].len;
            if (!in_block) {
                if (nranges > 0 && ranges[nranges - 1].off + ranges[nranges - 1].len == at) {
                    ranges[nranges - 1].len += 4096;
                    total_len += 4096;
                } else {
                    add_range(at, 4096, size);
                }
            }
        }
    }
    return nranges ? NULL : "no such area in the region";
}

static void scribble(uint8_t *base)
{
    uint64_t pick = rnd() % total_len;
    int i = 0;
    while (pick >= ranges[i].len) {
        pick -= ranges[i].len;
        i++;
    }
    uint64_t at = ranges[i].off + pick;
    uint64_t n = rnd() % 4 == 0 ? 64 : 8;
    if (n > ranges[i].len - pick)
        n = ranges[i].len - pick;
    for (uint64_t k = 0; k < n; k += 8) {
        uint64_t v = rnd();
        memcpy(base + at + k, &v, n - k < 8 ? n - k : 8);
    }
}

/* One lie about a random rank x, well-formed (see "forge" above). */
static void forge(uint8_t *base)
{
    ivc_region_hdr_t *h = (ivc_region_hdr_t *)base;
    uint32_t world = h->world_size, x = (uint32_t)(rnd() % world);
    ivc_member_t *m = (ivc_member_t *)(base + h->members_off) + x;
    switch (rnd() % 5) {
    case 0: /* declared failed by an honest peer */
    case 1: /* declared failed by the launcher */
        m->fail_how = IVC_FAIL_PROTOCOL;
        m->fail_by = rnd() % 2 ? (x + 1) % world : IVC_FAIL_BY_LAUNCHER;
        snprintf(m->fail_what, sizeof(m->fail_what), "forged");
        ivc_store_release(&m->fail_claim, 1);
        ivc_store_release(&m->state, IVC_MEMBER_FAILED);
        break;
    case 2: /* aborted, with the header's abort word naming it */
        ivc_store_release(&m->state, IVC_MEMBER_ABORTED);
        ivc_store_relaxed(&h->abort_rank, x);
        ivc_store_relaxed(&h->abort_code, 7);
        ivc_store_release(&h->abort_state, 2);
        break;
    case 3:
        ivc_store_release(&m->state, IVC_MEMBER_FINALIZED);
        break;
    default: /* a claim no declarer can get past */
        ivc_store_release(&m->fail_claim, 1);
        break;
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: run AREA IVCRUN WORK [NP]\n");
        return 2;
    }
    const char *area = argv[1];
    if (argc > 4)
        np = atoi(argv[4]);
    int own = !strncmp(area, "own-", 4);
    const char *kind = own ? area + 4 : area;
    const char *mode = !strcmp(kind, "coll") ? "coll" : !strcmp(kind, "rma") ? "rma" : "p2p";
    if (own)
        setenv("HOSTILE_OWN", "1", 1);
    rng ^= (uint64_t)getpid() << 20 ^ (uint64_t)time(NULL);
    fprintf(stderr, "hostile %s: seed %llx\n", area, (unsigned long long)rng);
    if (!strcmp(mode, "coll"))
        setenv("IVC_RMA_ARENA", "0", 1); /* the heap outside receive blocks: collective areas */
    /* The program's own buffers stay out of the region: what lies in the shared heap is
     * user memory, which a co-tenant can change unseen (README, "Security"), and the
     * areas above are found by where the library's own blocks lie. */
    setenv("IVC_SHARED_HEAP", "off", 1);
    int pfd[2];
    if (pipe(pfd) != 0)
        return 1;
    char nps[16];
    snprintf(nps, sizeof(nps), "%d", np);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        close(pfd[0]);
        close(pfd[1]);
        /* --keep-region: ivcrun would remove the file's name once every rank joined, before
         * a co-tenant on a loaded machine gets to open it; this test removes it itself. */
        execl(argv[2], argv[2], "--keep-region", "-n", nps, "--vms", nps, argv[3], mode, WORK_S,
              (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    close(pfd[1]);
    int open_out = 1;

    /* Wait for every rank to be set up. */
    double t0 = now();
    while (open_out && ready < np && now() - t0 < BOUND_S)
        open_out = drain(pfd[0], 100);
    const char *why = NULL;
    uint8_t *base = NULL;
    uint64_t size = 0;
    long writes = 0;
    if (ready < np || !job_seen) {
        why = "the job did not get ready";
    } else if (own) {
        nranges = 0; /* rank 1 writes; this process only watches */
    } else {
        char path[128];
        snprintf(path, sizeof(path), "/dev/shm/ivc-%s", job);
        int fd = open(path, O_RDWR);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < (off_t)IVC_REGION_HDR_SIZE) {
            why = "cannot open the job's region";
        } else {
            size = (uint64_t)st.st_size;
            base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (base == MAP_FAILED) {
                base = NULL;
                why = "cannot map the job's region";
            }
        }
        if (fd >= 0)
            close(fd);
        if (base != NULL)
            why = find_area(area, base, size);
    }
    if (why != NULL) {
        kill(-pid, SIGKILL);
        waitpid(pid, NULL, 0);
        if (job_seen) {
            char path[128];
            snprintf(path, sizeof(path), "/dev/shm/ivc-%s", job);
            unlink(path);
        }
        printf("%s\nFAIL: %s: %s\n", out, area, why);
        return 1;
    }
    if (own)
        fprintf(stderr, "hostile %s: rank 1 writes into its own section\n", area);
    else
        fprintf(stderr, "hostile %s: writing into %d ranges, %llu bytes, for %.0f s\n", area,
                nranges, (unsigned long long)total_len, SCRIBBLE_S);

    /* Write while the job runs. */
    double t1 = now();
    while (open_out && now() - t1 < SCRIBBLE_S) {
        for (int k = 0; k < 16 && total_len > 0; k++, writes++) {
            if (!strcmp(area, "forge"))
                forge(base);
            else
                scribble(base);
        }
        open_out = drain(pfd[0], 0);
        usleep(200);
    }
    /* The bound: the job ends, one way or another. */
    while (open_out && now() - t1 < BOUND_S)
        open_out = drain(pfd[0], 100);
    int status = 0, hung = 0;
    if (open_out) {
        hung = 1;
        kill(-pid, SIGKILL);
    }
    waitpid(pid, &status, 0);
    while (drain(pfd[0], 10))
        ;
    if (base != NULL)
        munmap(base, size);
    {
        /* Kept by ivcrun (--keep-region), or left by a launcher killed with SIGKILL: this
         * job's file only. */
        char path[128];
        snprintf(path, sizeof(path), "/dev/shm/ivc-%s", job);
        unlink(path);
    }
    double took = now() - t1;

    printf("%s", out);
    int ok = 0, errors = 0;
    const char *corrupt = strstr(out, " CORRUPT ");
    for (const char *p = out; (p = strstr(p, "RESULT ")) != NULL; p++) {
        int r;
        char what[16];
        if (sscanf(p, "RESULT %d %15s", &r, what) == 2)
            ok += !strcmp(what, "ok");
    }
    /* A report: the library's or the program's error line naming a rank or an area. */
    const char *report = NULL;
    for (const char *p = out; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[512];
        snprintf(line, sizeof(line), "%.*s", (int)(len < 511 ? len : 511), p);
        int is_err = strstr(line, "error") != NULL;
        int names = strstr(line, "rank ") || strstr(line, "region") || strstr(line, "header") ||
                    strstr(line, "membership") || strstr(line, "collective") ||
                    strstr(line, "window");
        if (is_err && names) {
            errors++;
            if (report == NULL)
                report = p;
        }
    }
    fprintf(stderr,
            "hostile %s: %ld writes; job %s after %.1f s (status %d); %d ranks ok, %d "
            "report lines\n",
            area, writes, hung ? "KILLED" : "ended", took,
            WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), ok, errors);
    if (hung) {
        printf("FAIL: %s: the job did not end within %.0f s of the writes (hang)\n", area, BOUND_S);
        return 1;
    }
    if (corrupt) {
        printf("FAIL: %s: wrong data delivered as success:%.*s\n", area,
               (int)strcspn(corrupt, "\n"), corrupt);
        return 1;
    }
    const char *csum_env = getenv("IVC_CHECKSUM");
    if (own && (csum_env == NULL || strcmp(csum_env, "1") != 0))
        fprintf(stderr, "hostile %s: no check words: the blame is not judged (a record the "
                        "writer forged in its own ring is taken for its own, and the writer may "
                        "then call its peer's answer a protocol violation: README)\n",
                area);
    else if (own) {
        /* The blame falls on the writer alone: no line says another rank broke the protocol
         * or failed, no rank but the writer is declared failed by a peer, and no rank but
         * the writer crashed (an honest rank may exit with an error it was given). */
        for (const char *p = out; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
            size_t len = strcspn(p, "\n");
            char line[512];
            snprintf(line, sizeof(line), "%.*s", (int)(len < 511 ? len : 511), p);
            int bad = -1, r, sig;
            const char *d = strstr(line, "declared this rank failed");
            const char *me = strstr(line, "ivc[");
            if (d != NULL && me != NULL && sscanf(me, "ivc[%d]", &r) == 1 && r != 1)
                bad = r;
            for (const char *q = line; bad < 0 && (q = strstr(q, "rank ")) != NULL; q++) {
                char word[16] = "";
                if (sscanf(q, "rank %d %15s", &r, word) != 2 || r == 1)
                    continue;
                if (!strcmp(word, "broke") || !strncmp(word, "failed", 6))
                    bad = r;
                const char *k = strstr(q, "killed by signal ");
                if (k != NULL && sscanf(k, "killed by signal %d", &sig) == 1 &&
                    (sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT || sig == SIGILL ||
                     sig == SIGFPE) && (size_t)(k - q) < 40)
                    bad = r;
            }
            if (bad >= 0) {
                printf("FAIL: %s: rank %d, not the writer (rank 1), is blamed or crashed: %s\n",
                       area, bad, line);
                return 1;
            }
        }
    }
    if (!strcmp(area, "forge")) {
        /* Nothing forged may count: every rank finishes, none ends itself or is stopped. */
        const char *ended = strstr(out, "declared this rank failed");
        if (ended == NULL)
            ended = strstr(out, "called MPI_Abort");
        if (ended == NULL)
            ended = strstr(out, "; ending");
        if (ended != NULL || ok != np || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            const char *at = ended;
            while (at != NULL && at > out && at[-1] != '\n')
                at--;
            printf("FAIL: %s: a forged record counted (%d of %d ranks ok, status %d)%s%.*s\n",
                   area, ok, np, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
                   at != NULL ? ": " : "", at != NULL ? (int)strcspn(at, "\n") : 0,
                   at != NULL ? at : "");
            return 1;
        }
        printf("PASS: %s: %ld forged records, none counted; every rank finished with correct "
               "data\n",
               area, writes);
        return 0;
    }
    if (ok == np && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        printf("PASS: %s: every rank finished with correct data\n", area);
        return 0;
    }
    if (report) {
        printf("PASS: %s: reported: %.*s\n", area, (int)strcspn(report, "\n"), report);
        return 0;
    }
    printf("FAIL: %s: the job ended (%d of %d ranks ok) without a report naming a rank or the "
           "area\n",
           area, ok, np);
    return 1;
}
