/* coll_neighbor_c: the large-count (`_c`) neighbourhood collectives with count and
 * displacement arrays as long as the neighbourhood, not the communicator.
 *
 * A distributed graph with in- and out-degree 2 * np + 1 (sources me - k, destinations
 * me + k, k = 0 .. 2np: every pair joined by several edges, matched in list order), so the
 * neighbourhood is longer than the communicator at every np, and a periodic 1-D Cartesian
 * grid (2 neighbours; more than the communicator at np = 1). Neighbor_allgatherv_c,
 * Neighbor_alltoallv_c and Neighbor_alltoallw_c, blocking, nonblocking and persistent (two
 * rounds), with uneven counts and gaps that must stay untouched; the argument arrays are
 * allocated to their exact length (ASan sees any read past them) and overwritten right
 * after the nonblocking and init calls return. Every block is checked against what its
 * sender put in the block addressed to this rank.
 */
#include "../t_util.h"

#define GAP 2 /* ints left untouched after each receive block */
#define ROUNDS 2

static int me, np;
static char w[200];

static int val(int s, int slot, int j, int round)
{
    return s * 1000000 + slot * 10000 + j * 10 + round;
}

/* Count that sender s puts in its out-slot m (alltoall) or sends to all (allgather). */
static int cnt(int s, int m, int op)
{
    return op == 0 ? 1 + s % 2 : 1 + (s + m) % 3;
}

typedef struct {
    const char *name;
    MPI_Comm comm;
    int deg;   /* in-degree == out-degree */
    int *in;   /* source of in-slot k */
    int *pout; /* the sender's out-slot that lands in in-slot k */
} topo_t;

