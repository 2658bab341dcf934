/* paths: every rendezvous path of the shared-memory channel, with data checks, and which
 * path each message took.
 *
 * Buffers come from the shared heap (MPI_Alloc_mem) or from private memory (mmap, which
 * no allocator interposes). For every pair (sender in heap or not) x (receiver in heap or
 * not), sizes around the switches (the eager limit, the shared heap's threshold, powers of
 * two and one byte either side, 2 MiB + 1), odd offsets into both buffers, then
 * non-contiguous datatypes on either side, truncated receives, and four messages in flight
 * at once whose paths differ (receives that wait for the sender's write-done queue behind
 * pipeline receives). Every byte and the guard bytes after each receive are checked.
 *
 * Expected path: the sender's contiguous heap buffer is read by the receiver (one-copy
 * read); else a contiguous heap receive buffer is written by the sender (one-copy write);
 * else the pipeline. The library's IVC_REPORT_PATH lines, printed at MPI_Finalize, are
 * captured from stderr and compared per size class from 8 KiB with what this program
 * predicted for each message: none for a message sent eagerly (up to the eager limit,
 * IVC_EAGER_LIMIT or its default 16 KiB, unless a contiguous heap send buffer above 4 KiB
 * makes it a one-copy read).
 * Argument "off": IVC_ONE_COPY=no is expected (every message through the pipeline). */
#include "t_util.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUARD   64
#define CANARY  0x3c
#define MAXMSG  ((size_t)2 << 20)
#define BUFSZ   (MAXMSG + 4096)
#define NB      64
enum { P_READ, P_WRITE, P_PIPE };

static uint64_t expect_sent[3][NB], expect_recv[3][NB];
static int one_copy = 1;
static size_t eager_limit = 16384; /* IVC_EAGER_LIMIT's default */
#define ONE_COPY_MIN 4096          /* IVC_SHM_ONE_COPY_MIN (src/shm/shm_config.h) */

static int bucket(size_t n)
{
    return n ? 63 - __builtin_clzll((unsigned long long)n) : 0;
}

/* A message of n bytes of which the receiver accepts `accept`. */
static void predict(int sender, int s_heap_contig, int r_heap_contig, size_t n, size_t accept)
{
    if (n <= eager_limit && !(one_copy && s_heap_contig && n > ONE_COPY_MIN))
        return; /* eager: no rendezvous path */
    int path = !one_copy ? P_PIPE : s_heap_contig ? P_READ : r_heap_contig && accept ? P_WRITE : P_PIPE;
    if (t_rank == sender)
        expect_sent[path][bucket(accept)]++;
    else
        expect_recv[path][bucket(accept)]++;
}

static unsigned char *heap_buf[2], *priv_buf[2];

static unsigned char *buf(int heap, int which)
{
    return heap ? heap_buf[which] : priv_buf[which];
}

/* One message of n bytes from `from` to the other rank, contiguous, at the given offsets;
 * the receive buffer holds `cap` bytes. */
static void one(int from, int s_heap, int r_heap, size_t n, size_t soff, size_t roff, size_t cap,
                uint64_t seed)
{
    char what[200];
    t_fmt(what, sizeof what, "%zu bytes %s->%s, offsets %zu/%zu, capacity %zu", n,
          s_heap ? "heap" : "private", r_heap ? "heap" : "private", soff, roff, cap);
    if (t_rank == from) {
        unsigned char *s = buf(s_heap, 0) + soff;
        t_fill(s, n, seed);
        MPI_Send(s, (int)n, MPI_BYTE, 1 - from, 7, MPI_COMM_WORLD);
    } else {
        unsigned char *r = buf(r_heap, 1) + roff;
        memset(r, CANARY, cap + GUARD);
        MPI_Status st;
        int rc = MPI_Recv(r, (int)cap, MPI_BYTE, from, 7, MPI_COMM_WORLD, &st);
        size_t got = n < cap ? n : cap;
        if (n > cap)
            CHECK_INT(MPI_ERR_TRUNCATE, rc == MPI_SUCCESS ? st.MPI_ERROR : rc, what);
        else
            CHECK_INT(MPI_SUCCESS, rc, what);
        t_check_fill(r, got, seed, what);
        t_check_bytes(r + got, GUARD + (cap - got), CANARY, what);
    }
    predict(from, s_heap, r_heap, n, n < cap ? n : cap);
}

