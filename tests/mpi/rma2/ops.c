/* Every predefined operation on every predefined C type it is defined on, through
 * MPI_Accumulate, MPI_Get_accumulate and MPI_Fetch_and_op (and MPI_Compare_and_swap on the
 * integer, logical and byte types), on every kind of window (Win_create over malloc and over
 * MPI_Alloc_mem memory, Win_allocate, Win_allocate_shared, Win_create_dynamic), under shared
 * locks with flushes: every rank targets every rank. Checked against references computed
 * here: accumulates into one shared area (all origins: any order gives the same result;
 * REPLACE leaves one origin's value), Get_accumulate and Fetch_and_op into areas of each
 * origin's own (the fetched values are the initial ones, the result is init op operand),
 * exactly one winner of each Compare_and_swap. Then the error classes of bad accumulates.
 * Optional argument: a window kind (0-4) to run alone. */
#include "t_win.h"

#include <complex.h>
#include <stdbool.h>

enum { O_MAX, O_MIN, O_SUM, O_PROD, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR,
       O_MAXLOC, O_MINLOC, O_REPLACE, O_NO_OP, O_COUNT };
static MPI_Op op_of(int o)
{
    static MPI_Op const ops[O_COUNT] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,
                                        MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR,
                                        MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    return ops[o];
}
static const char *const op_name[O_COUNT] = {"MAX", "MIN", "SUM", "PROD", "LAND", "LOR", "LXOR",
                                             "BAND", "BOR", "BXOR", "MAXLOC", "MINLOC",
                                             "REPLACE", "NO_OP"};

enum { C_INT, C_FLOAT, C_COMPLEX, C_BOOL, C_BYTE, C_PAIR };
static const int class_ops[][13] = {
    [C_INT] = {O_MAX, O_MIN, O_SUM, O_PROD, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR,
               O_REPLACE, O_NO_OP, -1},
    [C_FLOAT] = {O_MAX, O_MIN, O_SUM, O_PROD, O_REPLACE, O_NO_OP, -1},
    [C_COMPLEX] = {O_SUM, O_PROD, O_REPLACE, O_NO_OP, -1},
    [C_BOOL] = {O_LAND, O_LOR, O_LXOR, O_REPLACE, O_NO_OP, -1},
    [C_BYTE] = {O_BAND, O_BOR, O_BXOR, O_REPLACE, O_NO_OP, -1},
    [C_PAIR] = {O_MAXLOC, O_MINLOC, O_REPLACE, O_NO_OP, -1},
};

typedef struct {
    const char *name;
    MPI_Datatype dt;
    size_t size; /* the C type's size: the window's element stride */
    int cls;
    void (*init)(void *e, int k);
    void (*contrib)(void *e, int r, int k);
    void (*cas)(void *e, int r);
    void (*apply)(int o, const void *a, void *b); /* b = a op b */
    int (*eq)(const void *a, const void *b);
} tdesc_t;

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
#define FAPPLY(o, a, b)                                                                            \
    (o == O_MAX ? (a > b ? a : b) : o == O_MIN ? (a < b ? a : b) : o == O_SUM ? a + b : a * b)
#define CAPPLY(o, a, b) (o == O_SUM ? a + b : a * b)
#define BAPPLY(o, a, b) (o == O_LAND ? (a && b) : o == O_LOR ? (a || b) : (!a != !b))
#define YAPPLY(o, a, b) (o == O_BAND ? (a & b) : o == O_BOR ? (a | b) : (a ^ b))

#define SCALAR(FN, T, INIT, CONTRIB, CASV, APPLY)                                                  \
    static void FN##_init(void *e, int k) { *(T *)e = (T)(INIT); }                                 \
    static void FN##_contrib(void *e, int r, int k) { *(T *)e = (T)(CONTRIB); }                    \
    static void FN##_cas(void *e, int r) { *(T *)e = (T)(CASV); }                                  \
    static void FN##_apply(int o, const void *pa, void *pb)                                        \
    {                                                                                              \
        T a = *(const T *)pa, b = *(T *)pb;                                                        \
        if (o == O_REPLACE)                                                                        \
            b = a;                                                                                 \
        else if (o != O_NO_OP)                                                                     \
            b = (T)(APPLY(o, a, b));                                                               \
        *(T *)pb = b;                                                                              \
    }                                                                                              \
    static int FN##_eq(const void *a, const void *b) { return *(const T *)a == *(const T *)b; }

