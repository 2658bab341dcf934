/* coll_persistent: MPI-4 persistent collectives.
 *
 * Every X_init (Barrier, Bcast, Reduce, Allreduce in place, Scan, Exscan,
 * Reduce_scatter_block, Reduce_scatter with uneven and zero counts, Gather(v), Scatter(v),
 * Allgather(v), Alltoall(v, w)) is made once, with its count/displacement/type arrays
 * overwritten and its operation and a derived datatype freed right after init; then all 17
 * requests are started together (MPI_Startall) for several rounds with new data each round,
 * completed by Waitall or by Test loops, and every result is checked against local
 * references. Requests stay allocated between rounds (inactive: Wait returns at once with an
 * empty status); a blocking and a nonblocking collective run between rounds; Request_free
 * releases them. A persistent Allreduce started 200 times in a row keeps its result exact.
 */
#include "../t_util.h"

static int me, np;
static char w[200];

enum { NREQ = 17, B = 6 };

static int v(int r, int i, int round)
{
    return r * 1000 + i + round * 100000;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    me = t_rank;
    np = t_size;
    int n = np, root = 1 % np;
    MPI_Comm c = MPI_COMM_WORLD;
    MPI_Info inf = MPI_INFO_NULL;
    MPI_Request rq[NREQ];
    /* buffers */
    int *bc = t_malloc(sizeof(int) * B), *red = t_malloc(sizeof(int) * B), *ar = t_malloc(sizeof(int) * B);
    int *sin = t_malloc(sizeof(int) * (size_t)(B * n)), *sc = t_malloc(sizeof(int) * B);
    int *ex = t_malloc(sizeof(int) * B), *rsb = t_malloc(sizeof(int) * B);
    int *rs = t_malloc(sizeof(int) * (size_t)(B + n)), *g = t_malloc(sizeof(int) * (size_t)(B * n));
    int *gv = t_malloc(sizeof(int) * (size_t)(2 * B * n)), *s1 = t_malloc(sizeof(int) * B);
    int *s2 = t_malloc(sizeof(int) * B), *ag = t_malloc(sizeof(int) * (size_t)(B * n));
    int *agv = t_malloc(sizeof(int) * (size_t)(2 * B * n)), *a2a = t_malloc(sizeof(int) * (size_t)(B * n));
    int *a2v = t_malloc(sizeof(int) * (size_t)(2 * B * n)), *a2w = t_malloc(sizeof(int) * (size_t)(2 * B * n));
    int *mine = t_malloc(sizeof(int) * B), *sv = t_malloc(sizeof(int) * (size_t)(2 * B * n));
    int *cnt = t_malloc(sizeof(int) * (size_t)n), *dsp = t_malloc(sizeof(int) * (size_t)n);
    int *bdsp = t_malloc(sizeof(int) * (size_t)n), *rsc = t_malloc(sizeof(int) * (size_t)n);
    MPI_Datatype *ty = t_malloc(sizeof(MPI_Datatype) * (size_t)n), vec;
    /* block r of a v buffer: B elements at 2 * B * r + 1 (gaps around) */
    for (int r = 0; r < n; r++) {
        cnt[r] = B;
        dsp[r] = 2 * B * r + 1;
        bdsp[r] = dsp[r] * (int)sizeof(int);
        ty[r] = MPI_INT;
        rsc[r] = r % 2 ? 0 : B + r;
    }
    int rstot = 0, rsfirst = 0;
    for (int r = 0; r < n; r++) {
        if (r == me)
            rsfirst = rstot;
        rstot += rsc[r];
    }
    int *rsin = t_malloc(sizeof(int) * (size_t)(rstot + 1));
    MPI_Op sum = MPI_SUM;
    CHECK_MPI(MPI_Type_vector(B, 1, 1, MPI_INT, &vec)); /* derived, freed after init */
    CHECK_MPI(MPI_Type_commit(&vec));

    int k = 0;
    CHECK_MPI(MPI_Barrier_init(c, inf, &rq[k++]));
    CHECK_MPI(MPI_Bcast_init(bc, 1, vec, root, c, inf, &rq[k++]));
    CHECK_MPI(MPI_Reduce_init(mine, red, B, MPI_INT, sum, n - 1, c, inf, &rq[k++]));
    CHECK_MPI(MPI_Allreduce_init(MPI_IN_PLACE, ar, B, MPI_INT, MPI_MAX, c, inf, &rq[k++]));
    CHECK_MPI(MPI_Scan_init(mine, sc, B, MPI_INT, MPI_SUM, c, inf, &rq[k++]));
    CHECK_MPI(MPI_Exscan_init(mine, ex, B, MPI_INT, MPI_SUM, c, inf, &rq[k++]));
    CHECK_MPI(MPI_Reduce_scatter_block_init(sin, rsb, B, MPI_INT, MPI_SUM, c, inf, &rq[k++]));
    CHECK_MPI(MPI_Reduce_scatter_init(rsin, rs, rsc, MPI_INT, MPI_SUM, c, inf, &rq[k++]));
    CHECK_MPI(MPI_Gather_init(mine, B, MPI_INT, g, B, MPI_INT, root, c, inf, &rq[k++]));
    CHECK_MPI(MPI_Gatherv_init(mine, B, MPI_INT, gv, cnt, dsp, MPI_INT, root, c, inf, &rq[k++]));
    CHECK_MPI(MPI_Scatter_init(sin, B, MPI_INT, s1, 1, vec, root, c, inf, &rq[k++]));
    CHECK_MPI(MPI_Scatterv_init(sv, cnt, dsp, MPI_INT, s2, B, MPI_INT, root, c, inf, &rq[k++]));
    CHECK_MPI(MPI_Allgather_init(mine, B, MPI_INT, ag, B, MPI_INT, c, inf, &rq[k++]));
    CHECK_MPI(MPI_Allgatherv_init(mine, B, MPI_INT, agv, cnt, dsp, MPI_INT, c, inf, &rq[k++]));
    CHECK_MPI(MPI_Alltoall_init(sin, B, MPI_INT, a2a, B, MPI_INT, c, inf, &rq[k++]));
    CHECK_MPI(MPI_Alltoallv_init(sv, cnt, dsp, MPI_INT, a2v, cnt, dsp, MPI_INT, c, inf, &rq[k++]));
    CHECK_MPI(MPI_Alltoallw_init(sv, cnt, bdsp, ty, a2w, cnt, bdsp, ty, c, inf, &rq[k++]));
    CHECK_INT(NREQ, k, "requests made");
    /* the arrays and the derived type may go away now */
    for (int r = 0; r < n; r++) {
        cnt[r] = -1;
        dsp[r] = bdsp[r] = -99999;
        ty[r] = MPI_DATATYPE_NULL;
        rsc[r] = 77;
    }
    CHECK_MPI(MPI_Type_free(&vec));
    /* an inactive persistent request completes at once */
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&rq[2], &st));
    CHECK_TRUE(rq[2] != MPI_REQUEST_NULL, "Wait leaves an inactive persistent request allocated");

    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < B; i++) {
            bc[i] = me == root ? v(root, i, round) : -1;
            mine[i] = v(me, i, round);
            ar[i] = v(me, i, round);
            red[i] = sc[i] = rsb[i] = s1[i] = s2[i] = -1;
            ex[i] = -1;
        }
        for (int i = 0; i < B * n; i++) {
            sin[i] = v(me, i, round);
            g[i] = ag[i] = a2a[i] = -1;
        }
        for (int i = 0; i < 2 * B * n; i++) {
            sv[i] = v(me, i, round);
            gv[i] = agv[i] = a2v[i] = a2w[i] = -1;
        }
        for (int i = 0; i < rstot; i++)
            rsin[i] = v(me, i, round);
        for (int i = 0; i < B + n; i++)
            rs[i] = -1;
        CHECK_MPI(MPI_Startall(NREQ, rq));
        if (round % 2 == 0) {
            CHECK_MPI(MPI_Waitall(NREQ, rq, MPI_STATUSES_IGNORE));
        } else {
            for (int q = NREQ - 1; q >= 0; q--) {
                int flag = 0;
                while (!flag)
                    CHECK_MPI(MPI_Test(&rq[q], &flag, MPI_STATUS_IGNORE));
            }
        }
        for (int q = 0; q < NREQ; q++)
            CHECK_TRUE(rq[q] != MPI_REQUEST_NULL, "persistent requests stay allocated");
        for (int i = 0; i < B; i++) {
            long long s = 0, pre = 0, bs = 0;
            int mx = 0;
            for (int r = 0; r < n; r++) {
                s += v(r, i, round);
                bs += v(r, me * B + i, round);
                if (r < me)
                    pre += v(r, i, round);
                if (v(r, i, round) > mx)
                    mx = v(r, i, round);
            }
            CHECK_INT(v(root, i, round), bc[i], t_fmt(w, sizeof w, "Bcast_init round %d [%d]", round, i));
            if (me == n - 1)
                CHECK_INT(s, red[i], t_fmt(w, sizeof w, "Reduce_init round %d [%d]", round, i));
            CHECK_INT(mx, ar[i], t_fmt(w, sizeof w, "Allreduce_init in place round %d [%d]", round, i));
            CHECK_INT(pre + v(me, i, round), sc[i], t_fmt(w, sizeof w, "Scan_init round %d [%d]", round, i));
            if (me > 0)
                CHECK_INT(pre, ex[i], t_fmt(w, sizeof w, "Exscan_init round %d [%d]", round, i));
            CHECK_INT(bs, rsb[i], t_fmt(w, sizeof w, "Reduce_scatter_block_init round %d [%d]", round, i));
            CHECK_INT(v(root, me * B + i, round), s1[i], t_fmt(w, sizeof w, "Scatter_init round %d [%d]", round, i));
            CHECK_INT(v(root, 2 * B * me + 1 + i, round), s2[i],
                      t_fmt(w, sizeof w, "Scatterv_init round %d [%d]", round, i));
        }
        int myrs = me % 2 ? 0 : B + me;
        for (int i = 0; i < myrs; i++) {
            long long s = 0;
            for (int r = 0; r < n; r++)
                s += v(r, rsfirst + i, round);
            CHECK_INT(s, rs[i], t_fmt(w, sizeof w, "Reduce_scatter_init round %d [%d]", round, i));
        }
        CHECK_INT(-1, rs[myrs], "Reduce_scatter_init writes only this rank's count");
        for (int r = 0; r < n; r++)
            for (int i = 0; i < B; i++) {
                if (me == root) {
                    CHECK_INT(v(r, i, round), g[r * B + i], t_fmt(w, sizeof w, "Gather_init round %d", round));
                    CHECK_INT(v(r, i, round), gv[2 * B * r + 1 + i],
                              t_fmt(w, sizeof w, "Gatherv_init round %d", round));
                }
                CHECK_INT(v(r, i, round), ag[r * B + i], t_fmt(w, sizeof w, "Allgather_init round %d", round));
                CHECK_INT(v(r, i, round), agv[2 * B * r + 1 + i],
                          t_fmt(w, sizeof w, "Allgatherv_init round %d", round));
                CHECK_INT(v(r, me * B + i, round), a2a[r * B + i],
                          t_fmt(w, sizeof w, "Alltoall_init round %d from %d [%d]", round, r, i));
                CHECK_INT(v(r, 2 * B * me + 1 + i, round), a2v[2 * B * r + 1 + i],
                          t_fmt(w, sizeof w, "Alltoallv_init round %d from %d [%d]", round, r, i));
                CHECK_INT(v(r, 2 * B * me + 1 + i, round), a2w[2 * B * r + 1 + i],
                          t_fmt(w, sizeof w, "Alltoallw_init round %d from %d [%d]", round, r, i));
            }
        for (int r = 0; r < n; r++) {
            CHECK_INT(-1, agv[2 * B * r], "Allgatherv_init gap untouched");
            CHECK_INT(-1, a2w[2 * B * r], "Alltoallw_init gap untouched");
        }
        /* other collectives between rounds */
        int one = 1, tot = 0;
        MPI_Request x;
        CHECK_MPI(MPI_Iallreduce(&one, &tot, 1, MPI_INT, MPI_SUM, c, &x));
        CHECK_MPI(MPI_Wait(&x, MPI_STATUS_IGNORE));
        CHECK_INT(n, tot, "Iallreduce between rounds");
        CHECK_MPI(MPI_Allreduce(&one, &tot, 1, MPI_INT, MPI_SUM, c));
        CHECK_INT(n, tot, "Allreduce between rounds");
    }
    for (int q = 0; q < NREQ; q++)
        CHECK_MPI(MPI_Request_free(&rq[q]));

    /* one persistent operation started many times in a row */
    MPI_Request p;
    int in = 0, out = 0;
    CHECK_MPI(MPI_Allreduce_init(&in, &out, 1, MPI_INT, MPI_SUM, c, inf, &p));
    for (int it = 0; it < 200; it++) {
        in = me + it;
        CHECK_MPI(MPI_Start(&p));
        CHECK_MPI(MPI_Wait(&p, MPI_STATUS_IGNORE));
        CHECK_INT(n * (n - 1) / 2 + n * it, out, t_fmt(w, sizeof w, "Allreduce_init start %d", it));
    }
    CHECK_MPI(MPI_Request_free(&p));
    void *bufs[] = {bc, red, ar, sin, sc, ex, rsb, rs, g, gv, s1, s2, ag, agv, a2a, a2v, a2w,
                    mine, sv, cnt, dsp, bdsp, rsc, ty, rsin};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
    CHECK_MPI(MPI_Barrier(c));
    MPI_Finalize();
    return 0;
}