/* A vector of n/8 blocks of 3 bytes at a stride of 8 bytes, sent or received. */
static void strided(int from, int s_heap, int r_heap, int s_vec, size_t nblocks, uint64_t seed)
{
    char what[160];
    t_fmt(what, sizeof what, "%zu 3-byte blocks, %s side strided, %s->%s", nblocks,
          s_vec ? "send" : "receive", s_heap ? "heap" : "private", r_heap ? "heap" : "private");
    MPI_Datatype vec;
    MPI_Type_vector((int)nblocks, 3, 8, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    size_t n = nblocks * 3;
    if (t_rank == from) {
        unsigned char *s = buf(s_heap, 0), *packed = malloc(n);
        t_fill(packed, n, seed);
        if (s_vec) {
            for (size_t b = 0; b < nblocks; b++)
                memcpy(s + b * 8, packed + b * 3, 3);
            MPI_Send(s, 1, vec, 1 - from, 8, MPI_COMM_WORLD);
        } else {
            memcpy(s, packed, n);
            MPI_Send(s, (int)n, MPI_BYTE, 1 - from, 8, MPI_COMM_WORLD);
        }
        free(packed);
    } else {
        unsigned char *r = buf(r_heap, 1), *packed = malloc(n);
        memset(r, CANARY, nblocks * 8 + GUARD);
        if (!s_vec) {
            MPI_Recv(r, 1, vec, from, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (size_t b = 0; b < nblocks; b++) {
                memcpy(packed + b * 3, r + b * 8, 3);
                t_check_bytes(r + b * 8 + 3, 5, CANARY, what);
            }
        } else {
            MPI_Recv(r, (int)n, MPI_BYTE, from, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            memcpy(packed, r, n);
        }
        t_check_fill(packed, n, seed, what);
        free(packed);
    }
    /* A strided send buffer is never offered; a strided receive buffer is never named. */
    predict(from, s_heap && !s_vec, r_heap && s_vec, n, n);
    MPI_Type_free(&vec);
}

/* Four messages in flight from rank 0, paths write, read, pipeline, write. */
static void mixed(uint64_t seed)
{
    static const int sh[4] = {0, 1, 0, 0}, rh[4] = {1, 0, 0, 1};
    const size_t n = 40000, stride = 65536;
    MPI_Request req[4];
    for (int k = 0; k < 4; k++) {
        if (t_rank == 0) {
            unsigned char *s = buf(sh[k], 0) + k * stride;
            t_fill(s, n, seed + k);
            MPI_Isend(s, (int)n, MPI_BYTE, 1, 9, MPI_COMM_WORLD, &req[k]);
        } else {
            unsigned char *r = buf(rh[k], 1) + k * stride;
            memset(r, CANARY, n + GUARD);
            MPI_Irecv(r, (int)n, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &req[k]);
        }
        predict(0, sh[k], rh[k], n, n);
    }
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    if (t_rank == 1)
        for (int k = 0; k < 4; k++) {
            char what[64];
            t_fmt(what, sizeof what, "message %d of 4 in flight", k);
            t_check_fill(buf(rh[k], 1) + k * stride, n, seed + k, what);
            t_check_bytes(buf(rh[k], 1) + k * stride + n, GUARD, CANARY, what);
        }
}

/* Parses "ivc: rank R path 64K: sent a/b/c received d/e/f" lines of this rank. */
static int check_report(const char *file)
{
    FILE *f = fopen(file, "r");
    if (f == NULL)
        return 1;
    uint64_t sent[3][NB] = {{0}}, recv[3][NB] = {{0}};
    char line[512];
    int lines = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        int r;
        unsigned long long v;
        char unit[4] = "";
        unsigned long long a, b, c, d, e, g;
        if (sscanf(line, "ivc: rank %d path %llu%3[KMGTPE]: sent %llu/%llu/%llu received %llu/%llu/%llu",
                   &r, &v, unit, &a, &b, &c, &d, &e, &g) == 9 ||
            (unit[0] = '\0',
             sscanf(line, "ivc: rank %d path %llu: sent %llu/%llu/%llu received %llu/%llu/%llu", &r,
                    &v, &a, &b, &c, &d, &e, &g) == 8)) {
            int shift = unit[0] == 'K' ? 10 : unit[0] == 'M' ? 20 : unit[0] == 'G' ? 30 : 0;
            int k = bucket((size_t)v << shift);
            sent[P_READ][k] = a, sent[P_WRITE][k] = b, sent[P_PIPE][k] = c;
            recv[P_READ][k] = d, recv[P_WRITE][k] = e, recv[P_PIPE][k] = g;
            lines++;
        } else {
            fputs(line, stdout); /* anything else the library said */
        }
    }
    fclose(f);
    static const char *name[3] = {"one-copy read", "one-copy write", "pipeline"};
    for (int k = 13; k < NB; k++)
        for (int p = 0; p < 3; p++) {
            if (sent[p][k] != expect_sent[p][k] || recv[p][k] != expect_recv[p][k]) {
                fprintf(stderr,
                        "rank %d: messages of %llu-%llu bytes by %s: expected sent %llu "
                        "received %llu, got sent %llu received %llu\n",
                        t_rank, 1ull << k, (2ull << k) - 1, name[p], (unsigned long long)expect_sent[p][k],
                        (unsigned long long)expect_recv[p][k], (unsigned long long)sent[p][k],
                        (unsigned long long)recv[p][k]);
                bad = 1;
            }
        }
    if (lines == 0) {
        fprintf(stderr, "rank %d: no path report (IVC_REPORT_PATH) was printed\n", t_rank);
        bad = 1;
    }
    return bad;
}

int main(int argc, char **argv)
{
    setenv("IVC_REPORT_PATH", "1", 1);
    const char *lim = getenv("IVC_EAGER_LIMIT");
    if (lim != NULL && *lim != '\0') {
        char *end;
        eager_limit = strtoull(lim, &end, 10);
        eager_limit <<= *end == 'K' ? 10 : *end == 'M' ? 20 : 0;
    }
    if (argc > 1 && strcmp(argv[1], "off") == 0) {
        setenv("IVC_ONE_COPY", "no", 1);
        one_copy = 0;
    }
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    if (t_size != 2)
        t_skip("needs exactly 2 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int k = 0; k < 2; k++) {
        if (MPI_Alloc_mem((MPI_Aint)BUFSZ, MPI_INFO_NULL, &heap_buf[k]) != MPI_SUCCESS)
            t_fail("MPI_Alloc_mem of %zu bytes failed", (size_t)BUFSZ);
        priv_buf[k] = mmap(NULL, BUFSZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (priv_buf[k] == MAP_FAILED)
            t_fail("mmap failed");
    }
    static const size_t sizes[] = {4095, 4096, 4097, 8191, 8192, 8193, 65535, 65536, 65537,
                                   1000003, (size_t)2 << 20, ((size_t)2 << 20) + 1};
    static const size_t offs[][2] = {{0, 0}, {1, 7}, {63, 1}};
    uint64_t seed = 1;
    for (int from = 0; from < 2; from++)
        for (int s_heap = 0; s_heap < 2; s_heap++)
            for (int r_heap = 0; r_heap < 2; r_heap++)
                for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
                    for (size_t o = 0; o < 3; o++) {
                        size_t n = sizes[i];
                        if (n + offs[o][0] > MAXMSG + 64 || n + offs[o][1] + GUARD > BUFSZ)
                            continue;
                        one(from, s_heap, r_heap, n, offs[o][0], offs[o][1], n, seed++);
                    }
    /* Truncated: the receive buffer holds less than the message. */
    for (int s_heap = 0; s_heap < 2; s_heap++)
        for (int r_heap = 0; r_heap < 2; r_heap++) {
            one(0, s_heap, r_heap, 100000, 3, 5, 70001, seed++);
            one(1, s_heap, r_heap, 70000, 0, 0, 0, seed++);
        }
    for (int s_heap = 0; s_heap < 2; s_heap++)
        for (int r_heap = 0; r_heap < 2; r_heap++)
            for (int s_vec = 0; s_vec < 2; s_vec++) {
                strided(0, s_heap, r_heap, s_vec, 30001, seed++);
                strided(1, s_heap, r_heap, s_vec, 3001, seed++);
            }
    for (int rep = 0; rep < 3; rep++)
        mixed(seed += 4);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < 2; k++) {
        MPI_Free_mem(heap_buf[k]);
        munmap(priv_buf[k], BUFSZ);
    }

    /* The report goes to stderr during MPI_Finalize: catch it in a file. */
    char file[64];
    snprintf(file, sizeof file, "/tmp/ivc-paths-%d-%d", (int)getpid(), t_rank);
    fflush(stderr);
    int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600), saved = dup(2);
    if (fd < 0 || saved < 0)
        t_fail("cannot redirect stderr");
    dup2(fd, 2);
    MPI_Finalize();
    fflush(stderr);
    dup2(saved, 2);
    close(fd);
    int bad = check_report(file);
    unlink(file);
    if (!bad)
        printf("rank %d: paths as expected\n", t_rank);
    return bad;
}
