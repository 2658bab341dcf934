/* The workload of the hostile-writer tests (run.c scribbles on the job's region while it
 * runs). Every rank communicates until rank 0 says stop (decided by time, agreed through an
 * Allreduce each round) and checks every byte it receives against its own checksum and
 * pattern. Lines on stdout, for run.c:
 *   JOB <id>                          rank 0, once: the region is /dev/shm/ivc-<id>
 *   AREA win <rank> <offset> <bytes>  rma mode: this rank's window memory in the region
 *   READY <rank>                      set up; run.c starts scribbling when all are ready
 *   RESULT <rank> ok <rounds>         finished with correct data
 *   RESULT <rank> error <text>        an MPI call failed (a report): exit 3
 *   RESULT <rank> CORRUPT <text>      wrong data delivered as success: exit 4
 *   OWN <rank> <writes> <bytes>       the own-section scribbler's count (below)
 *
 * With HOSTILE_OWN=R in the environment, rank R turns on itself: once ready, a thread of it
 * writes random bytes over its own write-exclusive section (its channel block, the slots
 * it made private to each peer, its collective area: every mapping of memfd:ivc-sec-R*)
 * for HOSTILE_OWN_S seconds (default 2) while the rank goes on communicating. That is what
 * a faulty rank can do by construction; its peers must not hang, must not take a corrupted
 * message as success (with IVC_CHECKSUM=1), and must blame it and no one else (run.c).
 * Without check words, the rank that receives from it in the p2p ring counts the wrong
 * messages it gets from it (the writer's own data) instead of stopping at the first:
 *   WRITERDATA <rank> <n> ...
 *
 * coll runs every collective each round (Bcast, Allreduce, Allgather, Alltoall, Scatter,
 * Gather, Reduce_scatter_block, Reduce, Scan, and a non-contiguous Bcast and Allgather),
 * or only the one HOSTILE_COLL names (want() below).
 *
 * usage: work p2p|coll|rma SECONDS */
#define _GNU_SOURCE
#include <mpi.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

static void result_error(const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    printf("RESULT %d error %s: %s\n", rank, what, msg);
    fflush(stdout);
    _exit(3);
}

static void result_corrupt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("RESULT %d CORRUPT ", rank);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    _exit(4);
}

#define CALL(what, expr)                                                                           \
    do {                                                                                           \
        int rc_ = (expr);                                                                          \
        if (rc_ != MPI_SUCCESS)                                                                    \
            result_error(what, rc_);                                                               \
    } while (0)

static uint8_t pat(uint64_t seed, uint64_t i)
{
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ (seed << 17) ^ (seed >> 3);
    x ^= x >> 29;
    return (uint8_t)(x * 0xBF58476D1CE4E5B9ull >> 56);
}

/* FNV-1a, 64 bits: this program's own checksum, independent of the library's. */
static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* A message: 8-byte checksum of the rest, then the pattern of (seed, i). */
static void fill(uint8_t *buf, size_t n, uint64_t seed)
{
    for (size_t i = 8; i < n; i++)
        buf[i] = pat(seed, i);
    uint64_t h = fnv(buf + 8, n - 8);
    memcpy(buf, &h, 8);
}

/* Set on the receiver of a rank that scribbles its own section, without check words: what
 * it gets from that rank may be wrong (the writer's own data); counted, not fatal, so that
 * the run goes on and shows whether anything hangs. */
static int writer_data_ok;
static long writer_data_bad;

static void verify(const uint8_t *buf, size_t n, uint64_t seed, const char *what)
{
    if (writer_data_ok) {
        uint64_t h;
        memcpy(&h, buf, 8);
        int bad = h != fnv(buf + 8, n - 8);
        for (size_t i = 8; i < n && !bad; i++)
            bad = buf[i] != pat(seed, i);
        writer_data_bad += bad;
        return;
    }
    uint64_t h;
    memcpy(&h, buf, 8);
    if (h != fnv(buf + 8, n - 8)) {
        size_t i = 8;
        while (i < n && buf[i] == pat(seed, i))
            i++;
        result_corrupt("%s: checksum of a %zu-byte message differs (first wrong byte: %zu)", what,
                       n, i);
    }
    for (size_t i = 8; i < n; i++)
        if (buf[i] != pat(seed, i))
            result_corrupt("%s: byte %zu of a %zu-byte message differs", what, i, n);
}

/* The region offset of `p`, from this process's mapping of the region file. */
static long region_off(const void *p)
{
    const char *job = getenv("IVC_JOB");
    char name[64];
    snprintf(name, sizeof(name), "ivc-%s", job ? job : "?");
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    long off = -1;
    while (f && fgets(line, sizeof(line), f)) {
        unsigned long lo, hi, foff;
        if (sscanf(line, "%lx-%lx %*s %lx", &lo, &hi, &foff) != 3 || strstr(line, name) == NULL)
            continue;
        if ((uintptr_t)p >= lo && (uintptr_t)p < hi)
            off = (long)((uintptr_t)p - lo + foff);
    }
    if (f)
        fclose(f);
    return off;
}