/* op: 0 allgatherv, 1 alltoallv, 2 alltoallw; form: 0 blocking, 1 nonblocking, 2 persistent. */
static void run(const topo_t *t, int op, int form)
{
    int d = t->deg, stride = 3 + GAP;
    int *sb = t_malloc(sizeof(int) * (size_t)(d * 3 + 1));
    int *rb = t_malloc(sizeof(int) * (size_t)(d * stride + 1));
    MPI_Count *sc = t_malloc(sizeof(MPI_Count) * (size_t)d);
    MPI_Count *rc = t_malloc(sizeof(MPI_Count) * (size_t)d);
    MPI_Aint *sd = t_malloc(sizeof(MPI_Aint) * (size_t)d);
    MPI_Aint *rd = t_malloc(sizeof(MPI_Aint) * (size_t)d);
    MPI_Datatype *st = t_malloc(sizeof(MPI_Datatype) * (size_t)d);
    MPI_Datatype *rt = t_malloc(sizeof(MPI_Datatype) * (size_t)d);
    MPI_Request req = MPI_REQUEST_NULL;
    int scount = cnt(me, 0, 0);
    for (int round = 0; round < ROUNDS; round++) {
        int unit = op == 2 ? (int)sizeof(int) : 1; /* w: byte displacements */
        for (int m = 0; m < d; m++) {
            sc[m] = cnt(me, m, op);
            sd[m] = (MPI_Aint)(3 * m * unit);
            st[m] = MPI_INT;
            for (int j = 0; j < 3; j++)
                sb[3 * m + j] = val(me, op == 0 ? 0 : m, j, round);
        }
        for (int k = 0; k < d; k++) {
            rc[k] = cnt(t->in[k], t->pout[k], op);
            rd[k] = (MPI_Aint)(stride * k * unit);
            rt[k] = MPI_INT;
        }
        for (int i = 0; i < d * stride + 1; i++)
            rb[i] = -1;
        if (form == 0) {
            if (op == 0)
                CHECK_MPI(MPI_Neighbor_allgatherv_c(sb, scount, MPI_INT, rb, rc, rd, MPI_INT,
                                                    t->comm));
            else if (op == 1)
                CHECK_MPI(MPI_Neighbor_alltoallv_c(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT,
                                                   t->comm));
            else
                CHECK_MPI(MPI_Neighbor_alltoallw_c(sb, sc, sd, st, rb, rc, rd, rt, t->comm));
        } else if (form == 1 || round == 0) {
            if (form == 1 && op == 0)
                CHECK_MPI(MPI_Ineighbor_allgatherv_c(sb, scount, MPI_INT, rb, rc, rd, MPI_INT,
                                                     t->comm, &req));
            else if (form == 1 && op == 1)
                CHECK_MPI(MPI_Ineighbor_alltoallv_c(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT,
                                                    t->comm, &req));
            else if (form == 1)
                CHECK_MPI(MPI_Ineighbor_alltoallw_c(sb, sc, sd, st, rb, rc, rd, rt, t->comm,
                                                    &req));
            else if (op == 0)
                CHECK_MPI(MPI_Neighbor_allgatherv_init_c(sb, scount, MPI_INT, rb, rc, rd,
                                                         MPI_INT, t->comm, MPI_INFO_NULL, &req));
            else if (op == 1)
                CHECK_MPI(MPI_Neighbor_alltoallv_init_c(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT,
                                                        t->comm, MPI_INFO_NULL, &req));
            else
                CHECK_MPI(MPI_Neighbor_alltoallw_init_c(sb, sc, sd, st, rb, rc, rd, rt, t->comm,
                                                        MPI_INFO_NULL, &req));
            for (int i = 0; i < d; i++) { /* the call must not read them later */
                sc[i] = rc[i] = -7;
                sd[i] = rd[i] = -7;
                st[i] = rt[i] = MPI_DATATYPE_NULL;
            }
        }
        if (form == 2)
            CHECK_MPI(MPI_Start(&req));
        if (form != 0)
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int k = 0; k < d; k++) {
            int s = t->in[k], n = cnt(s, t->pout[k], op);
            for (int j = 0; j < stride; j++) {
                int want = j < n ? val(s, op == 0 ? 0 : t->pout[k], j, round) : -1;
                CHECK_INT(want, rb[stride * k + j],
                          t_fmt(w, sizeof(w), "%s op %d form %d round %d: slot %d (from %d) int %d",
                                t->name, op, form, round, k, s, j));
            }
        }
        CHECK_INT(-1, rb[d * stride], "guard after the receive buffer");
    }
    if (form == 2)
        CHECK_MPI(MPI_Request_free(&req));
    free(sb);
    free(rb);
    free(sc);
    free(rc);
    free(sd);
    free(rd);
    free(st);
    free(rt);
}

static void run_all(const topo_t *t)
{
    for (int op = 0; op < 3; op++)
        for (int form = 0; form < 3; form++)
            run(t, op, form);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    { /* dist graph: sources me - k, destinations me + k, k = 0 .. 2np */
        int d = 2 * np + 1;
        topo_t t = {.name = "dist graph", .deg = d};
        int *out = t_malloc(sizeof(int) * (size_t)d);
        t.in = t_malloc(sizeof(int) * (size_t)d);
        t.pout = t_malloc(sizeof(int) * (size_t)d);
        for (int k = 0; k < d; k++) {
            t.in[k] = ((me - k) % np + np) % np;
            out[k] = (me + k) % np;
            t.pout[k] = k; /* the j-th edge s -> me in both lists is the same k */
        }
        CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, d, t.in, MPI_UNWEIGHTED, d, out,
                                                 MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &t.comm));
        run_all(&t);
        CHECK_MPI(MPI_Comm_free(&t.comm));
        free(out);
        free(t.in);
        free(t.pout);
    }
    { /* periodic ring: in-slot 0 (from me - 1) gets its +1 block, in-slot 1 its -1 block */
        int dims[1] = {np}, periods[1] = {1}, in[2], pout[2] = {1, 0};
        topo_t t = {.name = "cart ring", .deg = 2, .in = in, .pout = pout};
        CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &t.comm));
        in[0] = (me - 1 + np) % np;
        in[1] = (me + 1) % np;
        run_all(&t);
        CHECK_MPI(MPI_Comm_free(&t.comm));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
