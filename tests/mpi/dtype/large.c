/* The large-count datatype constructors (MPI-4.1 sec. 5.1, the `_c` forms) with counts, block
 * lengths, strides and displacements beyond INT_MAX, as MPICH's datatype/type_large makes
 * them: sizes, extents and true extents in MPI_Count (and MPI_UNDEFINED from the int
 * queries that cannot hold them), MPI_Pack_size_c, element counts, the envelope records
 * (large counts in MPI-4.1 sec. 5.1.13's layout when a value does not fit an int, the int
 * form's record when all do), and a message moved through a vector whose stride is beyond
 * INT_MAX elements, between two ranks, from and into memory reserved but never filled (only
 * the three pages the type touches are ever written). Errors: negative counts
 * (MPI_ERR_COUNT), negative block lengths (MPI_ERR_ARG), types whose bounds reach 2^60 bytes
 * (MPI_ERR_COUNT) and a vector of 2^32 separate blocks (MPI_ERR_NO_MEM, refused before
 * anything is allocated).
 *
 * None of these types is ever backed by memory of its size: the test needs a few pages.
 * Before the fix the `_c` constructors narrowed their arguments to int and refused a block
 * length of 9.4e9 with MPI_ERR_COUNT. */
#include "../t_util.h"

#include <limits.h>
#include <sys/mman.h>
#include <unistd.h>

static void check_err(int expected, int rc, const char *what)
{
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &rc);
    CHECK_INT(expected, rc, what);
}

/* Size, lb/extent (in MPI_Count, MPI_Aint and _x) and true lb/extent of dt. */
static void check_bounds(const char *what, MPI_Datatype dt, MPI_Count size, MPI_Count lb,
                         MPI_Count extent, MPI_Count tlb, MPI_Count textent)
{
    char w[200];
    MPI_Count s, l, e;
    CHECK_MPI(MPI_Type_size_c(dt, &s));
    CHECK_INT(size, s, t_fmt(w, sizeof w, "%s: Type_size_c", what));
    CHECK_MPI(MPI_Type_size_x(dt, &s));
    CHECK_INT(size, s, t_fmt(w, sizeof w, "%s: Type_size_x", what));
    int is;
    CHECK_MPI(MPI_Type_size(dt, &is));
    CHECK_INT(size > INT_MAX ? MPI_UNDEFINED : size, is, t_fmt(w, sizeof w, "%s: Type_size", what));
    CHECK_MPI(MPI_Type_get_extent_c(dt, &l, &e));
    CHECK_INT(lb, l, t_fmt(w, sizeof w, "%s: lb", what));
    CHECK_INT(extent, e, t_fmt(w, sizeof w, "%s: extent", what));
    MPI_Aint al, ae;
    CHECK_MPI(MPI_Type_get_extent(dt, &al, &ae));
    CHECK_INT(lb, al, t_fmt(w, sizeof w, "%s: lb (MPI_Aint)", what));
    CHECK_INT(extent, ae, t_fmt(w, sizeof w, "%s: extent (MPI_Aint)", what));
    CHECK_MPI(MPI_Type_get_true_extent_c(dt, &l, &e));
    CHECK_INT(tlb, l, t_fmt(w, sizeof w, "%s: true lb", what));
    CHECK_INT(textent, e, t_fmt(w, sizeof w, "%s: true extent", what));
    CHECK_MPI(MPI_Type_get_true_extent_x(dt, &l, &e));
    CHECK_INT(textent, e, t_fmt(w, sizeof w, "%s: true extent (_x)", what));
}

/* dt's record holds large counts: combiner, no integers or addresses, the nc counts and
 * the nd types expected; the int queries refuse it with MPI_ERR_TYPE. */
