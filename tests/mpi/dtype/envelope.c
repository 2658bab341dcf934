/* MPI_Type_get_envelope / MPI_Type_get_contents (and the _c forms) for every combiner IVC
 * builds: named, dup, contiguous, vector, hvector, indexed, hindexed, indexed_block,
 * hindexed_block, struct, subarray, darray, resized: the counts, the combiner, the values
 * handed to the constructor, and returned derived types that work and must be freed.
 * The Fortran 90 parameterized types (combiners F90_INTEGER/REAL/COMPLEX, one handle per
 * argument set, not freeable) and contiguous types of INT_MAX and INT_MAX + 1024 bytes (the
 * latter through MPI_Type_contiguous_c: its count shows only as a large count).
 * Errors: contents of a named type (MPI_ERR_TYPE), arrays too small (MPI_ERR_ARG), the int
 * queries of a type with a large count (MPI_ERR_TYPE). */
#include "../t_util.h"

#include <limits.h>

typedef struct {
    int combiner, ni, na, nd;
    int ints[32];
    MPI_Aint aints[8];
    MPI_Datatype types[4];
} expect_t;

static void check_err(int expected, int rc, const char *what)
{
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &rc);
    CHECK_INT(expected, rc, what);
}

/* Checks dt's envelope and contents against e; returned derived types are checked to be
 * equivalent in size and extent to the expected ones, then freed. */
