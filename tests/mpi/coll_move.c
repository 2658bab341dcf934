/* coll_move: the data-moving collectives against references computed locally.
 *
 *  - Barrier: no rank leaves before the last one entered (entry and exit times compared,
 *    one rank entering 30 ms late); 200 barriers in a row complete.
 *  - Bcast: every root class (0, last, middle), 0 B .. 4 MiB + 3 (through the area, the
 *    chunk pipeline and its slot reuse), a vector datatype on one side and bytes on the
 *    other; non-roots' buffers are poisoned first and a guard after the data stays intact.
 *  - Gather / Scatter / Allgather / Alltoall: blocks of 0 B .. 600 KB per rank (larger than
 *    an area: pieces), every block checked at its place, in-place variants at the root
 *    (Gather, Scatter) or everywhere (Allgather, Alltoall), a strided receive datatype.
 *  - Gatherv / Scatterv / Allgatherv / Alltoallv: per-rank counts that differ (some 0),
 *    displacements with gaps that must stay untouched; in-place Gatherv/Allgatherv.
 *  - Alltoallw: per-peer datatypes (MPI_INT / MPI_DOUBLE alternately) at byte displacements.
 * Optional argument: largest size in bytes (default 4 MiB). */
#include "t_util.h"

static int me, np;
static size_t max_size = (size_t)4 << 20;

static uint64_t sd(uint64_t a, uint64_t b, uint64_t c)
{
    return t_seed(a + 1000, b, c);
}

static void test_barrier(void)
{
    for (int i = 0; i < 200; i++)
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* No rank leaves before the last one entered: every exit time is after every entry
     * time (ranks of one host share CLOCK_MONOTONIC, which MPI_Wtime reads). The last rank
     * enters 30 ms late, a different one each round. */
    for (int round = 0; round < 3; round++) {
        if (me == (np - 1 + round) % np)
            t_sleep_ms(30);
        double t[2];
        t[0] = MPI_Wtime();
        MPI_Barrier(MPI_COMM_WORLD);
        t[1] = MPI_Wtime();
        double *all = t_malloc(sizeof(double) * 2 * (size_t)np);
        CHECK_MPI(MPI_Allgather(t, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, MPI_COMM_WORLD));
        double last_in = all[0], first_out = all[1];
        for (int k = 0; k < np; k++) {
            last_in = all[2 * k] > last_in ? all[2 * k] : last_in;
            first_out = all[2 * k + 1] < first_out ? all[2 * k + 1] : first_out;
        }
        if (first_out < last_in)
            t_fail("barrier round %d: a rank left %.3f ms before the last one entered", round,
                   (last_in - first_out) * 1e3);
        free(all);
    }
}

static void test_bcast(void)
{
    static const size_t sizes[] = {
        0,     1,      7,      64,     1000,    4096,          16384,   16385,
        65536, 100000, 262144, 262147, 1 << 20, (1 << 20) + 3, 3 << 20, (4 << 20) + 3};
    char w[128];
    unsigned char *buf = t_malloc(max_size + 64 + 8);
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t n = sizes[si];
        if (n > max_size + 3)
            continue;
        int roots[3] = {0, np - 1, np / 2};
        for (int ri = 0; ri < 3; ri++) {
            int root = roots[ri];
            uint64_t seed = sd(1, n, (uint64_t)root);
            memset(buf, 0x5a, n + 64);
            if (me == root)
                t_fill(buf, n, seed);
            CHECK_MPI(MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD));
            t_check_fill(buf, n, seed, t_fmt(w, sizeof w, "bcast %zu B root %d", n, root));
            t_check_bytes(buf + n, 64, 0x5a, t_fmt(w, sizeof w, "bcast %zu B guard", n));
        }
    }
    /* Vector of ints (every other int) at the root, contiguous ints elsewhere. */
    for (int count = 1; count <= 70000; count *= 7) {
        MPI_Datatype vec;
        MPI_Type_vector(count, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        int *v = t_malloc(sizeof(int) * 2 * (size_t)count);
        int root = count % np;
        for (int i = 0; i < 2 * count; i++)
            v[i] = me == root ? (i % 2 ? -1 : i * 3 + count) : -7;
        if (me == root)
            CHECK_MPI(MPI_Bcast(v, 1, vec, root, MPI_COMM_WORLD));
        else
            CHECK_MPI(MPI_Bcast(v, count, MPI_INT, root, MPI_COMM_WORLD));
        for (int i = 0; i < count && me != root; i++)
            CHECK_INT(2 * i * 3 + count, v[i],
                      t_fmt(w, sizeof w, "bcast vector %d elem %d", count, i));
        for (int i = count; i < 2 * count && me != root; i++)
            CHECK_INT(-7, v[i], "bcast vector: past the data");
        free(v);
        MPI_Type_free(&vec);
    }
    free(buf);
}

