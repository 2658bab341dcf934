/* coll_neighbor: neighbourhood collectives, blocking, nonblocking and persistent.
 *
 * Neighbor_allgather(v) and Neighbor_alltoall(v, w) on
 *  - a 2-D Cartesian grid, periodic in one dimension only (MPI_PROC_NULL neighbours leave
 *    their receive blocks untouched and get nothing);
 *  - a 1 x np grid periodic in both dimensions (in the first one both neighbours are the
 *    rank itself) and, for an even np, a 2 x np/2 torus (both neighbours in the first
 *    dimension are one rank: the block sent toward -1 must land in the +1 slot);
 *  - a ring made with MPI_Graph_create;
 *  - distributed graphs made with MPI_Dist_graph_create_adjacent: weighted, with two edges
 *    between one pair for small np; and a star where the leaves have in-degree 0.
 * Blocks 0, 3 and 2000 ints, uneven counts and gaps (v), byte displacements and a
 * derived type (w); persistent operations started twice with new data; argument arrays
 * overwritten right after the nonblocking and init calls return. Every receive block is
 * checked against what its sender put in the block addressed to this rank.
 */
#include "../t_util.h"

static int me, np;
static char w[200];

static int val(int s, int m, int j, int round)
{
    return s * 1000000 + m * 10000 + j + round * 7;
}

typedef struct {
    const char *name;
    MPI_Comm comm;
    int ni, no;
    int in[16], out[16];
    int pslot[16]; /* in-slot k receives the sender's out-slot pslot[k] */
} topo_t;

/* counts: allgatherv sender s sends B + s % 2; alltoallv sender s to its out-slot m sends
 * B + (s + m) % 3. */
static int agc(int s, int B)
{
    return B + s % 2;
}
static int a2c(int s, int m, int B)
{
    return B + (s + m) % 3;
}

/* op: 0 allgather, 1 allgatherv, 2 alltoall, 3 alltoallv, 4 alltoallw;
 * form: 0 blocking, 1 nonblocking, 2 persistent (two rounds). */
