/* Every named datatype of MPI-4.1's C table exists with the size of its C type, its name
 * and the NAMED combiner; Allreduce of every predefined operation on every C type the
 * standard defines it for (integer, floating, complex, logical, byte, and MAXLOC/MINLOC on
 * the pair types) against references folded here in rank order; Reduce_local refuses the
 * combinations the standard leaves undefined (MPI_ERR_OP). Also the MPI_Count queries,
 * Type_match_size, Type_create_f90_*, Type_get_value_index, Aint_add/diff and
 * Type_create_hindexed_block data. */
#include "../t_util.h"

#include <complex.h>
#include <stdbool.h>
#include <wchar.h>

static MPI_Op const all_ops[] = {MPI_MAX,  MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,
                                 MPI_LOR,  MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
static const char *const op_names[] = {"MAX", "MIN", "SUM", "PROD", "LAND",
                                       "LOR", "LXOR", "BAND", "BOR", "BXOR"};
enum { O_MAX, O_MIN, O_SUM, O_PROD, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR };

#define N 4

/* One reduction test per C type: ops in [first, last] of all_ops, values from VAL(r, k). */
#define RED_TEST(FN, T, VAL, APPLY, EQ)                                                            \
    static void FN(MPI_Datatype dt, const char *tn, const int *ops, int nops)                      \
    {                                                                                              \
        char w[160];                                                                               \
        for (int oi = 0; oi < nops; oi++) {                                                        \
            int o = ops[oi];                                                                       \
            T in[N], out[N], ref[N];                                                               \
            for (int k = 0; k < N; k++) {                                                          \
                in[k] = VAL(t_rank, k);                                                            \
                ref[k] = VAL(0, k);                                                                \
                for (int r = 1; r < t_size; r++) {                                                 \
                    T a = VAL(r, k), b = ref[k];                                                   \
                    ref[k] = APPLY(o, a, b);                                                       \
                }                                                                                  \
            }                                                                                      \
            CHECK_MPI(MPI_Allreduce(in, out, N, dt, all_ops[o], MPI_COMM_WORLD));                  \
            for (int k = 0; k < N; k++)                                                            \
                CHECK_TRUE(EQ(ref[k], out[k]),                                                     \
                           t_fmt(w, sizeof w, "Allreduce %s on %s, element %d", op_names[o], tn, k)); \
        }                                                                                          \
    }

#define IVAL(r, k) (k == 0 ? (r) + 1 : k == 1 ? (r) % 2 : k == 2 ? (r) % 3 + 1 : (r) == 1 ? 0 : 2)
#define IAPPLY(o, a, b)                                                                            \
    (o == O_MAX    ? (a > b ? a : b)                                                               \
     : o == O_MIN  ? (a < b ? a : b)                                                               \
     : o == O_SUM  ? a + b                                                                         \
     : o == O_PROD ? a * b                                                                         \
     : o == O_LAND ? (a && b)                                                                      \
     : o == O_LOR  ? (a || b)                                                                      \
     : o == O_LXOR ? (!a != !b)                                                                    \
     : o == O_BAND ? (a & b)                                                                       \
     : o == O_BOR  ? (a | b)                                                                       \
                   : (a ^ b))
#define SAME(a, b) ((a) == (b))
#define FVAL(r, k) (k == 0 ? (r) + 1 : k == 1 ? (r) * 0.5 : k == 2 ? -(r) : 2)
#define FAPPLY(o, a, b)                                                                            \
    (o == O_MAX ? (a > b ? a : b) : o == O_MIN ? (a < b ? a : b) : o == O_SUM ? a + b : a * b)
#define CVAL(r, k) ((r) + 1 + ((k) - (r)) * I)
#define CAPPLY(o, a, b) (o == O_SUM ? a + b : a * b)
#define BVAL(r, k) (((r) + (k)) % 2 != 0 || (k) == 3)
#define BAPPLY(o, a, b) (o == O_LAND ? (a && b) : o == O_LOR ? (a || b) : (!a != !b))
#define YVAL(r, k) ((unsigned char)((r) * 37 + (k) * 11))
#define YAPPLY(o, a, b) (o == O_BAND ? (a & b) : o == O_BOR ? (a | b) : (a ^ b))

RED_TEST(red_schar, signed char, IVAL, IAPPLY, SAME)
RED_TEST(red_uchar, unsigned char, IVAL, IAPPLY, SAME)
RED_TEST(red_short, short, IVAL, IAPPLY, SAME)
RED_TEST(red_ushort, unsigned short, IVAL, IAPPLY, SAME)
RED_TEST(red_int, int, IVAL, IAPPLY, SAME)
RED_TEST(red_uint, unsigned, IVAL, IAPPLY, SAME)
RED_TEST(red_long, long, IVAL, IAPPLY, SAME)
RED_TEST(red_ulong, unsigned long, IVAL, IAPPLY, SAME)
RED_TEST(red_llong, long long, IVAL, IAPPLY, SAME)
RED_TEST(red_ullong, unsigned long long, IVAL, IAPPLY, SAME)
RED_TEST(red_i8, int8_t, IVAL, IAPPLY, SAME)
RED_TEST(red_i16, int16_t, IVAL, IAPPLY, SAME)
RED_TEST(red_i32, int32_t, IVAL, IAPPLY, SAME)
RED_TEST(red_i64, int64_t, IVAL, IAPPLY, SAME)
RED_TEST(red_u8, uint8_t, IVAL, IAPPLY, SAME)
RED_TEST(red_u16, uint16_t, IVAL, IAPPLY, SAME)
RED_TEST(red_u32, uint32_t, IVAL, IAPPLY, SAME)
RED_TEST(red_u64, uint64_t, IVAL, IAPPLY, SAME)
RED_TEST(red_aint, MPI_Aint, IVAL, IAPPLY, SAME)
RED_TEST(red_offset, MPI_Offset, IVAL, IAPPLY, SAME)
RED_TEST(red_count, MPI_Count, IVAL, IAPPLY, SAME)
RED_TEST(red_float, float, FVAL, FAPPLY, SAME)
RED_TEST(red_double, double, FVAL, FAPPLY, SAME)
RED_TEST(red_ldouble, long double, FVAL, FAPPLY, SAME)
RED_TEST(red_cfloat, float complex, CVAL, CAPPLY, SAME)
RED_TEST(red_cdouble, double complex, CVAL, CAPPLY, SAME)
RED_TEST(red_cldouble, long double complex, CVAL, CAPPLY, SAME)
RED_TEST(red_bool, bool, BVAL, BAPPLY, SAME)
RED_TEST(red_byte, unsigned char, YVAL, YAPPLY, SAME)

/* MAXLOC / MINLOC on a pair type with value type V. */
#define LOC_TEST(FN, V)                                                                            \
    static void FN(MPI_Datatype dt, const char *tn)                                                \
    {                                                                                              \
        struct {                                                                                   \
            V v;                                                                                   \
            int i;                                                                                 \
        } in[N], out[N], ref[N];                                                                   \
        char w[160];                                                                               \
        for (int mx = 0; mx < 2; mx++) {                                                           \
            for (int k = 0; k < N; k++) {                                                          \
                in[k].v = (V)((t_rank * 7 + k) % 5);                                               \
                in[k].i = t_rank + k;                                                              \
                ref[k].v = (V)(k % 5);                                                             \
                ref[k].i = k;                                                                      \
                for (int r = 1; r < t_size; r++) {                                                 \
                    V v = (V)((r * 7 + k) % 5);                                                    \
                    if (mx ? v > ref[k].v : v < ref[k].v) {                                        \
                        ref[k].v = v;                                                              \
                        ref[k].i = r + k;                                                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
            CHECK_MPI(MPI_Allreduce(in, out, N, dt, mx ? MPI_MAXLOC : MPI_MINLOC,                 \
                                    MPI_COMM_WORLD));                                              \
            for (int k = 0; k < N; k++) {                                                          \
                CHECK_TRUE(out[k].v == ref[k].v,                                                   \
                           t_fmt(w, sizeof w, "%s on %s: value %d", mx ? "MAXLOC" : "MINLOC", tn, k)); \
                CHECK_INT(ref[k].i, out[k].i,                                                      \
                          t_fmt(w, sizeof w, "%s on %s: index %d", mx ? "MAXLOC" : "MINLOC", tn, k)); \
            }                                                                                      \
        }                                                                                          \
    }
LOC_TEST(loc_float, float)
LOC_TEST(loc_double, double)
LOC_TEST(loc_long, long)
LOC_TEST(loc_int, int)
LOC_TEST(loc_short, short)
LOC_TEST(loc_ldouble, long double)

typedef struct {
    MPI_Datatype dt;
    const char *name;
    size_t size;
} named_t;

#define T(NAME, CT) {NAME, #NAME, sizeof(CT)}

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
    char w[160];

    /* MPI-4.1's C table (MPI_C_COMPLEX and MPI_LONG_LONG are aliases; the shared handle of
     * MPI_C_COMPLEX / MPI_C_FLOAT_COMPLEX is named MPI_C_COMPLEX, which fits both). */
    static const named_t named[] = {
        T(MPI_CHAR, char), T(MPI_SHORT, short), T(MPI_INT, int), T(MPI_LONG, long),
        T(MPI_LONG_LONG_INT, long long), T(MPI_SIGNED_CHAR, signed char),
        T(MPI_UNSIGNED_CHAR, unsigned char), T(MPI_UNSIGNED_SHORT, unsigned short),
        T(MPI_UNSIGNED, unsigned), T(MPI_UNSIGNED_LONG, unsigned long),
        T(MPI_UNSIGNED_LONG_LONG, unsigned long long), T(MPI_FLOAT, float),
        T(MPI_DOUBLE, double), T(MPI_LONG_DOUBLE, long double), T(MPI_WCHAR, wchar_t),
        T(MPI_C_BOOL, bool), T(MPI_INT8_T, int8_t), T(MPI_INT16_T, int16_t),
        T(MPI_INT32_T, int32_t), T(MPI_INT64_T, int64_t), T(MPI_UINT8_T, uint8_t),
        T(MPI_UINT16_T, uint16_t), T(MPI_UINT32_T, uint32_t), T(MPI_UINT64_T, uint64_t),
        T(MPI_C_COMPLEX, float complex), T(MPI_C_DOUBLE_COMPLEX, double complex),
        T(MPI_C_LONG_DOUBLE_COMPLEX, long double complex), T(MPI_BYTE, char),
        T(MPI_PACKED, char), T(MPI_AINT, MPI_Aint), T(MPI_OFFSET, MPI_Offset),
        T(MPI_COUNT, MPI_Count), T(MPI_CXX_BOOL, bool), T(MPI_CXX_FLOAT_COMPLEX, float complex),
        T(MPI_CXX_DOUBLE_COMPLEX, double complex),
        T(MPI_CXX_LONG_DOUBLE_COMPLEX, long double complex),
    };
    for (size_t k = 0; k < sizeof(named) / sizeof(named[0]); k++) {
        const named_t *n = &named[k];
        int size, len, ni, na, nd, comb;
        MPI_Count sc, lbc, exc;
        char name[MPI_MAX_OBJECT_NAME];
        CHECK_MPI(MPI_Type_size(n->dt, &size));
        CHECK_INT(n->size, size, t_fmt(w, sizeof w, "%s: size", n->name));
        CHECK_MPI(MPI_Type_size_c(n->dt, &sc));
        CHECK_INT(n->size, sc, t_fmt(w, sizeof w, "%s: Type_size_c", n->name));
        CHECK_MPI(MPI_Type_get_extent_c(n->dt, &lbc, &exc));
        CHECK_INT(n->size, exc, t_fmt(w, sizeof w, "%s: Type_get_extent_c", n->name));
        CHECK_MPI(MPI_Type_get_true_extent_c(n->dt, &lbc, &exc));
        CHECK_INT(n->size, exc, t_fmt(w, sizeof w, "%s: Type_get_true_extent_c", n->name));
        CHECK_MPI(MPI_Type_get_name(n->dt, name, &len));
        CHECK_TRUE(strcmp(name, n->name) == 0, t_fmt(w, sizeof w, "%s: name", n->name));
        CHECK_MPI(MPI_Type_get_envelope(n->dt, &ni, &na, &nd, &comb));
        CHECK_INT(MPI_COMBINER_NAMED, comb, t_fmt(w, sizeof w, "%s: combiner", n->name));
    }
    CHECK_TRUE(MPI_C_COMPLEX == MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX");
    CHECK_TRUE(MPI_LONG_LONG == MPI_LONG_LONG_INT, "MPI_LONG_LONG");

    /* Reductions by type class. */
    int iops[] = {O_MAX, O_MIN, O_SUM, O_PROD, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR};
    int fops[] = {O_MAX, O_MIN, O_SUM, O_PROD}, cops[] = {O_SUM, O_PROD};
    int lops[] = {O_LAND, O_LOR, O_LXOR}, bops[] = {O_BAND, O_BOR, O_BXOR};
    red_schar(MPI_SIGNED_CHAR, "SIGNED_CHAR", iops, 10);
    red_uchar(MPI_UNSIGNED_CHAR, "UNSIGNED_CHAR", iops, 10);
    red_short(MPI_SHORT, "SHORT", iops, 10);
    red_ushort(MPI_UNSIGNED_SHORT, "UNSIGNED_SHORT", iops, 10);
    red_int(MPI_INT, "INT", iops, 10);
    red_uint(MPI_UNSIGNED, "UNSIGNED", iops, 10);
    red_long(MPI_LONG, "LONG", iops, 10);
    red_ulong(MPI_UNSIGNED_LONG, "UNSIGNED_LONG", iops, 10);
    red_llong(MPI_LONG_LONG, "LONG_LONG", iops, 10);
    red_ullong(MPI_UNSIGNED_LONG_LONG, "UNSIGNED_LONG_LONG", iops, 10);
    red_i8(MPI_INT8_T, "INT8_T", iops, 10);
    red_i16(MPI_INT16_T, "INT16_T", iops, 10);
    red_i32(MPI_INT32_T, "INT32_T", iops, 10);
    red_i64(MPI_INT64_T, "INT64_T", iops, 10);
    red_u8(MPI_UINT8_T, "UINT8_T", iops, 10);
    red_u16(MPI_UINT16_T, "UINT16_T", iops, 10);
    red_u32(MPI_UINT32_T, "UINT32_T", iops, 10);
    red_u64(MPI_UINT64_T, "UINT64_T", iops, 10);
    red_aint(MPI_AINT, "AINT", iops, 10);
    red_offset(MPI_OFFSET, "OFFSET", iops, 10);
    red_count(MPI_COUNT, "COUNT", iops, 10);
    red_float(MPI_FLOAT, "FLOAT", fops, 4);
    red_double(MPI_DOUBLE, "DOUBLE", fops, 4);
    red_ldouble(MPI_LONG_DOUBLE, "LONG_DOUBLE", fops, 4);
    red_cfloat(MPI_C_FLOAT_COMPLEX, "C_FLOAT_COMPLEX", cops, 2);
    red_cdouble(MPI_C_DOUBLE_COMPLEX, "C_DOUBLE_COMPLEX", cops, 2);
    red_cldouble(MPI_C_LONG_DOUBLE_COMPLEX, "C_LONG_DOUBLE_COMPLEX", cops, 2);
    red_cfloat(MPI_CXX_FLOAT_COMPLEX, "CXX_FLOAT_COMPLEX", cops, 2);
    red_cdouble(MPI_CXX_DOUBLE_COMPLEX, "CXX_DOUBLE_COMPLEX", cops, 2);
    red_cldouble(MPI_CXX_LONG_DOUBLE_COMPLEX, "CXX_LONG_DOUBLE_COMPLEX", cops, 2);
    red_bool(MPI_C_BOOL, "C_BOOL", lops, 3);
    red_bool(MPI_CXX_BOOL, "CXX_BOOL", lops, 3);
    red_byte(MPI_BYTE, "BYTE", bops, 3);
    loc_float(MPI_FLOAT_INT, "FLOAT_INT");
    loc_double(MPI_DOUBLE_INT, "DOUBLE_INT");
    loc_long(MPI_LONG_INT, "LONG_INT");
    loc_int(MPI_2INT, "2INT");
    loc_short(MPI_SHORT_INT, "SHORT_INT");
    loc_ldouble(MPI_LONG_DOUBLE_INT, "LONG_DOUBLE_INT");

    /* Undefined combinations. */
    double dd[2] = {1, 2};
    bool bb[2] = {true, false};
    check_err(MPI_ERR_OP, MPI_Reduce_local(dd, dd + 1, 1, MPI_DOUBLE, MPI_BAND), "BAND on DOUBLE");
    check_err(MPI_ERR_OP, MPI_Reduce_local(bb, bb + 1, 1, MPI_C_BOOL, MPI_SUM), "SUM on C_BOOL");
    check_err(MPI_ERR_OP, MPI_Reduce_local(bb, bb + 1, 1, MPI_CXX_BOOL, MPI_MAX), "MAX on CXX_BOOL");
    check_err(MPI_ERR_OP, MPI_Reduce_local(dd, dd + 1, 1, MPI_C_DOUBLE_COMPLEX, MPI_MAX),
              "MAX on C_DOUBLE_COMPLEX");
    check_err(MPI_ERR_OP, MPI_Reduce_local(dd, dd + 1, 1, MPI_BYTE, MPI_SUM), "SUM on BYTE");
    check_err(MPI_ERR_OP, MPI_Reduce_local(dd, dd + 1, 1, MPI_DOUBLE, MPI_MAXLOC),
              "MAXLOC on DOUBLE");

    /* MPI_Count queries of a derived type: {short at 6, double at 16}, resized to 40. */
    MPI_Datatype st, rs;
    int bl[] = {1, 1};
    MPI_Aint disp[] = {6, 16};
    MPI_Datatype ts[] = {MPI_SHORT, MPI_DOUBLE};
    CHECK_MPI(MPI_Type_create_struct(2, bl, disp, ts, &st));
    CHECK_MPI(MPI_Type_create_resized(st, -4, 40, &rs));
    MPI_Count c1, c2;
    CHECK_MPI(MPI_Type_size_c(rs, &c1));
    CHECK_INT(10, c1, "Type_size_c");
    CHECK_MPI(MPI_Type_get_extent_c(rs, &c1, &c2));
    CHECK_INT(-4, c1, "Type_get_extent_c lb");
    CHECK_INT(40, c2, "Type_get_extent_c extent");
    CHECK_MPI(MPI_Type_get_true_extent_x(rs, &c1, &c2));
    CHECK_INT(6, c1, "Type_get_true_extent_x lb");
    CHECK_INT(18, c2, "Type_get_true_extent_x extent");
    CHECK_MPI(MPI_Type_get_true_extent_c(rs, &c1, &c2));
    CHECK_INT(18, c2, "Type_get_true_extent_c extent");
    MPI_Type_free(&rs);
    MPI_Type_free(&st);

    /* Type_match_size, f90 types, value_index. */
    MPI_Datatype m;
    int s;
    static const struct {
        int cls, size;
    } ms[] = {{MPI_TYPECLASS_INTEGER, 1}, {MPI_TYPECLASS_INTEGER, 2}, {MPI_TYPECLASS_INTEGER, 4},
              {MPI_TYPECLASS_INTEGER, 8}, {MPI_TYPECLASS_REAL, 4},    {MPI_TYPECLASS_REAL, 8},
              {MPI_TYPECLASS_COMPLEX, 8}, {MPI_TYPECLASS_COMPLEX, 16}};
    for (size_t k = 0; k < sizeof(ms) / sizeof(ms[0]); k++) {
        CHECK_MPI(MPI_Type_match_size(ms[k].cls, ms[k].size, &m));
        CHECK_MPI(MPI_Type_size(m, &s));
        CHECK_INT(ms[k].size, s, t_fmt(w, sizeof w, "Type_match_size(%d, %d)", ms[k].cls,
                                        ms[k].size));
    }
    check_err(MPI_ERR_ARG, MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &m),
              "Type_match_size(INTEGER, 3)");
    check_err(MPI_ERR_ARG, MPI_Type_match_size(99, 4, &m), "Type_match_size(99, 4)");
    CHECK_MPI(MPI_Type_create_f90_integer(9, &m));
    MPI_Type_size(m, &s);
    CHECK_INT(4, s, "f90_integer(9)");
    CHECK_MPI(MPI_Type_create_f90_integer(10, &m));
    MPI_Type_size(m, &s);
    CHECK_INT(8, s, "f90_integer(10)");
    CHECK_MPI(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &m));
    MPI_Type_size(m, &s);
    CHECK_INT(4, s, "f90_real(6, UNDEFINED)");
    CHECK_MPI(MPI_Type_create_f90_real(MPI_UNDEFINED, 300, &m));
    MPI_Type_size(m, &s);
    CHECK_INT(8, s, "f90_real(UNDEFINED, 300)");
    CHECK_MPI(MPI_Type_create_f90_complex(15, 307, &m));
    MPI_Type_size(m, &s);
    CHECK_INT(16, s, "f90_complex(15, 307)");
    check_err(MPI_ERR_ARG, MPI_Type_create_f90_integer(40, &m), "f90_integer(40)");
    check_err(MPI_ERR_ARG, MPI_Type_create_f90_real(40, 10, &m), "f90_real(40, 10)");
    CHECK_MPI(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &m));
    CHECK_TRUE(m == MPI_DOUBLE_INT, "value_index(DOUBLE, INT)");
    CHECK_MPI(MPI_Type_get_value_index(MPI_SHORT, MPI_INT, &m));
    CHECK_TRUE(m == MPI_SHORT_INT, "value_index(SHORT, INT)");
    CHECK_MPI(MPI_Type_get_value_index(MPI_FLOAT, MPI_FLOAT, &m));
    CHECK_TRUE(m == MPI_DATATYPE_NULL, "value_index(FLOAT, FLOAT) has no pair type");
    check_err(MPI_ERR_TYPE, MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &m),
              "value_index(DATATYPE_NULL, INT)");

    /* Address arithmetic. */
    int arr[10];
    MPI_Aint a0, a7;
    MPI_Get_address(&arr[0], &a0);
    MPI_Get_address(&arr[7], &a7);
    CHECK_INT(7 * sizeof(int), MPI_Aint_diff(a7, a0), "Aint_diff");
    CHECK_TRUE(MPI_Aint_add(a0, 7 * sizeof(int)) == a7, "Aint_add");
    CHECK_TRUE(MPI_Aint_add(a7, -7 * (MPI_Aint)sizeof(int)) == a0, "Aint_add negative");

    /* hindexed_block: blocks of 2 ints at byte offsets 20, 0, 8. */
    MPI_Datatype hb;
    MPI_Aint hd[] = {20, 0, 8};
    CHECK_MPI(MPI_Type_create_hindexed_block(3, 2, hd, MPI_INT, &hb));
    CHECK_MPI(MPI_Type_commit(&hb));
    int src[8] = {0, 1, 2, 3, 4, 5, 6, 7}, got[6], pos = 0;
    CHECK_MPI(MPI_Pack(src, 1, hb, got, sizeof got, &pos, MPI_COMM_WORLD));
    int want[6] = {5, 6, 0, 1, 2, 3};
    for (int k = 0; k < 6; k++)
        CHECK_INT(want[k], got[k], t_fmt(w, sizeof w, "hindexed_block element %d", k));
    check_err(MPI_ERR_ARG, MPI_Type_create_hindexed_block(3, -1, hd, MPI_INT, &m),
              "hindexed_block negative block length");
    MPI_Type_free(&hb);

    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("predefined: OK\n");
    MPI_Finalize();
    return 0;
}
