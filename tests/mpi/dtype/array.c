/* MPI_Type_create_subarray and MPI_Type_create_darray: the elements each type selects, in
 * order, against references computed here from the standard's definitions (packed, and sent
 * to the next rank with the type on one side and contiguous on the other), sizes and
 * extents, both array orders, block/cyclic/none distributions with default and explicit
 * arguments, and the error class of bad arguments. */
#include "../t_util.h"

#define MAXE 4096

/* Packs count elements of dt from buf (ints) and returns how many ints came out. */
static int pack_ints(const int *buf, MPI_Datatype dt, int *out)
{
    int size, pos = 0;
    CHECK_MPI(MPI_Pack_size(1, dt, MPI_COMM_WORLD, &size));
    CHECK_MPI(MPI_Pack(buf, 1, dt, out, size, &pos, MPI_COMM_WORLD));
    return pos / (int)sizeof(int);
}

static void check_list(const char *what, const int *ref, int nref, const int *got, int ngot)
{
    char w[160];
    CHECK_INT(nref, ngot, t_fmt(w, sizeof w, "%s: elements", what));
    for (int i = 0; i < nref; i++)
        CHECK_INT(ref[i], got[i], t_fmt(w, sizeof w, "%s: element %d", what, i));
}

/* The array's index of multi-index idx (dims in C or Fortran order). */
static int linear(int nd, const int *sizes, const int *idx, int order)
{
    int lin = 0;
    for (int k = 0; k < nd; k++) {
        int d = order == MPI_ORDER_C ? k : nd - 1 - k;
        lin = lin * sizes[d] + idx[d];
    }
    return lin;
}

/* Advances idx to the next multi-index in memory order; 0 after the last. */
static int next_index(int nd, const int *sizes, int *idx, int order)
{
    for (int k = 0; k < nd; k++) {
        int d = order == MPI_ORDER_C ? nd - 1 - k : k;
        if (++idx[d] < sizes[d])
            return 1;
        idx[d] = 0;
    }
    return 0;
}

static int global[MAXE], got[MAXE], ref[MAXE];