/* ---- a rank that scribbles its own section (HOSTILE_OWN) ---- */

static struct {
    uintptr_t lo, hi;
} own_maps[256];
static int nown;
static double own_secs = 2.0;

/* Every writable mapping of this rank's section and its private parts. */
static void find_own(void)
{
    char name[48], line[512];
    snprintf(name, sizeof(name), "memfd:ivc-sec-%d", rank);
    size_t nl = strlen(name);
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && fgets(line, sizeof(line), f) && nown < 256) {
        unsigned long lo, hi;
        char perms[8];
        const char *at = strstr(line, name);
        if (at == NULL || (at[nl] != ' ' && at[nl] != '\n' && at[nl] != '-') ||
            sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[1] != 'w')
            continue;
        own_maps[nown].lo = lo;
        own_maps[nown].hi = hi;
        nown++;
    }
    if (f)
        fclose(f);
}

static void *own_scribbler(void *arg)
{
    (void)arg;
    uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() << 20, total = 0;
    for (int i = 0; i < nown; i++)
        total += own_maps[i].hi - own_maps[i].lo;
    long writes = 0;
    double t0 = MPI_Wtime();
    while (total > 0 && MPI_Wtime() - t0 < own_secs) {
        for (int k = 0; k < 16; k++, writes++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint64_t pick = x % total;
            int i = 0;
            while (pick >= own_maps[i].hi - own_maps[i].lo)
                pick -= own_maps[i].hi - own_maps[i].lo, i++;
            uint64_t n = x % 4 == 0 ? 64 : 8, room = own_maps[i].hi - own_maps[i].lo - pick;
            uint8_t *p = (uint8_t *)own_maps[i].lo + pick;
            for (uint64_t b = 0; b < n && b < room; b++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                ((volatile uint8_t *)p)[b] = (uint8_t)x;
            }
        }
        usleep(200);
    }
    printf("OWN %d %ld %llu\n", rank, writes, (unsigned long long)total);
    return NULL;
}