static void check_large_record(const char *what, MPI_Datatype dt, int combiner, int nc,
                               const MPI_Count *counts, int nd, const MPI_Datatype *types)
{
    char w[200];
    MPI_Count ci, ca, cl, cd;
    int comb;
    CHECK_MPI(MPI_Type_get_envelope_c(dt, &ci, &ca, &cl, &cd, &comb));
    CHECK_INT(combiner, comb, t_fmt(w, sizeof w, "%s: combiner", what));
    CHECK_INT(0, ci, t_fmt(w, sizeof w, "%s: num_integers", what));
    CHECK_INT(0, ca, t_fmt(w, sizeof w, "%s: num_addresses", what));
    CHECK_INT(nc, cl, t_fmt(w, sizeof w, "%s: num_large_counts", what));
    CHECK_INT(nd, cd, t_fmt(w, sizeof w, "%s: num_datatypes", what));
    MPI_Count lc[16];
    MPI_Datatype ty[4];
    int iv[1];
    MPI_Aint av[1];
    CHECK_MPI(MPI_Type_get_contents_c(dt, 0, 0, 16, 4, iv, av, lc, ty));
    for (int k = 0; k < nc; k++)
        CHECK_INT(counts[k], lc[k], t_fmt(w, sizeof w, "%s: large count %d", what, k));
    for (int k = 0; k < nd; k++)
        CHECK_TRUE(ty[k] == types[k], t_fmt(w, sizeof w, "%s: type %d", what, k));
    int ni, na, nd2;
    check_err(MPI_ERR_TYPE, MPI_Type_get_envelope(dt, &ni, &na, &nd2, &comb),
              t_fmt(w, sizeof w, "%s: int envelope", what));
}