/* Integers: small values with zeros (logical ops) and mixed bits; CAS values differ from the
 * initial ones. */
#define INT_T(FN, T) SCALAR(FN, T, k % 3 + 1, (r * 5 + k * 3) % 7, 100 + r, IAPPLY)
INT_T(t_char, char)
INT_T(t_schar, signed char)
INT_T(t_uchar, unsigned char)
INT_T(t_short, short)
INT_T(t_ushort, unsigned short)
INT_T(t_int, int)
INT_T(t_uint, unsigned)
INT_T(t_long, long)
INT_T(t_ulong, unsigned long)
INT_T(t_llong, long long)
INT_T(t_ullong, unsigned long long)
INT_T(t_i8, int8_t)
INT_T(t_i16, int16_t)
INT_T(t_i32, int32_t)
INT_T(t_i64, int64_t)
INT_T(t_u8, uint8_t)
INT_T(t_u16, uint16_t)
INT_T(t_u32, uint32_t)
INT_T(t_u64, uint64_t)
INT_T(t_aint, MPI_Aint)
INT_T(t_offset, MPI_Offset)
INT_T(t_count, MPI_Count)
INT_T(t_wchar, wchar_t)
#define FLT_T(FN, T) SCALAR(FN, T, k + 1, (r * 5 + k * 3) % 7 - 2, 0, FAPPLY)
FLT_T(t_float, float)
FLT_T(t_double, double)
FLT_T(t_ldouble, long double)
#define CPX_T(FN, T) SCALAR(FN, T, 1 + k * I, (r + k) % 3 + 1 + (r - k) * I, 0, CAPPLY)
CPX_T(t_cfloat, float complex)
CPX_T(t_cdouble, double complex)
CPX_T(t_cldouble, long double complex)
SCALAR(t_bool, bool, k % 2 == 0, (r + k) % 2, 0, BAPPLY)
SCALAR(t_byte, unsigned char, 0x5a + k, (r * 37 + k * 11) & 0xff, 0x10 + r, YAPPLY)

