/* coll_banks: a rank's small shared-memory publications take the banks of its collective
 * area in turn (src/mpi/coll/coll_impl.h), so a publisher runs ahead of slow readers.
 *
 *  - Run-ahead: after a barrier, the root of 6 small Bcasts (then the non-roots of 6 small
 *    Reduces) returns from all of them while the readers sleep 800 ms before their first;
 *    it must not take 400 ms (one bank, as before, waits for every reader each time).
 *    The readers then check every message.
 *  - A lagging reader: a sequence of Bcast, Reduce, Allreduce and Alltoall of sizes that
 *    fit a small bank and sizes that do not (a whole-area ring, pieces), alternating between
 *    WORLD and a dup (tags of two communicators in the banks at once), roots rotating, one
 *    rank sleeping now and then so that the others are ahead by various amounts when it
 *    looks for a tag. Every result is checked.
 *
 * Run with IVC_COLL_ROOTED_P2P=off, so that small rooted operations stay in shared memory
 * with more ranks than cores. */
#include "t_util.h"

#define AHEAD 6

static int me, np;

static void run_ahead(void)
{
    char w[128];
    unsigned char b[AHEAD][8];
    /* Bcast: root 0 runs ahead. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
        double t0 = MPI_Wtime();
        for (int k = 0; k < AHEAD; k++) {
            t_fill(b[k], 8, t_seed(1, (uint64_t)k, 0));
            CHECK_MPI(MPI_Bcast(b[k], 8, MPI_BYTE, 0, MPI_COMM_WORLD));
        }
        double dt = MPI_Wtime() - t0;
        if (dt > 0.4)
            t_fail("root of %d small Bcasts waited %.3f s for readers that had not started", AHEAD,
                   dt);
    } else {
        t_sleep_ms(800);
        for (int k = 0; k < AHEAD; k++) {
            memset(b[k], 0, 8);
            CHECK_MPI(MPI_Bcast(b[k], 8, MPI_BYTE, 0, MPI_COMM_WORLD));
            t_check_fill(b[k], 8, t_seed(1, (uint64_t)k, 0), t_fmt(w, sizeof w, "bcast %d", k));
        }
    }
    /* Reduce: the non-roots run ahead of root np - 1. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int root = np - 1;
    long v[AHEAD], sum[AHEAD];
    if (me != root) {
        double t0 = MPI_Wtime();
        for (int k = 0; k < AHEAD; k++) {
            v[k] = (long)(me + 1) * (k + 3);
            CHECK_MPI(MPI_Reduce(&v[k], NULL, 1, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD));
        }
        double dt = MPI_Wtime() - t0;
        if (dt > 0.4)
            t_fail("non-root of %d small Reduces waited %.3f s for a root that had not started",
                   AHEAD, dt);
    } else {
        t_sleep_ms(800);
        for (int k = 0; k < AHEAD; k++) {
            v[k] = (long)(me + 1) * (k + 3);
            CHECK_MPI(MPI_Reduce(&v[k], &sum[k], 1, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD));
            CHECK_INT((long)np * (np + 1) / 2 * (k + 3), sum[k],
                      t_fmt(w, sizeof w, "reduce %d", k));
        }
    }
}

/* One step of the lagging sequence on comm. */
static void step(int i, MPI_Comm comm, const char *cname)
{
    static const size_t sizes[] = {8, 1000, 16384, 16385, 40000, 300000, 0, 64, 4096};
    const int nsizes = (int)(sizeof(sizes) / sizeof(sizes[0]));
    char w[160];
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    size_t bytes = sizes[i % nsizes];
    int root = i % n;
    /* Now and then one rank is late (a different one each time). */
    if (i % 4 == 1 && r == (i / 4) % n)
        t_sleep_ms(30);
    switch ((i / nsizes) % 4) {
    case 0: { /* Bcast */
        unsigned char *b = t_malloc(bytes + 1);
        uint64_t seed = t_seed(2, (uint64_t)i, bytes);
        if (r == root)
            t_fill(b, bytes, seed);
        else
            memset(b, 0, bytes);
        CHECK_MPI(MPI_Bcast(b, (int)bytes, MPI_BYTE, root, comm));
        t_check_fill(b, bytes, seed, t_fmt(w, sizeof w, "step %d %s bcast %zu", i, cname, bytes));
        free(b);
        break;
    }
    case 1:   /* Reduce */
    case 2: { /* Allreduce */
        int all = (i / nsizes) % 4 == 2;
        size_t cnt = bytes / sizeof(int);
        int *in = t_malloc((cnt + 1) * sizeof(int)), *out = t_malloc((cnt + 1) * sizeof(int));
        for (size_t k = 0; k < cnt; k++)
            in[k] = (r + 1) * (int)(k % 1000 + (size_t)i);
        if (all)
            CHECK_MPI(MPI_Allreduce(in, out, (int)cnt, MPI_INT, MPI_SUM, comm));
        else
            CHECK_MPI(MPI_Reduce(in, out, (int)cnt, MPI_INT, MPI_SUM, root, comm));
        for (size_t k = 0; (all || r == root) && k < cnt; k++)
            if (out[k] != n * (n + 1) / 2 * (int)(k % 1000 + (size_t)i))
                t_fail("step %d %s %s of %zu ints: element %zu is %d, not %d", i, cname,
                       all ? "allreduce" : "reduce", cnt, k, out[k],
                       n * (n + 1) / 2 * (int)(k % 1000 + (size_t)i));
        free(in);
        free(out);
        break;
    }
    default: { /* Alltoall: blocks of bytes / n */
        size_t blk = bytes / (size_t)n;
        unsigned char *s = t_malloc(blk * (size_t)n + 1), *d = t_malloc(blk * (size_t)n + 1);
        for (int q = 0; q < n; q++)
            t_fill(s + (size_t)q * blk, blk, t_seed((uint64_t)i, (uint64_t)r, (uint64_t)q));
        CHECK_MPI(MPI_Alltoall(s, (int)blk, MPI_BYTE, d, (int)blk, MPI_BYTE, comm));
        for (int q = 0; q < n; q++)
            t_check_fill(d + (size_t)q * blk, blk, t_seed((uint64_t)i, (uint64_t)q, (uint64_t)r),
                         t_fmt(w, sizeof w, "step %d %s alltoall block from %d", i, cname, q));
        free(s);
        free(d);
        break;
    }
    }
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    t_init();
    me = t_rank;
    np = t_size;
    t_require_ranks(2);
    run_ahead();
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    /* The last rank starts late: the others fill their banks before it looks. */
    if (me == np - 1)
        t_sleep_ms(200);
    for (int i = 0; i < 144; i++) {
        if (i % 3 == 2)
            step(i, dup, "dup");
        else
            step(i, MPI_COMM_WORLD, "world");
    }
    CHECK_MPI(MPI_Comm_free(&dup));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        printf("coll_banks: ok (%d ranks)\n", np);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