/* MPICH's datatype/type_large: three types of 4.9, 7.0 and 9.4 GB. */
static void mpich_types(void)
{
    const MPI_Count sizes[3] = {1024LL * 1024 * 2400 * 2, 2346319872LL * 3, 2346319872LL * 4};
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_contiguous_c(sizes[0], MPI_CHAR, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    check_bounds("contiguous_c(5033164800, MPI_CHAR)", t, sizes[0], 0, sizes[0], 0, sizes[0]);
    CHECK_MPI(MPI_Type_free(&t));

    /* 256 blocks of 6874023 ints: every value fits an int, so the record is the int form's. */
    MPI_Count blklen = sizes[1] / 256 / (MPI_Count)sizeof(int), displs[256];
    for (int i = 0; i < 256; i++)
        displs[i] = i * blklen;
    CHECK_MPI(MPI_Type_create_indexed_block_c(256, blklen, displs, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    check_bounds("indexed_block_c(256, 6874023, MPI_INT)", t, sizes[1], 0, sizes[1], 0, sizes[1]);
    int ni, na, nd, comb;
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK_INT(MPI_COMBINER_INDEXED_BLOCK, comb, "indexed_block_c: combiner");
    CHECK_INT(256 + 2, ni, "indexed_block_c (values fit an int): num_integers");
    int ints[258];
    MPI_Aint av[1];
    MPI_Datatype ty[1];
    CHECK_MPI(MPI_Type_get_contents(t, 258, 0, 1, ints, av, ty));
    CHECK_INT(256, ints[0], "indexed_block_c: count");
    CHECK_INT(blklen, ints[1], "indexed_block_c: block length");
    CHECK_INT(255 * blklen, ints[257], "indexed_block_c: last displacement");
    CHECK_TRUE(ty[0] == MPI_INT, "indexed_block_c: old type");
    CHECK_MPI(MPI_Type_free(&t));

    /* Blocks of 0, 1, 2 and 9385279482 chars, each right after the one before: the failing
     * call of the MPICH test. */
    const MPI_Count n = sizes[2];
    MPI_Count bl[4] = {0, 1, 2, n - 3}, hd[4] = {0, 0, 1, 3};
    CHECK_MPI(MPI_Type_create_hindexed_c(4, bl, hd, MPI_CHAR, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    check_bounds("hindexed_c(4, {0,1,2,9.4e9}, MPI_CHAR)", t, n, 0, n, 0, n);
    const MPI_Count rec[9] = {4, 0, 1, 2, n - 3, 0, 0, 1, 3};
    const MPI_Datatype chr[1] = {MPI_CHAR};
    check_large_record("hindexed_c", t, MPI_COMBINER_HINDEXED, 9, rec, 1, chr);

    /* Sizes and element counts of the 9.4 GB type beyond an int. */
    MPI_Count c;
    int ic;
    CHECK_MPI(MPI_Pack_size_c(2, t, MPI_COMM_WORLD, &c));
    CHECK_INT(2 * n, c, "Pack_size_c(2, 9.4 GB type)");
    CHECK_MPI(MPI_Pack_size(1, t, MPI_COMM_WORLD, &ic));
    CHECK_INT(MPI_UNDEFINED, ic, "Pack_size(1, 9.4 GB type)");
    MPI_Status st;
    CHECK_MPI(MPI_Status_set_elements_c(&st, MPI_CHAR, 2 * n));
    CHECK_MPI(MPI_Get_elements_c(&st, t, &c));
    CHECK_INT(2 * n, c, "Get_elements_c of 2 x 9.4 GB");
    CHECK_MPI(MPI_Get_count_c(&st, t, &c));
    CHECK_INT(2, c, "Get_count_c of 2 x 9.4 GB");
    CHECK_MPI(MPI_Get_elements(&st, t, &ic));
    CHECK_INT(MPI_UNDEFINED, ic, "Get_elements (int) of 2 x 9.4 GB");

    /* Built on further: two of them, and resized. */
    MPI_Datatype t2;
    CHECK_MPI(MPI_Type_contiguous(2, t, &t2));
    check_bounds("contiguous(2, 9.4 GB type)", t2, 2 * n, 0, 2 * n, 0, 2 * n);
    CHECK_MPI(MPI_Type_free(&t2));
    CHECK_MPI(MPI_Type_create_resized_c(t, -8, n + 16, &t2));
    check_bounds("resized_c(9.4 GB type, -8, n + 16)", t2, n, -8, n + 16, 0, n);
    CHECK_MPI(MPI_Type_free(&t2));
    CHECK_MPI(MPI_Type_free(&t));
}

/* Every other `_c` constructor with a value beyond an int, and one whose values all fit. */
static void constructors(void)
{
    const MPI_Count g3 = 3000000000LL, g4 = 4000000000LL, g10 = 10000000000LL;
    MPI_Datatype t;

    /* Stride beyond INT_MAX extents: blocks of 2 chars at 0, 3e9, 6e9. */
    CHECK_MPI(MPI_Type_vector_c(3, 2, g3, MPI_CHAR, &t));
    check_bounds("vector_c(3, 2, 3e9, MPI_CHAR)", t, 6, 0, 2 * g3 + 2, 0, 2 * g3 + 2);
    check_large_record("vector_c", t, MPI_COMBINER_VECTOR, 3, (MPI_Count[]){3, 2, g3}, 1,
                       (MPI_Datatype[]){MPI_CHAR});
    CHECK_MPI(MPI_Type_free(&t));

    /* Abutting blocks of 2^31 chars, three of them: one 6 GiB run. */
    const MPI_Count g31 = (MPI_Count)1 << 31;
    CHECK_MPI(MPI_Type_create_hvector_c(3, g31, g31, MPI_CHAR, &t));
    check_bounds("hvector_c(3, 2^31, 2^31 bytes)", t, 3 * g31, 0, 3 * g31, 0, 3 * g31);
    check_large_record("hvector_c", t, MPI_COMBINER_HVECTOR, 3, (MPI_Count[]){3, g31, g31}, 1,
                       (MPI_Datatype[]){MPI_CHAR});
    CHECK_MPI(MPI_Type_free(&t));

    /* 2^32 single chars one after the other. */
    CHECK_MPI(MPI_Type_vector_c((MPI_Count)1 << 32, 1, 1, MPI_CHAR, &t));
    check_bounds("vector_c(2^32, 1, 1)", t, (MPI_Count)1 << 32, 0, (MPI_Count)1 << 32, 0,
                 (MPI_Count)1 << 32);
    CHECK_MPI(MPI_Type_free(&t));

    CHECK_MPI(MPI_Type_indexed_c(2, (MPI_Count[]){g3, 1}, (MPI_Count[]){0, g4}, MPI_CHAR, &t));
    check_bounds("indexed_c({3e9, 1}, {0, 4e9})", t, g3 + 1, 0, g4 + 1, 0, g4 + 1);
    check_large_record("indexed_c", t, MPI_COMBINER_INDEXED, 5, (MPI_Count[]){2, g3, 1, 0, g4}, 1,
                       (MPI_Datatype[]){MPI_CHAR});
    CHECK_MPI(MPI_Type_free(&t));

    CHECK_MPI(MPI_Type_create_indexed_block_c(2, g3, (MPI_Count[]){0, g4}, MPI_SHORT, &t));
    check_bounds("indexed_block_c(2, 3e9, {0, 4e9}, MPI_SHORT)", t, 2 * g3 * 2, 0, (g4 + g3) * 2, 0,
                 (g4 + g3) * 2);
    check_large_record("indexed_block_c", t, MPI_COMBINER_INDEXED_BLOCK, 4,
                       (MPI_Count[]){2, g3, 0, g4}, 1, (MPI_Datatype[]){MPI_SHORT});
    CHECK_MPI(MPI_Type_free(&t));

    CHECK_MPI(MPI_Type_create_hindexed_block_c(2, g3, (MPI_Count[]){0, g10}, MPI_CHAR, &t));
    check_bounds("hindexed_block_c(2, 3e9, {0, 1e10})", t, 2 * g3, 0, g10 + g3, 0, g10 + g3);
    check_large_record("hindexed_block_c", t, MPI_COMBINER_HINDEXED_BLOCK, 4,
                       (MPI_Count[]){2, g3, 0, g10}, 1, (MPI_Datatype[]){MPI_CHAR});
    CHECK_MPI(MPI_Type_free(&t));

    /* 3e9 ints then a double: the extent is padded to the double's alignment. */
    MPI_Count dd = g3 * 4 + 4, ub = dd + 8, al = _Alignof(double);
    ub = (ub + al - 1) / al * al;
    CHECK_MPI(MPI_Type_create_struct_c(2, (MPI_Count[]){g3, 1}, (MPI_Count[]){0, dd},
                                       (MPI_Datatype[]){MPI_INT, MPI_DOUBLE}, &t));
    check_bounds("struct_c({3e9 ints, double})", t, g3 * 4 + 8, 0, ub, 0, dd + 8);
    check_large_record("struct_c", t, MPI_COMBINER_STRUCT, 5, (MPI_Count[]){2, g3, 1, 0, dd}, 2,
                       (MPI_Datatype[]){MPI_INT, MPI_DOUBLE});
    CHECK_MPI(MPI_Type_free(&t));

    /* All values fit an int: the int form's type and record. */
    CHECK_MPI(MPI_Type_create_hindexed_c(2, (MPI_Count[]){1, 2}, (MPI_Count[]){0, 8}, MPI_INT, &t));
    check_bounds("hindexed_c({1, 2}, {0, 8})", t, 12, 0, 16, 0, 16);
    int ni, na, nd, comb, iv[3];
    MPI_Aint av[2];
    MPI_Datatype ty[1];
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK_INT(MPI_COMBINER_HINDEXED, comb, "small hindexed_c: combiner");
    CHECK_INT(3, ni, "small hindexed_c: num_integers");
    CHECK_INT(2, na, "small hindexed_c: num_addresses");
    CHECK_MPI(MPI_Type_get_contents(t, 3, 2, 1, iv, av, ty));
    CHECK_TRUE(iv[0] == 2 && iv[1] == 1 && iv[2] == 2 && av[0] == 0 && av[1] == 8 &&
                   ty[0] == MPI_INT,
               "small hindexed_c: contents {2, 1, 2}, {0, 8}, MPI_INT");
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_vector_c(2, 3, 4, MPI_INT, &t));
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK_INT(3, ni, "small vector_c: num_integers");
    CHECK_MPI(MPI_Type_free(&t));

    /* Errors, each refused before anything of the type's size exists. */
    check_err(MPI_ERR_COUNT, MPI_Type_vector_c(-1, 1, 1, MPI_CHAR, &t), "vector_c(-1, ...)");
    check_err(MPI_ERR_COUNT, MPI_Type_indexed_c(-g3, NULL, NULL, MPI_CHAR, &t),
              "indexed_c(-3e9, ...)");
    check_err(
        MPI_ERR_ARG,
        MPI_Type_create_hindexed_c(2, (MPI_Count[]){1, -g3}, (MPI_Count[]){0, 8}, MPI_CHAR, &t),
        "hindexed_c with a block length of -3e9");
    check_err(MPI_ERR_ARG, MPI_Type_create_indexed_block_c(1, -g3, (MPI_Count[]){0}, MPI_CHAR, &t),
              "indexed_block_c with a block length of -3e9");
    check_err(MPI_ERR_COUNT, MPI_Type_create_struct_c(-1, NULL, NULL, NULL, &t),
              "struct_c(-1, ...)");
    check_err(MPI_ERR_COUNT, MPI_Type_contiguous_c((MPI_Count)1 << 61, MPI_CHAR, &t),
              "contiguous_c(2^61 chars)");
    check_err(MPI_ERR_COUNT, MPI_Type_vector_c(2, 1, (MPI_Count)1 << 62, MPI_INT, &t),
              "vector_c with a stride of 2^62 ints");
    check_err(MPI_ERR_NO_MEM, MPI_Type_vector_c((MPI_Count)1 << 32, 1, 2, MPI_CHAR, &t),
              "vector_c of 2^32 separate blocks");
    MPI_Count c;
    check_err(MPI_ERR_COUNT, MPI_Pack_size_c(-1, MPI_INT, MPI_COMM_WORLD, &c), "Pack_size_c(-1)");
    check_err(MPI_ERR_COUNT, MPI_Pack_size_c(LLONG_MAX / 2, MPI_INT, MPI_COMM_WORLD, &c),
              "Pack_size_c beyond MPI_Count");
}

/* Memory for a type that spans `span` bytes of which it touches few: a reservation no page
 * of which is backed until mprotect opens the pages around each offset in offs. */
static char *reserve(size_t span, const MPI_Count *offs, int n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *p =
        mmap(NULL, span + page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        t_fail("mmap of a %zu-byte reservation: expected a mapping, got MAP_FAILED", span);
    for (int k = 0; k < n; k++) {
        size_t at = (size_t)offs[k] / page * page;
        if (mprotect(p + at, 2 * page, PROT_READ | PROT_WRITE) != 0)
            t_fail("mprotect at %zu: expected 0, got -1", at);
    }
    return p;
}

/* A vector of 3 blocks of 4 chars with a stride of 2^31 + 16 chars (an int cannot hold it),
 * sent from rank 0 to rank 1 as 12 contiguous chars and back into the vector. */
static void message(void)
{
    const MPI_Count stride = ((MPI_Count)1 << 31) + 16;
    const MPI_Count offs[3] = {0, stride, 2 * stride};
    const size_t span = (size_t)(2 * stride + 4);
    MPI_Datatype v;
    CHECK_MPI(MPI_Type_vector_c(3, 4, stride, MPI_CHAR, &v));
    CHECK_MPI(MPI_Type_commit(&v));
    check_bounds("vector_c(3, 4, 2^31 + 16)", v, 12, 0, (MPI_Count)span, 0, (MPI_Count)span);
    MPI_Status st;
    char flat[12];
    if (t_rank == 0) {
        char *buf = reserve(span, offs, 3);
        for (int b = 0; b < 3; b++)
            for (int i = 0; i < 4; i++)
                buf[offs[b] + i] = (char)(0x40 + 4 * b + i);
        CHECK_MPI(MPI_Send(buf, 1, v, 1, 1, MPI_COMM_WORLD));
        munmap(buf, span + (size_t)sysconf(_SC_PAGESIZE));
        char *back = reserve(span, offs, 3);
        CHECK_MPI(MPI_Recv(back, 1, v, 1, 2, MPI_COMM_WORLD, &st));
        MPI_Count c;
        CHECK_MPI(MPI_Get_count_c(&st, v, &c));
        CHECK_INT(1, c, "Get_count_c of the vector received");
        CHECK_MPI(MPI_Get_elements_c(&st, v, &c));
        CHECK_INT(12, c, "Get_elements_c of the vector received");
        char w[100];
        for (int b = 0; b < 3; b++) {
            for (int i = -4; i < 8; i++) {
                if (offs[b] + i < 0)
                    continue;
                int want = i >= 0 && i < 4 ? 0x60 + 4 * b + i : 0; /* gaps stay zero */
                CHECK_INT(want, back[offs[b] + i],
                          t_fmt(w, sizeof w, "byte %lld received into the vector",
                                (long long)(offs[b] + i)));
            }
        }
        munmap(back, span + (size_t)sysconf(_SC_PAGESIZE));
    } else if (t_rank == 1) {
        CHECK_MPI(MPI_Recv(flat, 12, MPI_CHAR, 0, 1, MPI_COMM_WORLD, &st));
        int n;
        CHECK_MPI(MPI_Get_count(&st, MPI_CHAR, &n));
        CHECK_INT(12, n, "chars received from the vector");
        char w[100];
        for (int k = 0; k < 12; k++)
            CHECK_INT(0x40 + k, flat[k], t_fmt(w, sizeof w, "char %d sent from the vector", k));
        for (int k = 0; k < 12; k++)
            flat[k] = (char)(0x60 + k);
        CHECK_MPI(MPI_Send(flat, 12, MPI_CHAR, 0, 2, MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Type_free(&v));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    if (t_size < 2)
        t_skip("needs 2 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mpich_types();
    constructors();
    message();
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("large: OK\n");
    MPI_Finalize();
    return 0;
}