static void check(const char *what, MPI_Datatype dt, const expect_t *e)
{
    char w[160];
    int ni, na, nd, comb;
    CHECK_MPI(MPI_Type_get_envelope(dt, &ni, &na, &nd, &comb));
    CHECK_INT(e->combiner, comb, t_fmt(w, sizeof w, "%s: combiner", what));
    CHECK_INT(e->ni, ni, t_fmt(w, sizeof w, "%s: num_integers", what));
    CHECK_INT(e->na, na, t_fmt(w, sizeof w, "%s: num_addresses", what));
    CHECK_INT(e->nd, nd, t_fmt(w, sizeof w, "%s: num_datatypes", what));
    MPI_Count ci, ca, cl, cd;
    CHECK_MPI(MPI_Type_get_envelope_c(dt, &ci, &ca, &cl, &cd, &comb));
    CHECK_INT(e->ni, ci, t_fmt(w, sizeof w, "%s: _c num_integers", what));
    CHECK_INT(e->na, ca, t_fmt(w, sizeof w, "%s: _c num_addresses", what));
    CHECK_INT(0, cl, t_fmt(w, sizeof w, "%s: _c num_large_counts", what));
    CHECK_INT(e->nd, cd, t_fmt(w, sizeof w, "%s: _c num_datatypes", what));
    CHECK_INT(e->combiner, comb, t_fmt(w, sizeof w, "%s: _c combiner", what));
    int ints[32];
    MPI_Aint aints[8];
    MPI_Datatype types[4];
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0) {
            CHECK_MPI(MPI_Type_get_contents(dt, 32, 8, 4, ints, aints, types));
        } else {
            MPI_Count lc[1];
            CHECK_MPI(MPI_Type_get_contents_c(dt, 32, 8, 1, 4, ints, aints, lc, types));
        }
        for (int i = 0; i < ni; i++)
            CHECK_INT(e->ints[i], ints[i], t_fmt(w, sizeof w, "%s: integer %d", what, i));
        for (int i = 0; i < na; i++)
            CHECK_INT(e->aints[i], aints[i], t_fmt(w, sizeof w, "%s: address %d", what, i));
        for (int i = 0; i < nd; i++) {
            int c2, x1, x2, x3;
            MPI_Type_get_envelope(types[i], &x1, &x2, &x3, &c2);
            if (c2 == MPI_COMBINER_NAMED) {
                CHECK_TRUE(types[i] == e->types[i], t_fmt(w, sizeof w, "%s: type %d", what, i));
                continue;
            }
            int s1, s2;
            MPI_Aint lb1, lb2, x1e, x2e;
            CHECK_MPI(MPI_Type_size(types[i], &s1));
            MPI_Type_size(e->types[i], &s2);
            CHECK_INT(s2, s1, t_fmt(w, sizeof w, "%s: size of type %d", what, i));
            CHECK_MPI(MPI_Type_get_extent(types[i], &lb1, &x1e));
            MPI_Type_get_extent(e->types[i], &lb2, &x2e);
            CHECK_INT(x2e, x1e, t_fmt(w, sizeof w, "%s: extent of type %d", what, i));
            CHECK_MPI(MPI_Type_free(&types[i])); /* derived types handed out are ours */
        }
    }
    if (ni > 0 || na > 0 || nd > 0) {
        check_err(MPI_ERR_ARG,
                  MPI_Type_get_contents(dt, ni - (ni > 0), na - (na > 0 && ni == 0),
                                        nd - (nd > 0 && ni == 0 && na == 0), ints, aints, types),
                  t_fmt(w, sizeof w, "%s: contents into arrays one too small", what));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* Named types. */
    MPI_Datatype named[] = {MPI_INT, MPI_DOUBLE_INT, MPI_CHAR, MPI_C_BOOL, MPI_CXX_BOOL, MPI_BYTE};
    for (size_t k = 0; k < sizeof(named) / sizeof(named[0]); k++) {
        int ni, na, nd, comb, ints[1];
        MPI_Aint aints[1];
        MPI_Datatype types[1];
        CHECK_MPI(MPI_Type_get_envelope(named[k], &ni, &na, &nd, &comb));
        CHECK_INT(MPI_COMBINER_NAMED, comb, "named type: combiner");
        CHECK_INT(0, ni + na + nd, "named type: counts");
        check_err(MPI_ERR_TYPE, MPI_Type_get_contents(named[k], 1, 1, 1, ints, aints, types),
                  "contents of a named type");
    }
    /* The combiners kept for the removed Fortran forms are values of their own. */
    const int kept[] = {MPI_COMBINER_HVECTOR_INTEGER, MPI_COMBINER_HINDEXED_INTEGER,
                        MPI_COMBINER_STRUCT_INTEGER};
    for (int k = 0; k < 3; k++) {
        CHECK_TRUE(kept[k] > MPI_COMBINER_VALUE_INDEX, "kept combiner after the others");
        CHECK_TRUE(k == 0 || kept[k] != kept[k - 1], "kept combiners distinct");
    }
    int ni, na, nd, comb;
    check_err(MPI_ERR_TYPE, MPI_Type_get_envelope(MPI_DATATYPE_NULL, &ni, &na, &nd, &comb),
              "envelope of MPI_DATATYPE_NULL");

    MPI_Datatype vec, t;
    expect_t e;
    CHECK_MPI(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &vec));
    e = (expect_t){MPI_COMBINER_VECTOR, 3, 0, 1, {3, 2, 5}, {0}, {MPI_DOUBLE}};
    check("vector", vec, &e);

    CHECK_MPI(MPI_Type_dup(vec, &t));
    e = (expect_t){MPI_COMBINER_DUP, 0, 0, 1, {0}, {0}, {vec}};
    check("dup", t, &e);
    MPI_Type_free(&t);

    CHECK_MPI(MPI_Type_contiguous(7, vec, &t));
    e = (expect_t){MPI_COMBINER_CONTIGUOUS, 1, 0, 1, {7}, {0}, {vec}};
    check("contiguous of a vector", t, &e);
    MPI_Type_free(&t);

    CHECK_MPI(MPI_Type_create_hvector(4, 1, -24, MPI_SHORT, &t));
    e = (expect_t){MPI_COMBINER_HVECTOR, 2, 1, 1, {4, 1}, {-24}, {MPI_SHORT}};
    check("hvector", t, &e);
    MPI_Type_free(&t);

    int bl[] = {1, 0, 3}, di[] = {4, 9, -2};
    MPI_Aint ad[] = {16, 200, -8};
    CHECK_MPI(MPI_Type_indexed(3, bl, di, MPI_FLOAT, &t));
    e = (expect_t){MPI_COMBINER_INDEXED, 7, 0, 1, {3, 1, 0, 3, 4, 9, -2}, {0}, {MPI_FLOAT}};
    check("indexed", t, &e);
    MPI_Type_free(&t);

    CHECK_MPI(MPI_Type_create_hindexed(3, bl, ad, vec, &t));
    e = (expect_t){MPI_COMBINER_HINDEXED, 4, 3, 1, {3, 1, 0, 3}, {16, 200, -8}, {vec}};
    check("hindexed", t, &e);
    MPI_Type_free(&t);

    CHECK_MPI(MPI_Type_create_indexed_block(3, 2, di, MPI_INT, &t));
    e = (expect_t){MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1, {3, 2, 4, 9, -2}, {0}, {MPI_INT}};
    check("indexed_block", t, &e);
    MPI_Type_free(&t);

    CHECK_MPI(MPI_Type_create_hindexed_block(3, 2, ad, MPI_INT, &t));
    e = (expect_t){MPI_COMBINER_HINDEXED_BLOCK, 2, 3, 1, {3, 2}, {16, 200, -8}, {MPI_INT}};
    check("hindexed_block", t, &e);
    MPI_Type_free(&t);

    MPI_Datatype st[] = {MPI_CHAR, vec, MPI_LONG_DOUBLE_INT};
    CHECK_MPI(MPI_Type_create_struct(3, bl, ad, st, &t));
    e = (expect_t){MPI_COMBINER_STRUCT, 4, 3, 3, {3, 1, 0, 3}, {16, 200, -8},
                   {MPI_CHAR, vec, MPI_LONG_DOUBLE_INT}};
    check("struct", t, &e);
    MPI_Type_free(&t);

    int sz[] = {8, 9}, sub[] = {2, 3}, start[] = {1, 4};
    CHECK_MPI(MPI_Type_create_subarray(2, sz, sub, start, MPI_ORDER_FORTRAN, MPI_INT, &t));
    e = (expect_t){MPI_COMBINER_SUBARRAY, 8, 0, 1,
                   {2, 8, 9, 2, 3, 1, 4, MPI_ORDER_FORTRAN}, {0}, {MPI_INT}};
    check("subarray", t, &e);
    MPI_Type_free(&t);

    int gs[] = {10, 12}, dist[] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
    int dargs[] = {2, MPI_DISTRIBUTE_DFLT_DARG}, ps[] = {2, 3};
    CHECK_MPI(MPI_Type_create_darray(6, 4, 2, gs, dist, dargs, ps, MPI_ORDER_C, vec, &t));
    e = (expect_t){MPI_COMBINER_DARRAY, 12, 0, 1,
                   {6, 4, 2, 10, 12, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK, 2,
                    MPI_DISTRIBUTE_DFLT_DARG, 2, 3, MPI_ORDER_C},
                   {0}, {vec}};
    check("darray", t, &e);
    MPI_Type_free(&t);

    CHECK_MPI(MPI_Type_create_resized(vec, -8, 100, &t));
    e = (expect_t){MPI_COMBINER_RESIZED, 0, 2, 1, {0}, {-8, 100}, {vec}};
    check("resized", t, &e);

    /* The inner type outlives the user's handle: contents of a type whose component was
     * freed still hands out a working type. */
    MPI_Datatype inner, outer, got[1];
    CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &inner));
    CHECK_MPI(MPI_Type_contiguous(2, inner, &outer));
    CHECK_MPI(MPI_Type_free(&inner));
    int iv[1];
    MPI_Aint av[1];
    CHECK_MPI(MPI_Type_get_contents(outer, 1, 0, 1, iv, av, got));
    int s;
    CHECK_MPI(MPI_Type_size(got[0], &s));
    CHECK_INT(12, s, "size of a freed component returned by get_contents");
    CHECK_MPI(MPI_Type_commit(&got[0]));
    int src[3] = {1, 2, 3}, dst[3] = {0};
    CHECK_MPI(MPI_Sendrecv(src, 1, got[0], t_rank, 0, dst, 3, MPI_INT, t_rank, 0, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK_INT(3, dst[2], "message with a type from get_contents");
    CHECK_MPI(MPI_Type_free(&got[0]));
    CHECK_MPI(MPI_Type_free(&outer));

    /* Fortran 90 parameterized types: predefined but not named, an envelope of their own with
     * the arguments, one handle per (combiner, p, r), the type map of the matching kind, and
     * they cannot be freed. */
    MPI_Datatype f1, f2, fr, fc;
    CHECK_MPI(MPI_Type_create_f90_integer(4, &f1));
    e = (expect_t){MPI_COMBINER_F90_INTEGER, 1, 0, 0, {4}, {0}, {0}};
    check("f90_integer(4)", f1, &e);
    CHECK_MPI(MPI_Type_create_f90_integer(4, &f2));
    CHECK_TRUE(f1 == f2, "f90_integer(4) twice gives one handle");
    CHECK_MPI(MPI_Type_size(f1, &s));
    CHECK_INT(2, s, "size of f90_integer(4) (INTEGER*2)");
    CHECK_MPI(MPI_Type_create_f90_real(15, MPI_UNDEFINED, &fr));
    e = (expect_t){MPI_COMBINER_F90_REAL, 2, 0, 0, {15, MPI_UNDEFINED}, {0}, {0}};
    check("f90_real(15, MPI_UNDEFINED)", fr, &e);
    CHECK_MPI(MPI_Type_size(fr, &s));
    CHECK_INT(8, s, "size of f90_real(15, MPI_UNDEFINED) (REAL*8)");
    CHECK_MPI(MPI_Type_create_f90_complex(6, 30, &fc));
    e = (expect_t){MPI_COMBINER_F90_COMPLEX, 2, 0, 0, {6, 30}, {0}, {0}};
    check("f90_complex(6, 30)", fc, &e);
    CHECK_MPI(MPI_Type_size(fc, &s));
    CHECK_INT(8, s, "size of f90_complex(6, 30) (COMPLEX*8)");
    check_err(MPI_ERR_TYPE, MPI_Type_free(&f2), "Type_free of an f90 type");
    CHECK_TRUE(f2 == f1, "a refused Type_free leaves the handle");
    double dsrc[2] = {1.5, -2.25}, ddst[2] = {0};
    CHECK_MPI(MPI_Sendrecv(dsrc, 2, fr, t_rank, 1, ddst, 2, MPI_DOUBLE, t_rank, 1, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK_TRUE(ddst[0] == 1.5 && ddst[1] == -2.25, "message of f90_real(15) received as doubles");

    /* Contiguous with counts that need the large-count form: INT_MAX bytes through the int
     * form, INT_MAX + 1024 through MPI_Type_contiguous_c, whose envelope holds a large
     * count that only the _c queries show. */
    MPI_Datatype big;
    MPI_Count bs, big_count = (MPI_Count)INT_MAX + 1024;
    CHECK_MPI(MPI_Type_contiguous(INT_MAX, MPI_BYTE, &big));
    CHECK_MPI(MPI_Type_size_c(big, &bs));
    CHECK_INT(INT_MAX, bs, "size of contiguous(INT_MAX, MPI_BYTE)");
    e = (expect_t){MPI_COMBINER_CONTIGUOUS, 1, 0, 1, {INT_MAX}, {0}, {MPI_BYTE}};
    check("contiguous(INT_MAX, MPI_BYTE)", big, &e);
    CHECK_MPI(MPI_Type_free(&big));
    CHECK_MPI(MPI_Type_contiguous_c(big_count, MPI_BYTE, &big));
    CHECK_MPI(MPI_Type_size_c(big, &bs));
    CHECK_INT(big_count, bs, "size of contiguous_c(INT_MAX + 1024, MPI_BYTE)");
    MPI_Count ci, ca, cl, cd, lc[1] = {0};
    CHECK_MPI(MPI_Type_get_envelope_c(big, &ci, &ca, &cl, &cd, &comb));
    CHECK_INT(MPI_COMBINER_CONTIGUOUS, comb, "contiguous_c: combiner");
    CHECK_INT(0, ci, "contiguous_c: num_integers");
    CHECK_INT(0, ca, "contiguous_c: num_addresses");
    CHECK_INT(1, cl, "contiguous_c: num_large_counts");
    CHECK_INT(1, cd, "contiguous_c: num_datatypes");
    MPI_Datatype bt[1] = {MPI_DATATYPE_NULL};
    CHECK_MPI(MPI_Type_get_contents_c(big, 0, 0, 1, 1, iv, av, lc, bt));
    CHECK_INT(big_count, lc[0], "contiguous_c: the large count");
    CHECK_TRUE(bt[0] == MPI_BYTE, "contiguous_c: the old type");
    check_err(MPI_ERR_TYPE, MPI_Type_get_envelope(big, &ni, &na, &nd, &comb),
              "int envelope of a type with a large count");
    check_err(MPI_ERR_TYPE, MPI_Type_get_contents(big, 1, 1, 1, iv, av, bt),
              "int contents of a type with a large count");
    check_err(MPI_ERR_ARG, MPI_Type_get_contents_c(big, 0, 0, 0, 1, iv, av, lc, bt),
              "contents_c with no room for the large count");
    CHECK_MPI(MPI_Type_free(&big));
    check_err(MPI_ERR_COUNT, MPI_Type_contiguous_c(-1, MPI_BYTE, &big), "contiguous_c(-1)");

    MPI_Type_free(&t);
    MPI_Type_free(&vec);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("envelope: OK\n");
    MPI_Finalize();
    return 0;
}