static const size_t blks[] = {0, 1, 5, 100, 4096, 30000, 70001, 600000};

static void test_gather_scatter(void)
{
    char w[160];
    for (size_t bi = 0; bi < sizeof(blks) / sizeof(blks[0]); bi++) {
        size_t b = blks[bi];
        if (b * (size_t)np > max_size * 2)
            continue;
        unsigned char *s = t_malloc(b * (size_t)np), *r = t_malloc(b * (size_t)np + 16);
        for (int inplace = 0; inplace < 2; inplace++) {
            int root = (int)(bi + (size_t)inplace) % np;
            /* Gather */
            t_fill(s, b, sd(2, b, (uint64_t)me));
            memset(r, 0x33, b * (size_t)np + 16);
            if (inplace && me == root)
                t_fill(r + (size_t)root * b, b, sd(2, b, (uint64_t)root));
            CHECK_MPI(MPI_Gather(inplace && me == root ? MPI_IN_PLACE : s, (int)b, MPI_BYTE, r,
                                 (int)b, MPI_BYTE, root, MPI_COMM_WORLD));
            if (me == root) {
                for (int k = 0; k < np; k++)
                    t_check_fill(
                        r + (size_t)k * b, b, sd(2, b, (uint64_t)k),
                        t_fmt(w, sizeof w, "gather %zu B in_place %d block %d", b, inplace, k));
                t_check_bytes(r + (size_t)np * b, 16, 0x33, "gather guard");
            }
            /* Scatter */
            if (me == root)
                for (int k = 0; k < np; k++)
                    t_fill(r + (size_t)k * b, b, sd(3, b, (uint64_t)k));
            unsigned char *own = t_malloc(b + 16);
            memset(own, 0x44, b + 16);
            CHECK_MPI(MPI_Scatter(r, (int)b, MPI_BYTE, inplace && me == root ? MPI_IN_PLACE : own,
                                  (int)b, MPI_BYTE, root, MPI_COMM_WORLD));
            if (!(inplace && me == root)) {
                t_check_fill(own, b, sd(3, b, (uint64_t)me),
                             t_fmt(w, sizeof w, "scatter %zu B in_place %d", b, inplace));
                t_check_bytes(own + b, 16, 0x44, "scatter guard");
            } else {
                t_check_fill(r + (size_t)me * b, b, sd(3, b, (uint64_t)me),
                             "scatter in place: root's block untouched");
            }
            free(own);
            /* Allgather */
            memset(r, 0x55, b * (size_t)np + 16);
            if (inplace)
                t_fill(r + (size_t)me * b, b, sd(4, b, (uint64_t)me));
            else
                t_fill(s, b, sd(4, b, (uint64_t)me));
            CHECK_MPI(MPI_Allgather(inplace ? MPI_IN_PLACE : s, (int)b, MPI_BYTE, r, (int)b,
                                    MPI_BYTE, MPI_COMM_WORLD));
            for (int k = 0; k < np; k++)
                t_check_fill(
                    r + (size_t)k * b, b, sd(4, b, (uint64_t)k),
                    t_fmt(w, sizeof w, "allgather %zu B in_place %d block %d", b, inplace, k));
            t_check_bytes(r + (size_t)np * b, 16, 0x55, "allgather guard");
            /* Alltoall: block me -> k has seed (me, k) */
            unsigned char *src = inplace ? r : s;
            for (int k = 0; k < np; k++)
                t_fill(src + (size_t)k * b, b, sd(5, b, (uint64_t)(me * 64 + k)));
            if (!inplace)
                memset(r, 0x66, b * (size_t)np);
            CHECK_MPI(MPI_Alltoall(inplace ? MPI_IN_PLACE : s, (int)b, MPI_BYTE, r, (int)b,
                                   MPI_BYTE, MPI_COMM_WORLD));
            for (int k = 0; k < np; k++)
                t_check_fill(
                    r + (size_t)k * b, b, sd(5, b, (uint64_t)(k * 64 + me)),
                    t_fmt(w, sizeof w, "alltoall %zu B in_place %d from %d", b, inplace, k));
        }
        free(s);
        free(r);
    }
    /* Allgather into a strided receive type: 3 ints per rank, each int followed by a gap. */
    MPI_Datatype strided, resized;
    MPI_Type_vector(3, 1, 2, MPI_INT, &strided);
    MPI_Type_create_resized(strided, 0, 6 * sizeof(int), &resized);
    MPI_Type_commit(&resized);
    int mine[3] = {me * 10, me * 10 + 1, me * 10 + 2};
    int *all = t_malloc(sizeof(int) * 6 * (size_t)np);
    for (int i = 0; i < 6 * np; i++)
        all[i] = -1;
    CHECK_MPI(MPI_Allgather(mine, 3, MPI_INT, all, 1, resized, MPI_COMM_WORLD));
    for (int k = 0; k < np; k++)
        for (int j = 0; j < 3; j++) {
            CHECK_INT(k * 10 + j, all[6 * k + 2 * j], "allgather strided: value");
            CHECK_INT(-1, all[6 * k + 2 * j + 1], "allgather strided: gap untouched");
        }
    free(all);
    MPI_Type_free(&resized);
    MPI_Type_free(&strided);
}