static void run(topo_t *t, int op, int form, int B)
{
    int ni = t->ni, no = t->no, maxc = B + 3;
    int *sb = t_malloc(sizeof(int) * (size_t)((no > 0 ? no : 1) * (maxc + 1) + 1));
    int *rb = t_malloc(sizeof(int) * (size_t)(ni * (maxc + 1) + 1));
    int sc[16], sd[16], rc[16], rd[16];
    MPI_Aint sda[16], rda[16];
    MPI_Datatype st[16], rt[16], int1;
    CHECK_MPI(MPI_Type_contiguous(1, MPI_INT, &int1));
    CHECK_MPI(MPI_Type_commit(&int1));
    int stot = 0, rtot = 0;
    for (int m = 0; m < no; m++) {
        sc[m] = op == 2 ? B : a2c(me, m, B);
        sd[m] = op == 2 ? m * B : stot;
        sda[m] = (MPI_Aint)sd[m] * (MPI_Aint)sizeof(int);
        st[m] = m % 2 ? int1 : MPI_INT;
        stot += sc[m] + (op == 2 ? 0 : 1);
    }
    for (int k = 0; k < ni; k++) {
        int s = t->in[k];
        if (op == 0 || op == 2)
            rc[k] = B;
        else if (op == 1)
            rc[k] = s == MPI_PROC_NULL ? 1 : agc(s, B);
        else
            rc[k] = s == MPI_PROC_NULL ? 1 : a2c(s, t->pslot[k], B);
        rd[k] = (op == 0 || op == 2) ? k * B : rtot + 1;
        rda[k] = (MPI_Aint)rd[k] * (MPI_Aint)sizeof(int);
        rt[k] = k % 3 == 2 ? int1 : MPI_INT;
        rtot += rc[k] + 1;
    }
    MPI_Request req = MPI_REQUEST_NULL;
    int rounds = form == 2 ? 2 : 1;
    for (int round = 0; round < rounds; round++) {
        if (op <= 1) {
            for (int j = 0; j < agc(me, B); j++)
                sb[j] = val(me, 99, j, round);
        } else {
            for (int m = 0; m < no; m++)
                for (int j = 0; j < sc[m]; j++)
                    sb[sd[m] + j] = val(me, m, j, round);
        }
        for (int i = 0; i < ni * (maxc + 1) + 1; i++)
            rb[i] = -1;
        int sgc = op == 0 ? B : agc(me, B);
        MPI_Comm c = t->comm;
        if (form == 0) {
            switch (op) {
            case 0: CHECK_MPI(MPI_Neighbor_allgather(sb, sgc, MPI_INT, rb, B, MPI_INT, c)); break;
            case 1: CHECK_MPI(MPI_Neighbor_allgatherv(sb, sgc, MPI_INT, rb, rc, rd, MPI_INT, c)); break;
            case 2: CHECK_MPI(MPI_Neighbor_alltoall(sb, B, MPI_INT, rb, B, MPI_INT, c)); break;
            case 3: CHECK_MPI(MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, c)); break;
            default: CHECK_MPI(MPI_Neighbor_alltoallw(sb, sc, sda, st, rb, rc, rda, rt, c));
            }
        } else if (form == 1 || round == 0) {
            MPI_Info inf = MPI_INFO_NULL;
            switch (op * 2 + (form == 2)) {
            case 0: CHECK_MPI(MPI_Ineighbor_allgather(sb, sgc, MPI_INT, rb, B, MPI_INT, c, &req)); break;
            case 1: CHECK_MPI(MPI_Neighbor_allgather_init(sb, sgc, MPI_INT, rb, B, MPI_INT, c, inf, &req)); break;
            case 2: CHECK_MPI(MPI_Ineighbor_allgatherv(sb, sgc, MPI_INT, rb, rc, rd, MPI_INT, c, &req)); break;
            case 3: CHECK_MPI(MPI_Neighbor_allgatherv_init(sb, sgc, MPI_INT, rb, rc, rd, MPI_INT, c, inf, &req)); break;
            case 4: CHECK_MPI(MPI_Ineighbor_alltoall(sb, B, MPI_INT, rb, B, MPI_INT, c, &req)); break;
            case 5: CHECK_MPI(MPI_Neighbor_alltoall_init(sb, B, MPI_INT, rb, B, MPI_INT, c, inf, &req)); break;
            case 6: CHECK_MPI(MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, c, &req)); break;
            case 7: CHECK_MPI(MPI_Neighbor_alltoallv_init(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, c, inf, &req)); break;
            case 8: CHECK_MPI(MPI_Ineighbor_alltoallw(sb, sc, sda, st, rb, rc, rda, rt, c, &req)); break;
            default: CHECK_MPI(MPI_Neighbor_alltoallw_init(sb, sc, sda, st, rb, rc, rda, rt, c, inf, &req));
            }
            /* the argument arrays may change once the call returned */
            int sc2[16], sd2[16], rc2[16], rd2[16];
            MPI_Aint sda2[16], rda2[16];
            MPI_Datatype st2[16], rt2[16];
            memcpy(sc2, sc, sizeof sc), memcpy(sd2, sd, sizeof sd), memcpy(rc2, rc, sizeof rc);
            memcpy(rd2, rd, sizeof rd), memcpy(sda2, sda, sizeof sda), memcpy(rda2, rda, sizeof rda);
            memcpy(st2, st, sizeof st), memcpy(rt2, rt, sizeof rt);
            for (int i = 0; i < 16; i++) {
                sc[i] = rc[i] = 5000;
                sd[i] = rd[i] = -100000;
                sda[i] = rda[i] = -100000;
                st[i] = rt[i] = MPI_DATATYPE_NULL;
            }
            if (form == 2)
                CHECK_MPI(MPI_Start(&req));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            memcpy(sc, sc2, sizeof sc), memcpy(sd, sd2, sizeof sd), memcpy(rc, rc2, sizeof rc);
            memcpy(rd, rd2, sizeof rd), memcpy(sda, sda2, sizeof sda), memcpy(rda, rda2, sizeof rda);
            memcpy(st, st2, sizeof st), memcpy(rt, rt2, sizeof rt);
        } else {
            CHECK_MPI(MPI_Start(&req));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
        for (int k = 0; k < ni; k++) {
            int s = t->in[k];
            for (int j = 0; j < rc[k]; j++) {
                int exp = s == MPI_PROC_NULL ? -1 : val(s, op <= 1 ? 99 : t->pslot[k], j, round);
                CHECK_INT(exp, rb[rd[k] + j],
                          t_fmt(w, sizeof w, "%s op %d form %d B %d round %d slot %d (from %d) [%d]",
                                t->name, op, form, B, round, k, s, j));
            }
            if (op == 1 || op >= 3)
                CHECK_INT(-1, rb[rd[k] - 1],
                          t_fmt(w, sizeof w, "%s op %d: gap before slot %d untouched", t->name, op, k));
        }
    }
    if (form == 2)
        CHECK_MPI(MPI_Request_free(&req));
    CHECK_MPI(MPI_Type_free(&int1));
    free(sb);
    free(rb);
}