static void check_type(const char *what, MPI_Datatype dt, const int *ref_, int nref,
                       MPI_Aint extent)
{
    char w[160];
    MPI_Aint lb, ext;
    int size;
    CHECK_MPI(MPI_Type_get_extent(dt, &lb, &ext));
    CHECK_INT(0, lb, t_fmt(w, sizeof w, "%s: lb", what));
    CHECK_INT(extent, ext, t_fmt(w, sizeof w, "%s: extent", what));
    CHECK_MPI(MPI_Type_size(dt, &size));
    CHECK_INT(nref * (int)sizeof(int), size, t_fmt(w, sizeof w, "%s: size", what));
    check_list(what, ref_, nref, got, pack_ints(global, dt, got));
    /* Through the channel: the type on the sender, contiguous ints on the receiver, and
     * back the other way into a zeroed array (gaps must stay zero). */
    int next = (t_rank + 1) % t_size, prev = (t_rank + t_size - 1) % t_size;
    static int recvd[MAXE], back[MAXE];
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(global, 1, dt, next, 7, recvd, MAXE, MPI_INT, prev, 7, MPI_COMM_WORLD,
                           &st));
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    check_list(t_fmt(w, sizeof w, "%s: received", what), ref_, nref, recvd, n);
    memset(back, 0, sizeof back);
    CHECK_MPI(MPI_Sendrecv(recvd, n, MPI_INT, next, 8, back, 1, dt, prev, 8, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    /* back holds the selected elements at their places, zero elsewhere. */
    static char selected[MAXE];
    memset(selected, 0, sizeof selected);
    for (int i = 0; i < nref; i++)
        selected[ref_[i]] = 1;
    for (int i = 0; i < (int)(extent / (MPI_Aint)sizeof(int)); i++)
        CHECK_INT(selected[i] ? i : 0, back[i],
                  t_fmt(w, sizeof w, "%s: unpacked array at %d", what, i));
}

static void subarray_case(int nd, const int *sizes, const int *subs, const int *starts, int order)
{
    char w[160];
    snprintf(w, sizeof w, "subarray %dD %s", nd, order == MPI_ORDER_C ? "C" : "Fortran");
    MPI_Datatype dt;
    CHECK_MPI(MPI_Type_create_subarray(nd, sizes, subs, starts, order, MPI_INT, &dt));
    CHECK_MPI(MPI_Type_commit(&dt));
    int idx[8] = {0}, n = 0, total = 1;
    for (int d = 0; d < nd; d++)
        total *= sizes[d];
    do {
        int in = 1;
        for (int d = 0; d < nd; d++)
            in &= idx[d] >= starts[d] && idx[d] < starts[d] + subs[d];
        if (in)
            ref[n++] = linear(nd, sizes, idx, order);
    } while (next_index(nd, sizes, idx, order));
    check_type(w, dt, ref, n, (MPI_Aint)total * (MPI_Aint)sizeof(int));
    MPI_Type_free(&dt);
}

/* The owner coordinate of index i of a dimension under a distribution. */
static int owner(int i, int g, int distrib, int darg, int p)
{
    if (distrib == MPI_DISTRIBUTE_NONE)
        return 0;
    int b = darg;
    if (darg == MPI_DISTRIBUTE_DFLT_DARG)
        b = distrib == MPI_DISTRIBUTE_BLOCK ? (g + p - 1) / p : 1;
    return distrib == MPI_DISTRIBUTE_BLOCK ? i / b : (i / b) % p;
}

static void darray_case(int nd, const int *gs, const int *dist, const int *dargs, const int *ps,
                        int order)
{
    int nprocs = 1, total = 1;
    for (int d = 0; d < nd; d++) {
        nprocs *= ps[d];
        total *= gs[d];
    }
    for (int r = 0; r < nprocs; r++) {
        char w[160];
        snprintf(w, sizeof w, "darray %dD %s rank %d of %d", nd,
                 order == MPI_ORDER_C ? "C" : "Fortran", r, nprocs);
        MPI_Datatype dt;
        CHECK_MPI(
            MPI_Type_create_darray(nprocs, r, nd, gs, dist, dargs, ps, order, MPI_INT, &dt));
        CHECK_MPI(MPI_Type_commit(&dt));
        int coords[8], rr = r;
        for (int d = nd - 1; d >= 0; d--) { /* the process grid is row-major */
            coords[d] = rr % ps[d];
            rr /= ps[d];
        }
        int idx[8] = {0}, n = 0;
        do {
            int mine = 1;
            for (int d = 0; d < nd; d++)
                mine &= owner(idx[d], gs[d], dist[d], dargs[d], ps[d]) == coords[d];
            if (mine)
                ref[n++] = linear(nd, gs, idx, order);
        } while (next_index(nd, gs, idx, order));
        check_type(w, dt, ref, n, (MPI_Aint)total * (MPI_Aint)sizeof(int));
        MPI_Type_free(&dt);
    }
}

static void check_err(int expected, int rc, const char *what)
{
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &rc);
    CHECK_INT(expected, rc, what);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 0; i < MAXE; i++)
        global[i] = i;

    /* Subarrays: 1-3 dimensions, both orders, edges, the whole array, an empty one. */
    int s1[] = {10}, b1[] = {4}, o1[] = {3};
    subarray_case(1, s1, b1, o1, MPI_ORDER_C);
    int s2[] = {6, 7}, b2[] = {3, 2}, o2[] = {2, 5};
    subarray_case(2, s2, b2, o2, MPI_ORDER_C);
    subarray_case(2, s2, b2, o2, MPI_ORDER_FORTRAN);
    int s3[] = {5, 4, 6}, b3[] = {2, 4, 3}, o3[] = {3, 0, 1};
    subarray_case(3, s3, b3, o3, MPI_ORDER_C);
    subarray_case(3, s3, b3, o3, MPI_ORDER_FORTRAN);
    int z3[] = {0, 0, 0};
    subarray_case(3, s3, s3, z3, MPI_ORDER_C);
    int e2[] = {0, 2};
    subarray_case(2, s2, e2, o2, MPI_ORDER_C);

    /* Darrays: every rank of every grid. */
    int g1[] = {17}, dc[] = {MPI_DISTRIBUTE_CYCLIC}, db[] = {MPI_DISTRIBUTE_BLOCK};
    int dflt[] = {MPI_DISTRIBUTE_DFLT_DARG}, two[] = {2}, p4[] = {4}, six[] = {6};
    darray_case(1, g1, db, dflt, p4, MPI_ORDER_C);
    darray_case(1, g1, dc, dflt, p4, MPI_ORDER_C);
    darray_case(1, g1, dc, two, p4, MPI_ORDER_C);
    darray_case(1, g1, db, six, p4, MPI_ORDER_C); /* the last process gets nothing */
    int g2[] = {9, 10}, d2[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int a2[] = {MPI_DISTRIBUTE_DFLT_DARG, 3}, p2[] = {2, 3};
    darray_case(2, g2, d2, a2, p2, MPI_ORDER_C);
    darray_case(2, g2, d2, a2, p2, MPI_ORDER_FORTRAN);
    int g3[] = {4, 5, 6};
    int d3[] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK};
    int a3[] = {1, MPI_DISTRIBUTE_DFLT_DARG, 4}, p3[] = {3, 1, 2};
    darray_case(3, g3, d3, a3, p3, MPI_ORDER_C);
    darray_case(3, g3, d3, a3, p3, MPI_ORDER_FORTRAN);

    /* A subarray of a derived type (pairs of ints 3 apart: extent 3 ints). */
    MPI_Datatype pair, pr, sub;
    CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_create_resized(pair, 0, 3 * sizeof(int), &pr));
    int ss[] = {5}, sb[] = {2}, so[] = {1};
    CHECK_MPI(MPI_Type_create_subarray(1, ss, sb, so, MPI_ORDER_C, pr, &sub));
    CHECK_MPI(MPI_Type_commit(&sub));
    int want[] = {3, 5, 6, 8};
    check_type("subarray of a resized vector", sub, want, 4, 15 * sizeof(int));
    MPI_Type_free(&sub);
    MPI_Type_free(&pr);
    MPI_Type_free(&pair);

    /* Errors: MPI_ERR_ARG. */
    MPI_Datatype bad;
    int big[] = {5}, start6[] = {4}, zero[] = {0}, neg[] = {-1};
    check_err(MPI_ERR_ARG, MPI_Type_create_subarray(0, s1, b1, o1, MPI_ORDER_C, MPI_INT, &bad),
              "subarray ndims 0");
    check_err(MPI_ERR_ARG, MPI_Type_create_subarray(1, s1, b1, o1, 99, MPI_INT, &bad),
              "subarray bad order");
    check_err(MPI_ERR_ARG, MPI_Type_create_subarray(1, b1, big, zero, MPI_ORDER_C, MPI_INT, &bad),
              "subarray subsize > size");
    check_err(MPI_ERR_ARG, MPI_Type_create_subarray(1, big, b1, start6, MPI_ORDER_C, MPI_INT, &bad),
              "subarray start + subsize > size");
    check_err(MPI_ERR_ARG, MPI_Type_create_subarray(1, big, b1, neg, MPI_ORDER_C, MPI_INT, &bad),
              "subarray negative start");
    check_err(MPI_ERR_TYPE,
              MPI_Type_create_subarray(1, s1, b1, o1, MPI_ORDER_C, MPI_DATATYPE_NULL, &bad),
              "subarray of MPI_DATATYPE_NULL");
    int p3x[] = {3}, none[] = {MPI_DISTRIBUTE_NONE}, one[] = {1};
    check_err(MPI_ERR_ARG, MPI_Type_create_darray(4, 0, 1, g1, db, dflt, p3x, MPI_ORDER_C, MPI_INT,
                                                  &bad),
              "darray grid of 3 for 4 processes");
    check_err(MPI_ERR_ARG, MPI_Type_create_darray(4, 4, 1, g1, db, dflt, p4, MPI_ORDER_C, MPI_INT,
                                                  &bad),
              "darray rank out of range");
    check_err(MPI_ERR_ARG, MPI_Type_create_darray(4, 0, 1, g1, none, dflt, p4, MPI_ORDER_C,
                                                  MPI_INT, &bad),
              "darray NONE over 4 processes");
    check_err(MPI_ERR_ARG, MPI_Type_create_darray(4, 0, 1, g1, db, one, p4, MPI_ORDER_C, MPI_INT,
                                                  &bad),
              "darray block argument too small");
    check_err(MPI_ERR_ARG, MPI_Type_create_darray(4, 0, 1, g1, db, dflt, p4, 7, MPI_INT, &bad),
              "darray bad order");
    int baddist[] = {42};
    check_err(MPI_ERR_ARG, MPI_Type_create_darray(4, 0, 1, g1, baddist, dflt, p4, MPI_ORDER_C,
                                                  MPI_INT, &bad),
              "darray bad distribution");

    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("array: OK\n");
    MPI_Finalize();
    return 0;
}