/* Count of ints rank k contributes in the v-tests (some are 0). */
static int vcount(int k, int scale)
{
    return ((k * 37 + 11) % 7 == 3) ? 0 : ((k * 37 + 11) % 7) * scale + k;
}

static void test_v(void)
{
    char w[160];
    for (int scale = 1; scale <= 20000; scale *= 100) {
        int *counts = t_malloc(sizeof(int) * (size_t)np),
            *displs = t_malloc(sizeof(int) * (size_t)np);
        int total = 0;
        for (int k = 0; k < np; k++) {
            counts[k] = vcount(k, scale);
            displs[k] = total + 3; /* a gap of 3 ints before every block */
            total += counts[k] + 3;
        }
        int *buf = t_malloc(sizeof(int) * (size_t)total),
            *mine = t_malloc(sizeof(int) * (size_t)(counts[me] + 1));
        for (int i = 0; i < counts[me]; i++)
            mine[i] = me * 1000003 + i + scale;
        for (int inplace = 0; inplace < 2; inplace++) {
            int root = (scale + inplace) % np;
            /* Gatherv */
            for (int i = 0; i < total; i++)
                buf[i] = -9;
            if (inplace && me == root)
                memcpy(buf + displs[me], mine, sizeof(int) * (size_t)counts[me]);
            CHECK_MPI(MPI_Gatherv(inplace && me == root ? MPI_IN_PLACE : mine, counts[me], MPI_INT,
                                  buf, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
            if (me == root)
                for (int k = 0; k < np; k++) {
                    for (int i = 0; i < counts[k]; i++)
                        CHECK_INT(k * 1000003 + i + scale, buf[displs[k] + i],
                                  t_fmt(w, sizeof w, "gatherv scale %d from %d", scale, k));
                    for (int i = 1; i <= 3; i++)
                        CHECK_INT(-9, buf[displs[k] - i], "gatherv gap untouched");
                }
            /* Allgatherv */
            for (int i = 0; i < total; i++)
                buf[i] = -9;
            if (inplace)
                memcpy(buf + displs[me], mine, sizeof(int) * (size_t)counts[me]);
            CHECK_MPI(MPI_Allgatherv(inplace ? MPI_IN_PLACE : mine, counts[me], MPI_INT, buf,
                                     counts, displs, MPI_INT, MPI_COMM_WORLD));
            for (int k = 0; k < np; k++) {
                for (int i = 0; i < counts[k]; i++)
                    CHECK_INT(k * 1000003 + i + scale, buf[displs[k] + i],
                              t_fmt(w, sizeof w, "allgatherv scale %d from %d", scale, k));
                for (int i = 1; i <= 3; i++)
                    CHECK_INT(-9, buf[displs[k] - i], "allgatherv gap untouched");
            }
            /* Scatterv: the root sends block k = k * 7 + i */
            if (me == root)
                for (int k = 0; k < np; k++)
                    for (int i = 0; i < counts[k]; i++)
                        buf[displs[k] + i] = k * 7 + i - scale;
            int *got = t_malloc(sizeof(int) * (size_t)(counts[me] + 1));
            got[counts[me]] = 4242;
            CHECK_MPI(MPI_Scatterv(buf, counts, displs, MPI_INT,
                                   inplace && me == root ? MPI_IN_PLACE : got, counts[me], MPI_INT,
                                   root, MPI_COMM_WORLD));
            if (!(inplace && me == root))
                for (int i = 0; i < counts[me]; i++)
                    CHECK_INT(me * 7 + i - scale, got[i], "scatterv value");
            CHECK_INT(4242, got[counts[me]], "scatterv guard");
            free(got);
        }
        /* Alltoallv: rank a sends counts2(a, b) ints to b */
        int *sc = t_malloc(sizeof(int) * (size_t)np), *sdp = t_malloc(sizeof(int) * (size_t)np);
        int *rc = t_malloc(sizeof(int) * (size_t)np), *rdp = t_malloc(sizeof(int) * (size_t)np);
        int stot = 0, rtot = 0;
        for (int k = 0; k < np; k++) {
            sc[k] = (me + 2 * k) % 4 == 0 ? 0 : ((me + 2 * k) % 4) * scale;
            rc[k] = (k + 2 * me) % 4 == 0 ? 0 : ((k + 2 * me) % 4) * scale;
            sdp[k] = stot + 1;
            rdp[k] = rtot + 2;
            stot += sc[k] + 1;
            rtot += rc[k] + 2;
        }
        int *sb = t_malloc(sizeof(int) * (size_t)stot), *rb = t_malloc(sizeof(int) * (size_t)rtot);
        for (int k = 0; k < np; k++)
            for (int i = 0; i < sc[k]; i++)
                sb[sdp[k] + i] = me * 100000 + k * 1000 + i;
        for (int i = 0; i < rtot; i++)
            rb[i] = -5;
        CHECK_MPI(MPI_Alltoallv(sb, sc, sdp, MPI_INT, rb, rc, rdp, MPI_INT, MPI_COMM_WORLD));
        for (int k = 0; k < np; k++) {
            for (int i = 0; i < rc[k]; i++)
                CHECK_INT(k * 100000 + me * 1000 + i, rb[rdp[k] + i],
                          t_fmt(w, sizeof w, "alltoallv scale %d from %d elem %d", scale, k, i));
            CHECK_INT(-5, rb[rdp[k] - 1], "alltoallv gap untouched");
        }
        /* Alltoallw: ints to even peers, doubles to odd peers, byte displacements. */
        MPI_Datatype *st = t_malloc(sizeof(MPI_Datatype) * (size_t)np),
                     *rt = t_malloc(sizeof(MPI_Datatype) * (size_t)np);
        int *swc = t_malloc(sizeof(int) * (size_t)np), *rwc = t_malloc(sizeof(int) * (size_t)np);
        int *swd = t_malloc(sizeof(int) * (size_t)np), *rwd = t_malloc(sizeof(int) * (size_t)np);
        int off_s = 0, off_r = 0;
        for (int k = 0; k < np; k++) {
            st[k] = k % 2 ? MPI_DOUBLE : MPI_INT;
            rt[k] = me % 2 ? MPI_DOUBLE : MPI_INT;
            swc[k] = rwc[k] = scale + (k + me) % 3;
            swd[k] = off_s;
            rwd[k] = off_r;
            off_s += swc[k] * (k % 2 ? 8 : 4);
            off_r += rwc[k] * (me % 2 ? 8 : 4);
        }
        char *swb = t_malloc((size_t)off_s), *rwb = t_malloc((size_t)off_r);
        for (int k = 0; k < np; k++)
            for (int i = 0; i < swc[k]; i++) {
                if (k % 2) {
                    double v = me * 1000.5 + i;
                    memcpy(swb + swd[k] + 8 * i, &v, 8);
                } else {
                    int v = me * 1000 + i;
                    memcpy(swb + swd[k] + 4 * i, &v, 4);
                }
            }
        CHECK_MPI(MPI_Alltoallw(swb, swc, swd, st, rwb, rwc, rwd, rt, MPI_COMM_WORLD));
        for (int k = 0; k < np; k++)
            for (int i = 0; i < rwc[k]; i++) {
                if (me % 2) {
                    double v;
                    memcpy(&v, rwb + rwd[k] + 8 * i, 8);
                    CHECK_TRUE(v == k * 1000.5 + i, "alltoallw double value");
                } else {
                    int v;
                    memcpy(&v, rwb + rwd[k] + 4 * i, 4);
                    CHECK_INT(k * 1000 + i, v, "alltoallw int value");
                }
            }
        free(st), free(rt), free(swc), free(rwc), free(swd), free(rwd), free(swb), free(rwb);
        free(sc), free(sdp), free(rc), free(rdp), free(sb), free(rb);
        free(counts), free(displs), free(buf), free(mine);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    me = t_rank;
    np = t_size;
    if (argc > 1)
        max_size = (size_t)strtoull(argv[1], NULL, 0);
    test_barrier();
    test_bcast();
    test_gather_scatter();
    test_v();
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        printf("coll_move: OK (%d ranks)\n", np);
    MPI_Finalize();
    return 0;
}