/* (value, index) pairs: ties between origins go to the lower index. */
#define PAIR_T(FN, V)                                                                              \
    typedef struct {                                                                               \
        V v;                                                                                       \
        int i;                                                                                     \
    } FN##_t;                                                                                      \
    static void FN##_init(void *e, int k) { *(FN##_t *)e = (FN##_t){1, 100 + k}; }                 \
    static void FN##_contrib(void *e, int r, int k)                                                \
    {                                                                                              \
        *(FN##_t *)e = (FN##_t){(V)((r * 7 + k) % 3), r * 10 + k};                                \
    }                                                                                              \
    static void FN##_apply(int o, const void *pa, void *pb)                                        \
    {                                                                                              \
        FN##_t a = *(const FN##_t *)pa, *b = pb;                                                   \
        if (o == O_REPLACE || (o == O_MAXLOC && (a.v > b->v || (a.v == b->v && a.i < b->i))) ||    \
            (o == O_MINLOC && (a.v < b->v || (a.v == b->v && a.i < b->i))))                        \
            *b = a;                                                                                \
    }                                                                                              \
    static int FN##_eq(const void *pa, const void *pb)                                             \
    {                                                                                              \
        const FN##_t *a = pa, *b = pb;                                                             \
        return a->v == b->v && a->i == b->i;                                                       \
    }
PAIR_T(p_float, float)
PAIR_T(p_double, double)
PAIR_T(p_long, long)
PAIR_T(p_int, int)
PAIR_T(p_short, short)
PAIR_T(p_ldouble, long double)

#define D(FN, DT, T, CLS) {#DT, DT, sizeof(T), CLS, FN##_init, FN##_contrib, FN##_cas, FN##_apply, FN##_eq}
#define DP(FN, DT) {#DT, DT, sizeof(FN##_t), C_PAIR, FN##_init, FN##_contrib, NULL, FN##_apply, FN##_eq}

static const tdesc_t types[] = {
    D(t_char, MPI_CHAR, char, C_INT), /* not in the standard's integer class; IVC allows it */
    D(t_schar, MPI_SIGNED_CHAR, signed char, C_INT),
    D(t_uchar, MPI_UNSIGNED_CHAR, unsigned char, C_INT),
    D(t_short, MPI_SHORT, short, C_INT),
    D(t_ushort, MPI_UNSIGNED_SHORT, unsigned short, C_INT),
    D(t_int, MPI_INT, int, C_INT),
    D(t_uint, MPI_UNSIGNED, unsigned, C_INT),
    D(t_long, MPI_LONG, long, C_INT),
    D(t_ulong, MPI_UNSIGNED_LONG, unsigned long, C_INT),
    D(t_llong, MPI_LONG_LONG, long long, C_INT),
    D(t_ullong, MPI_UNSIGNED_LONG_LONG, unsigned long long, C_INT),
    D(t_i8, MPI_INT8_T, int8_t, C_INT),
    D(t_i16, MPI_INT16_T, int16_t, C_INT),
    D(t_i32, MPI_INT32_T, int32_t, C_INT),
    D(t_i64, MPI_INT64_T, int64_t, C_INT),
    D(t_u8, MPI_UINT8_T, uint8_t, C_INT),
    D(t_u16, MPI_UINT16_T, uint16_t, C_INT),
    D(t_u32, MPI_UINT32_T, uint32_t, C_INT),
    D(t_u64, MPI_UINT64_T, uint64_t, C_INT),
    D(t_aint, MPI_AINT, MPI_Aint, C_INT),
    D(t_offset, MPI_OFFSET, MPI_Offset, C_INT),
    D(t_count, MPI_COUNT, MPI_Count, C_INT),
    D(t_wchar, MPI_WCHAR, wchar_t, C_INT), /* likewise an IVC extension */
    D(t_float, MPI_FLOAT, float, C_FLOAT),
    D(t_double, MPI_DOUBLE, double, C_FLOAT),
    D(t_ldouble, MPI_LONG_DOUBLE, long double, C_FLOAT),
    D(t_cfloat, MPI_C_FLOAT_COMPLEX, float complex, C_COMPLEX),
    D(t_cdouble, MPI_C_DOUBLE_COMPLEX, double complex, C_COMPLEX),
    D(t_cldouble, MPI_C_LONG_DOUBLE_COMPLEX, long double complex, C_COMPLEX),
    D(t_cfloat, MPI_CXX_FLOAT_COMPLEX, float complex, C_COMPLEX),
    D(t_cdouble, MPI_CXX_DOUBLE_COMPLEX, double complex, C_COMPLEX),
    D(t_bool, MPI_C_BOOL, bool, C_BOOL),
    D(t_bool, MPI_CXX_BOOL, bool, C_BOOL),
    D(t_byte, MPI_BYTE, unsigned char, C_BYTE),
    DP(p_float, MPI_FLOAT_INT),
    DP(p_double, MPI_DOUBLE_INT),
    DP(p_long, MPI_LONG_INT),
    DP(p_int, MPI_2INT),
    DP(p_short, MPI_SHORT_INT),
    DP(p_ldouble, MPI_LONG_DOUBLE_INT),
};
#define NTYPES ((int)(sizeof(types) / sizeof(types[0])))
#define K 3   /* elements per operation */
#define ES 32 /* bytes reserved per element */

typedef struct {
    const tdesc_t *t;
    int o;
    int cas; /* this combination also runs Compare_and_swap */
} combo_t;

static combo_t combos[NTYPES * 13];
static int ncombos;

/* Layout of combination c in a window of n ranks: A (K, shared by all origins), B (K per
 * origin), C (1 per origin), D (1, compare-and-swap). */
static MPI_Aint per(int n)
{
    return (MPI_Aint)(K + n * K + n + 1) * ES;
}
static MPI_Aint off_a(int c, int n) { return c * per(n); }
static MPI_Aint off_b(int c, int n, int r) { return c * per(n) + (K + r * K) * ES; }
static MPI_Aint off_c(int c, int n, int r) { return c * per(n) + (K + n * K + r) * ES; }
static MPI_Aint off_d(int c, int n) { return c * per(n) + (K + n * K + n) * ES; }

/* A user operation: never applied (one-sided accumulates take predefined ones only). */
static void user_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
    t_fail("a user operation was applied by an accumulate");
}