static int stop_now(double t0, double secs)
{
    int mine = rank == 0 && MPI_Wtime() - t0 > secs, any = 0;
    CALL("MPI_Allreduce (stop)", MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    return any;
}

static const size_t p2p_sizes[] = {16, 1000, 4000, 20000, 300000, 1 << 20};
#define NSIZES (sizeof(p2p_sizes) / sizeof(p2p_sizes[0]))

static long run_p2p(double secs)
{
    uint8_t *out = malloc(1 << 20), *in = malloc(1 << 20);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    double t0 = MPI_Wtime();
    long round;
    for (round = 0; !stop_now(t0, secs); round++) {
        for (size_t k = 0; k < NSIZES; k++) {
            size_t n = p2p_sizes[k];
            uint64_t seed = (uint64_t)round * 1000 + k * 10;
            fill(out, n, seed + (uint64_t)rank);
            MPI_Status st;
            CALL("MPI_Sendrecv", MPI_Sendrecv(out, (int)n, MPI_BYTE, to, (int)k, in, (int)n,
                                              MPI_BYTE, from, (int)k, MPI_COMM_WORLD, &st));
            int got = -1;
            MPI_Get_count(&st, MPI_BYTE, &got);
            if (got != (int)n)
                result_corrupt("received %d bytes, expected %zu", got, n);
            verify(in, n, seed + (uint64_t)from, "p2p");
        }
    }
    free(out);
    free(in);
    return round;
}

/* The rest of the collectives, each result checked (the values depend on the round, the
 * contributing rank and the element): rooted ones with the root moving, personalised
 * blocks, reductions and prefixes, and a non-contiguous operand. iv holds NI ints (also
 * scratch here), all size * NI ints. */
enum { NI = 2000 };

/* HOSTILE_COLL=<name> runs that collective alone each round (besides the Allreduce that
 * decides when to stop), so that a scribble is found by it and not by whichever collective
 * comes first: bcast allreduce allgather alltoall scatter gather reduce_scatter reduce scan
 * vector. */
static int want(const char *name)
{
    const char *only = getenv("HOSTILE_COLL");
    return only == NULL || *only == 0 || strcmp(only, name) == 0;
}

static int val(long round, int from, int to, int i)
{
    return (int)(round + i) * (from + 1) + to * 7;
}

static void more_colls(long round, int *iv, int *all, MPI_Datatype vec)
{
    int nb = NI / size, root = (int)((round + 1) % size);
    int *out = malloc((size_t)size * NI * sizeof(int));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < nb; i++)
            out[r * nb + i] = val(round, rank, r, i);
    if (want("alltoall")) {
        CALL("MPI_Alltoall", MPI_Alltoall(out, nb, MPI_INT, all, nb, MPI_INT, MPI_COMM_WORLD));
        for (int r = 0; r < size; r++)
            for (int i = 0; i < nb; i++)
                if (all[r * nb + i] != val(round, r, rank, i))
                    result_corrupt("alltoall block from %d differs at %d", r, i);
    }

    if (want("scatter")) {
        CALL("MPI_Scatter",
             MPI_Scatter(out, nb, MPI_INT, iv, nb, MPI_INT, root, MPI_COMM_WORLD));
        for (int i = 0; i < nb; i++)
            if (iv[i] != val(round, root, rank, i))
                result_corrupt("scatter from %d differs at %d", root, i);
    }
    if (want("gather")) {
        for (int i = 0; i < nb; i++)
            iv[i] = val(round, rank, root, i);
        CALL("MPI_Gather", MPI_Gather(iv, nb, MPI_INT, all, nb, MPI_INT, root, MPI_COMM_WORLD));
        for (int r = 0; rank == root && r < size; r++)
            for (int i = 0; i < nb; i++)
                if (all[r * nb + i] != val(round, r, root, i))
                    result_corrupt("gather block from %d differs at %d", r, i);
    }

    /* Sums: rank k contributes val(round, k, r, i) to element i of block r. */
    if (want("reduce_scatter")) {
        CALL("MPI_Reduce_scatter_block",
             MPI_Reduce_scatter_block(out, iv, nb, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (int i = 0; i < nb; i++) {
            int sum = 0;
            for (int k = 0; k < size; k++)
                sum += val(round, k, rank, i);
            if (iv[i] != sum)
                result_corrupt("reduce_scatter_block element %d: got %d, want %d", i, iv[i], sum);
        }
    }
    if (want("reduce")) {
        CALL("MPI_Reduce",
             MPI_Reduce(out, all, size * nb, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
        for (int j = 0; rank == root && j < size * nb; j++) {
            int sum = 0;
            for (int k = 0; k < size; k++)
                sum += val(round, k, j / nb, j % nb);
            if (all[j] != sum)
                result_corrupt("reduce element %d: got %d, want %d", j, all[j], sum);
        }
    }
    if (want("scan")) {
        CALL("MPI_Scan", MPI_Scan(out, all, nb, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (int i = 0; i < nb; i++) {
            int sum = 0;
            for (int k = 0; k <= rank; k++)
                sum += val(round, k, 0, i);
            if (all[i] != sum)
                result_corrupt("scan element %d: got %d, want %d", i, all[i], sum);
        }
    }
    if (!want("vector")) {
        free(out);
        return;
    }

    /* Every other int of NI, broadcast from the root and gathered from everyone. */
    for (int i = 0; i < NI; i++)
        iv[i] = i % 2 ? -1 : val(round, root, 0, i);
    if (rank != root)
        for (int i = 0; i < NI; i++)
            iv[i] = -1;
    CALL("MPI_Bcast (vector)", MPI_Bcast(iv, 1, vec, root, MPI_COMM_WORLD));
    for (int i = 0; i < NI; i++)
        if (iv[i] != (i % 2 ? -1 : val(round, root, 0, i)))
            result_corrupt("bcast of a vector from %d differs at %d", root, i);
    for (int i = 0; i < NI; i += 2)
        iv[i] = val(round, rank, 1, i);
    CALL("MPI_Allgather (vector)",
         MPI_Allgather(iv, 1, vec, all, NI / 2, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < NI / 2; i++)
            if (all[r * (NI / 2) + i] != val(round, r, 1, 2 * i))
                result_corrupt("allgather of a vector from %d differs at %d", r, 2 * i);
    free(out);
}

static long run_coll(double secs)
{
    enum { N = 100000 };
    uint8_t *buf = malloc(N);
    int *iv = malloc(NI * sizeof(int)), *ov = malloc(NI * sizeof(int));
    int *all = malloc((size_t)size * NI * sizeof(int));
    /* Every other int of NI / 2: operands that are not contiguous (packed privately). */
    MPI_Datatype vec;
    MPI_Type_vector(NI / 2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    double t0 = MPI_Wtime();
    long round;
    for (round = 0; !stop_now(t0, secs); round++) {
        int root = (int)(round % size);
        uint64_t seed = (uint64_t)round * 7 + 1;
        if (rank == root)
            fill(buf, N, seed);
        else
            memset(buf, 0, N);
        if (want("bcast")) {
            CALL("MPI_Bcast", MPI_Bcast(buf, N, MPI_BYTE, root, MPI_COMM_WORLD));
            verify(buf, N, seed, "bcast");
        }
        for (int i = 0; i < NI; i++)
            iv[i] = (int)(round + i) * (rank + 1);
        if (want("allreduce")) {
            CALL("MPI_Allreduce", MPI_Allreduce(iv, ov, NI, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            for (int i = 0; i < NI; i++)
                if (ov[i] != (int)(round + i) * (size * (size + 1) / 2))
                    result_corrupt("allreduce element %d: got %d", i, ov[i]);
        }
        if (want("allgather")) {
            CALL("MPI_Allgather",
                 MPI_Allgather(iv, NI, MPI_INT, all, NI, MPI_INT, MPI_COMM_WORLD));
            for (int r = 0; r < size; r++)
                for (int i = 0; i < NI; i++)
                    if (all[r * NI + i] != (int)(round + i) * (r + 1))
                        result_corrupt("allgather block %d differs at %d", r, i);
        }
        more_colls(round, iv, all, vec);
        CALL("MPI_Barrier", MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_Type_free(&vec);
    free(buf);
    free(iv);
    free(ov);
    free(all);
    return round;
}

static long run_rma(double secs, MPI_Win win, uint8_t *base, size_t wbytes)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    uint8_t *out = malloc(wbytes), *back = malloc(wbytes);
    double t0 = MPI_Wtime();
    long round;
    for (round = 0; !stop_now(t0, secs); round++) {
        uint64_t seed = (uint64_t)round * 31 + (uint64_t)rank;
        fill(out, wbytes, seed);
        CALL("MPI_Win_lock", MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, win));
        CALL("MPI_Put", MPI_Put(out, (int)wbytes, MPI_BYTE, to, 0, (int)wbytes, MPI_BYTE, win));
        CALL("MPI_Win_unlock", MPI_Win_unlock(to, win));
        CALL("MPI_Win_lock (get)", MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
        CALL("MPI_Get", MPI_Get(back, (int)wbytes, MPI_BYTE, to, 0, (int)wbytes, MPI_BYTE, win));
        CALL("MPI_Win_unlock (get)", MPI_Win_unlock(to, win));
        verify(back, wbytes, seed, "rma get");
        CALL("MPI_Barrier", MPI_Barrier(MPI_COMM_WORLD));
        CALL("MPI_Win_lock (own)", MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
        verify(base, wbytes, (uint64_t)round * 31 + (uint64_t)from, "rma put");
        CALL("MPI_Win_unlock (own)", MPI_Win_unlock(rank, win));
        CALL("MPI_Barrier", MPI_Barrier(MPI_COMM_WORLD));
    }
    free(out);
    free(back);
    return round;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: work p2p|coll|rma SECONDS\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *mode = argv[1];
    double secs = atof(argv[2]);
    if (rank == 0)
        printf("JOB %s\n", getenv("IVC_JOB") ? getenv("IVC_JOB") : "?");
    MPI_Win win = MPI_WIN_NULL;
    uint8_t *base = NULL;
    size_t wbytes = 4096;
    if (strcmp(mode, "rma") == 0) {
        CALL("MPI_Win_allocate",
             MPI_Win_allocate((MPI_Aint)wbytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        printf("AREA win %d %ld %zu\n", rank, region_off(base), wbytes);
    }
    CALL("MPI_Barrier (ready)", MPI_Barrier(MPI_COMM_WORLD));
    const char *own = getenv("HOSTILE_OWN");
    pthread_t scribbler;
    int scribbling = 0;
    if (own != NULL && atoi(own) == rank) {
        if (getenv("HOSTILE_OWN_S") != NULL)
            own_secs = atof(getenv("HOSTILE_OWN_S"));
        find_own();
        if (nown == 0) {
            printf("RESULT %d error HOSTILE_OWN: this rank has no section of its own\n", rank);
            return 3;
        }
        scribbling = pthread_create(&scribbler, NULL, own_scribbler, NULL) == 0;
    }
    const char *csum = getenv("IVC_CHECKSUM");
    writer_data_ok = own != NULL && strcmp(mode, "p2p") == 0 &&
                     (rank + size - 1) % size == atoi(own) && (csum == NULL || strcmp(csum, "1"));
    printf("READY %d\n", rank);
    long rounds = strcmp(mode, "coll") == 0  ? run_coll(secs)
                  : strcmp(mode, "rma") == 0 ? run_rma(secs, win, base, wbytes)
                                             : run_p2p(secs);
    if (scribbling)
        pthread_join(scribbler, NULL);
    if (win != MPI_WIN_NULL)
        CALL("MPI_Win_free", MPI_Win_free(&win));
    if (writer_data_bad)
        printf("WRITERDATA %d %ld wrong messages from the rank that scribbles its section\n",
               rank, writer_data_bad);
    printf("RESULT %d ok %ld\n", rank, rounds);
    MPI_Finalize();
    return 0;
}