static void run_all(topo_t *t)
{
    static const int Bs[] = {0, 3, 2000};
    for (int op = 0; op < 5; op++)
        for (int form = 0; form < 3; form++)
            for (int b = 0; b < 3; b++)
                run(t, op, form, Bs[b]);
}

static void cart(const char *name, int d0, int d1, int p0, int p1)
{
    int dims[2] = {d0, d1}, periods[2] = {p0, p1};
    topo_t t = {.name = name};
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &t.comm));
    if (t.comm == MPI_COMM_NULL)
        return;
    t.ni = t.no = 4;
    for (int d = 0; d < 2; d++) {
        CHECK_MPI(MPI_Cart_shift(t.comm, d, 1, &t.in[2 * d], &t.in[2 * d + 1]));
        t.out[2 * d] = t.in[2 * d];
        t.out[2 * d + 1] = t.in[2 * d + 1];
        t.pslot[2 * d] = 2 * d + 1; /* my -1 neighbour sent toward its +1 */
        t.pslot[2 * d + 1] = 2 * d;
    }
    run_all(&t);
    CHECK_MPI(MPI_Comm_free(&t.comm));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    me = t_rank;
    np = t_size;
    int dims[2] = {0, 0};
    CHECK_MPI(MPI_Dims_create(np, 2, dims));
    cart("cart 2-D periodic x open", dims[0], dims[1], 1, 0);
    cart("cart 1 x np", 1, np, 1, 1);
    if (np % 2 == 0)
        cart("cart 2 x np/2 torus", 2, np / 2, 1, 1);

    if (np >= 3) { /* ring graph: neighbours r - 1, r + 1 */
        topo_t t = {.name = "graph ring", .ni = 2, .no = 2};
        int *index = t_malloc(sizeof(int) * (size_t)np), *edges = t_malloc(sizeof(int) * 2 * (size_t)np);
        for (int r = 0; r < np; r++) {
            index[r] = 2 * (r + 1);
            edges[2 * r] = (r - 1 + np) % np;
            edges[2 * r + 1] = (r + 1) % np;
        }
        CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &t.comm));
        t.in[0] = t.out[0] = (me - 1 + np) % np;
        t.in[1] = t.out[1] = (me + 1) % np;
        t.pslot[0] = 1; /* I am the +1 neighbour of r - 1 */
        t.pslot[1] = 0;
        run_all(&t);
        CHECK_MPI(MPI_Comm_free(&t.comm));
        free(index);
        free(edges);
    }
    { /* distributed graph: sources r - 1, r + 2; destinations r + 1, r - 2 */
        topo_t t = {.name = "dist graph", .ni = 2, .no = 2};
        int wi[2] = {3, 4}, wo[2] = {5, 6};
        t.in[0] = (me - 1 + np) % np;
        t.in[1] = (me + 2) % np;
        t.out[0] = (me + 1) % np;
        t.out[1] = ((me - 2) % np + np) % np;
        t.pslot[0] = 0;
        t.pslot[1] = 1;
        CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, t.in, wi, 2, t.out, wo,
                                                 MPI_INFO_NULL, 0, &t.comm));
        run_all(&t);
        CHECK_MPI(MPI_Comm_free(&t.comm));
    }
    { /* star: rank 0 hears every leaf; leaves hear nobody */
        topo_t t = {.name = "dist graph star"};
        if (me == 0) {
            t.ni = np - 1;
            for (int k = 0; k < np - 1; k++) {
                t.in[k] = k + 1;
                t.pslot[k] = 0;
            }
        } else {
            t.no = 1;
            t.out[0] = 0;
        }
        CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, t.ni, t.in, MPI_UNWEIGHTED, t.no,
                                                 t.out, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &t.comm));
        run_all(&t);
        CHECK_MPI(MPI_Comm_free(&t.comm));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