static void run_kind(int kind)
{
    twin_t w;
    int n0;
    MPI_Comm_size(MPI_COMM_WORLD, &n0);
    MPI_Aint bytes = ncombos * per(n0);
    twin_make(&w, kind, bytes, MPI_INFO_NULL);
    int n = w.size, me = w.rank;
    char what[200];
    unsigned char *gres = calloc((size_t)ncombos * n * K, ES);
    unsigned char *fres = calloc((size_t)ncombos * n, ES);
    unsigned char *cres = calloc((size_t)ncombos * n, ES);
    /* Initial values of this rank's window. */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w.win);
    for (int c = 0; c < ncombos; c++) {
        const tdesc_t *t = combos[c].t;
        for (int k = 0; k < K; k++) {
            t->init(w.base + off_a(c, n) + k * t->size, k);
            for (int r = 0; r < n; r++)
                t->init(w.base + off_b(c, n, r) + k * t->size, k);
        }
        for (int r = 0; r < n; r++)
            t->init(w.base + off_c(c, n, r), 0);
        t->init(w.base + off_d(c, n), 0);
    }
    MPI_Win_unlock(me, w.win);
    MPI_Barrier(w.comm);

    for (int j = 0; j < n; j++) {
        int tr = (me + j) % n;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, tr, 0, w.win));
        for (int c = 0; c < ncombos; c++) {
            const tdesc_t *t = combos[c].t;
            int o = combos[c].o;
            unsigned char buf[K * ES], cmp[ES], nv[ES];
            for (int k = 0; k < K; k++)
                t->contrib(buf + k * t->size, me, k);
            if (o != O_NO_OP)
                CHECK_MPI(MPI_Accumulate(buf, K, t->dt, tr, twin_disp(&w, tr, off_a(c, n)), K,
                                         t->dt, op_of(o), w.win));
            CHECK_MPI(MPI_Get_accumulate(buf, K, t->dt, gres + ((size_t)c * n + tr) * K * ES, K,
                                         t->dt, tr, twin_disp(&w, tr, off_b(c, n, me)), K, t->dt,
                                         op_of(o), w.win));
            CHECK_MPI(MPI_Fetch_and_op(buf, fres + ((size_t)c * n + tr) * ES, t->dt, tr,
                                       twin_disp(&w, tr, off_c(c, n, me)), op_of(o), w.win));
            if (combos[c].cas) {
                t->init(cmp, 0);
                t->cas(nv, me);
                CHECK_MPI(MPI_Compare_and_swap(nv, cmp, cres + ((size_t)c * n + tr) * ES, t->dt,
                                               tr, twin_disp(&w, tr, off_d(c, n)), w.win));
            }
            if (c % 16 == 15)
                CHECK_MPI(MPI_Win_flush(tr, w.win));
        }
        CHECK_MPI(MPI_Win_flush(tr, w.win));
        CHECK_MPI(MPI_Win_unlock(tr, w.win));
    }
    MPI_Barrier(w.comm);

    /* The fetched values: every origin's areas B and C held the initial values. */
    int *won = calloc((size_t)ncombos * n, sizeof(int));
    int *wins = calloc((size_t)ncombos * n, sizeof(int));
    for (int c = 0; c < ncombos; c++) {
        const tdesc_t *t = combos[c].t;
        unsigned char ref[ES];
        for (int tr = 0; tr < n; tr++) {
            for (int k = 0; k < K; k++) {
                t->init(ref, k);
                CHECK_TRUE(t->eq(ref, gres + (((size_t)c * n + tr) * K) * ES + k * t->size),
                           t_fmt(what, sizeof what, "%s: Get_accumulate %s on %s fetched at "
                                 "rank %d, element %d", k_name[kind], op_name[combos[c].o],
                                 t->name, tr, k));
            }
            t->init(ref, 0);
            CHECK_TRUE(t->eq(ref, fres + ((size_t)c * n + tr) * ES),
                       t_fmt(what, sizeof what, "%s: Fetch_and_op %s on %s fetched at rank %d",
                             k_name[kind], op_name[combos[c].o], t->name, tr));
            if (combos[c].cas)
                won[c * n + tr] = t->eq(ref, cres + ((size_t)c * n + tr) * ES);
        }
    }
    CHECK_MPI(MPI_Allreduce(won, wins, ncombos * n, MPI_INT, MPI_SUM, w.comm));

    /* This rank's window against the references. */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w.win);
    for (int c = 0; c < ncombos; c++) {
        const tdesc_t *t = combos[c].t;
        int o = combos[c].o;
        unsigned char ref[ES], op[ES];
        for (int k = 0; k < K; k++) {
            const unsigned char *got = w.base + off_a(c, n) + k * t->size;
            if (o == O_REPLACE) {
                int any = 0;
                for (int r = 0; r < n; r++) {
                    t->contrib(op, r, k);
                    any |= t->eq(op, got);
                }
                CHECK_TRUE(any, t_fmt(what, sizeof what, "%s: Accumulate REPLACE on %s: element "
                                      "%d is one origin's", k_name[kind], t->name, k));
            } else if (o != O_NO_OP) {
                t->init(ref, k);
                for (int r = 0; r < n; r++) {
                    t->contrib(op, r, k);
                    t->apply(o, op, ref);
                }
                CHECK_TRUE(t->eq(ref, got), t_fmt(what, sizeof what, "%s: Accumulate %s on %s from "
                                                  "%d origins, element %d", k_name[kind],
                                                  op_name[o], t->name, n, k));
            }
            for (int r = 0; r < n; r++) {
                t->init(ref, k);
                t->contrib(op, r, k);
                t->apply(o, op, ref);
                CHECK_TRUE(t->eq(ref, w.base + off_b(c, n, r) + k * t->size),
                           t_fmt(what, sizeof what, "%s: Get_accumulate %s on %s by origin %d, "
                                 "element %d", k_name[kind], op_name[o], t->name, r, k));
            }
        }
        for (int r = 0; r < n; r++) {
            t->init(ref, 0);
            t->contrib(op, r, 0);
            t->apply(o, op, ref);
            CHECK_TRUE(t->eq(ref, w.base + off_c(c, n, r)),
                       t_fmt(what, sizeof what, "%s: Fetch_and_op %s on %s by origin %d",
                             k_name[kind], op_name[o], t->name, r));
        }
        if (combos[c].cas) {
            int any = 0;
            for (int r = 0; r < n; r++) {
                t->cas(op, r);
                any |= t->eq(op, w.base + off_d(c, n));
            }
            CHECK_TRUE(any, t_fmt(what, sizeof what, "%s: Compare_and_swap on %s: one origin's "
                                  "value", k_name[kind], t->name));
            CHECK_INT(1, wins[c * n + me], t_fmt(what, sizeof what, "%s: Compare_and_swap on %s: "
                                                 "origins that saw the initial value",
                                                 k_name[kind], t->name));
        }
    }
    MPI_Win_unlock(me, w.win);

    /* Bad accumulates: MPI_ERR_OP, MPI_ERR_TYPE, MPI_ERR_RMA_RANGE; the window stays usable. */
    CHECK_MPI(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
    int tr = (me + 1) % n;
    MPI_Aint d0 = twin_disp(&w, tr, 0);
    double dv[2] = {1, 2}, dr[2];
    bool bv = true;
    MPI_Op user;
    CHECK_MPI(MPI_Op_create(user_fn, 1, &user));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, tr, 0, w.win));
    CHECK_CLASS(MPI_ERR_OP, MPI_Accumulate(&bv, 1, MPI_C_BOOL, tr, d0, 1, MPI_C_BOOL, MPI_SUM, w.win),
                "Accumulate SUM on C_BOOL");
    CHECK_CLASS(MPI_ERR_OP, MPI_Accumulate(dv, 1, MPI_DOUBLE, tr, d0, 1, MPI_DOUBLE, MPI_BAND, w.win),
                "Accumulate BAND on DOUBLE");
    CHECK_CLASS(MPI_ERR_OP, MPI_Accumulate(dv, 1, MPI_DOUBLE, tr, d0, 1, MPI_DOUBLE, MPI_NO_OP, w.win),
                "Accumulate NO_OP");
    CHECK_CLASS(MPI_ERR_OP, MPI_Accumulate(dv, 1, MPI_DOUBLE, tr, d0, 1, MPI_DOUBLE, user, w.win),
                "Accumulate with a user operation");
    CHECK_CLASS(MPI_ERR_OP, MPI_Fetch_and_op(dv, dr, MPI_DOUBLE, tr, d0, MPI_MAXLOC, w.win),
                "Fetch_and_op MAXLOC on DOUBLE");
    CHECK_CLASS(MPI_ERR_TYPE, MPI_Accumulate(dv, 2, MPI_FLOAT, tr, d0, 1, MPI_DOUBLE, MPI_SUM, w.win),
                "Accumulate FLOAT into DOUBLE");
    CHECK_CLASS(MPI_ERR_TYPE, MPI_Compare_and_swap(dv, dv + 1, dr, MPI_DOUBLE_INT, tr, d0, w.win),
                "Compare_and_swap on DOUBLE_INT");
    CHECK_CLASS(MPI_ERR_TYPE, MPI_Compare_and_swap(dv, dv + 1, dr, MPI_DOUBLE, tr, d0, w.win),
                "Compare_and_swap on DOUBLE (floating point is not allowed)");
    CHECK_CLASS(MPI_ERR_TYPE, MPI_Compare_and_swap(dv, dv + 1, dr, MPI_FLOAT, tr, d0, w.win),
                "Compare_and_swap on FLOAT");
    CHECK_CLASS(MPI_ERR_COUNT, MPI_Accumulate(dv, 2, MPI_DOUBLE, tr, d0, 1, MPI_DOUBLE, MPI_SUM, w.win),
                "Accumulate of 2 doubles into 1");
    if (kind != K_DYNAMIC)
        CHECK_CLASS(MPI_ERR_RMA_RANGE,
                    MPI_Accumulate(dv, 2, MPI_DOUBLE, tr, bytes - 8, 2, MPI_DOUBLE, MPI_SUM, w.win),
                    "Accumulate past the window's end");
    CHECK_MPI(MPI_Win_unlock(tr, w.win));
    MPI_Op_free(&user);
    free(won);
    free(wins);
    free(gres);
    free(fres);
    free(cres);
    twin_free(&w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    for (int i = 0; i < NTYPES; i++) {
        int cls = types[i].cls;
        for (int j = 0; class_ops[cls][j] >= 0; j++) {
            combos[ncombos] = (combo_t){&types[i], class_ops[cls][j], 0};
            combos[ncombos].cas = j == 0 && cls != C_FLOAT && cls != C_COMPLEX && cls != C_PAIR;
            ncombos++;
        }
    }
    int only = argc > 1 ? atoi(argv[1]) : -1;
    for (int kind = 0; kind < K_COUNT; kind++)
        if (only < 0 || only == kind)
            run_kind(kind);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("ops: OK (%d type/operation combinations)\n", ncombos);
    MPI_Finalize();
    return 0;
}
