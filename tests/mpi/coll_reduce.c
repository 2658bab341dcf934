/* coll_reduce: reductions against references folded locally in rank order.
 *
 *  - Every predefined operation on the integer, floating, complex, bool and byte types it is
 *    defined on (MAX MIN SUM PROD LAND LOR LXOR BAND BOR BXOR; MAXLOC/MINLOC on MPI_2INT,
 *    MPI_DOUBLE_INT, MPI_FLOAT_INT), with Allreduce and Reduce (root = last rank), values
 *    chosen so that results are exact.
 *  - Sizes 0 .. 4.8 MB (larger than a collective area: pieces) for Allreduce, Reduce
 *    (every root class), Scan, Exscan, Reduce_scatter_block, Reduce_scatter (uneven and
 *    zero counts), each also with MPI_IN_PLACE.
 *  - A non-commutative user operation (composition of affine maps mod 2^32) on a contiguous
 *    and on a non-contiguous derived datatype: rank order must be kept everywhere.
 *  - Op_commutative, Reduce_local (predefined and user), Op_free.
 * Optional argument: largest count of doubles (default 600000). */
#include "t_util.h"

#include <complex.h>
#include <stdbool.h>

static int me, np;
static int max_count = 600000;

enum { K_MAX, K_MIN, K_SUM, K_PROD, K_LAND, K_LOR, K_LXOR, K_BAND, K_BOR, K_BXOR, K_NOPS };
static const char *op_names[] = {"MAX", "MIN",  "SUM",  "PROD", "LAND",
                                 "LOR", "LXOR", "BAND", "BOR",  "BXOR"};
static MPI_Op op_of(int k)
{
    MPI_Op ops[] = {MPI_MAX, MPI_MIN,  MPI_SUM,  MPI_PROD, MPI_LAND,
                    MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR,  MPI_BXOR};
    return ops[k];
}

/* Contribution of rank r at index i for operation k: small, exact under the operation. */
static long long gen(int r, long long i, int k)
{
    switch (k) {
    case K_PROD: return 1 + ((r + i) % 3 == 0);
    case K_LAND:
    case K_LOR:
    case K_LXOR: return (r * 5 + i) % 4 == 0 ? 0 : (r + i) % 2 + 1;
    case K_BAND:
    case K_BOR:
    case K_BXOR: return (r * 37 + i * 11 + 3) & 0x7f;
    default: return (r * 7 + i * 13) % 50 - 20;
    }
}

#define FOLD(T, a, b, k)                                                                           \
    ((k) == K_MAX    ? ((a) > (b) ? (a) : (b))                                                     \
     : (k) == K_MIN  ? ((a) < (b) ? (a) : (b))                                                     \
     : (k) == K_SUM  ? (T)((a) + (b))                                                              \
     : (k) == K_PROD ? (T)((a) * (b))                                                              \
     : (k) == K_LAND ? (T)((a) && (b))                                                             \
     : (k) == K_LOR  ? (T)((a) || (b))                                                             \
                     : (T)(!(a) != !(b)))
#define BITFOLD(T, a, b, k)                                                                        \
    ((k) == K_BAND ? (T)((a) & (b)) : (k) == K_BOR ? (T)((a) | (b)) : (T)((a) ^ (b)))
#define NOBITS(T, a, b, k) (a)

/* For C type T: fill a contribution; check a result that folds ranks lo..hi (inclusive).
 * Unsigned types get non-negative contributions. */
#define DEFINE_T(NAME, T, BITS, UNSIGNED)                                                          \
    static void NAME##_fill(void *buf, int r, long long n, int k, long long base)                  \
    {                                                                                              \
        T *p = buf;                                                                                \
        for (long long i = 0; i < n; i++) {                                                        \
            long long g = gen(r, i + base, k);                                                     \
            p[i] = (T)(UNSIGNED && g < 0 ? -g : g);                                                \
        }                                                                                          \
    }                                                                                              \
    static T NAME##_ref(int lo, int hi, long long i, int k)                                        \
    {                                                                                              \
        T acc = 0;                                                                                 \
        for (int r = lo; r <= hi; r++) {                                                           \
            long long g = gen(r, i, k);                                                            \
            T v = (T)(UNSIGNED && g < 0 ? -g : g);                                                 \
            if (r == lo)                                                                           \
                acc = v;                                                                           \
            else if (k >= K_BAND)                                                                  \
                acc = BITS(T, acc, v, k);                                                          \
            else                                                                                   \
                acc = FOLD(T, acc, v, k);                                                          \
        }                                                                                          \
        return acc;                                                                                \
    }                                                                                              \
    static void NAME##_check(const void *buf, int lo, int hi, long long n, int k, long long base,  \
                             const char *what)                                                     \
    {                                                                                              \
        const T *p = buf;                                                                          \
        for (long long i = 0; i < n; i++) {                                                        \
            T want = NAME##_ref(lo, hi, i + base, k);                                              \
            if (p[i] != want)                                                                      \
                t_fail("%s: %s %s elem %lld: expected %lld, got %lld", what, #NAME, op_names[k],   \
                       i, (long long)want, (long long)p[i]);                                       \
        }                                                                                          \
    }

DEFINE_T(int, int, BITFOLD, 0)
DEFINE_T(uint64, uint64_t, BITFOLD, 1)
DEFINE_T(schar, signed char, BITFOLD, 0)
DEFINE_T(short, short, BITFOLD, 0)
DEFINE_T(long, long, BITFOLD, 0)
DEFINE_T(u16, uint16_t, BITFOLD, 1)
DEFINE_T(double, double, NOBITS, 0)
DEFINE_T(float, float, NOBITS, 0)
DEFINE_T(byte, unsigned char, BITFOLD, 1)

typedef struct {
    const char *name;
    MPI_Datatype dt;
    size_t size;
    unsigned ops; /* bit k: operation k is defined */
    void (*fill)(void *, int, long long, int, long long);
    void (*check)(const void *, int, int, long long, int, long long, const char *);
} tkind_t;

#define ALL_INT ((1u << K_NOPS) - 1)
#define ARITH   ((1u << K_MAX) | (1u << K_MIN) | (1u << K_SUM) | (1u << K_PROD))
#define BITW    ((1u << K_BAND) | (1u << K_BOR) | (1u << K_BXOR))

static tkind_t kinds[9];

static void kinds_init(void)
{
    tkind_t k[] = {
        {"int", MPI_INT, sizeof(int), ALL_INT, int_fill, int_check},
        {"uint64", MPI_UINT64_T, 8, ALL_INT, uint64_fill, uint64_check},
        {"schar", MPI_SIGNED_CHAR, 1, ALL_INT & ~(1u << K_PROD), schar_fill, schar_check},
        {"short", MPI_SHORT, sizeof(short), ALL_INT, short_fill, short_check},
        {"long", MPI_LONG, sizeof(long), ALL_INT, long_fill, long_check},
        {"u16", MPI_UINT16_T, 2, ALL_INT, u16_fill, u16_check},
        {"double", MPI_DOUBLE, 8, ARITH, double_fill, double_check},
        {"float", MPI_FLOAT, 4, ARITH, float_fill, float_check},
        {"byte", MPI_BYTE, 1, BITW, byte_fill, byte_check},
    };
    memcpy(kinds, k, sizeof(k));
}

/* Every kind x operation: Allreduce and Reduce of a few elements. */
static void test_all_ops(void)
{
    char w[160];
    unsigned char s[64 * 8], r[64 * 8];
    for (size_t ki = 0; ki < sizeof(kinds) / sizeof(kinds[0]); ki++) {
        tkind_t *t = &kinds[ki];
        for (int k = 0; k < K_NOPS; k++) {
            if (!(t->ops & (1u << k)))
                continue;
            for (int n = 1; n <= 33; n += 32) {
                t->fill(s, me, n, k, 0);
                memset(r, 0x77, sizeof(r));
                CHECK_MPI(MPI_Allreduce(s, r, n, t->dt, op_of(k), MPI_COMM_WORLD));
                t->check(r, 0, np - 1, n, k, 0,
                         t_fmt(w, sizeof w, "allreduce %s %s n %d", t->name, op_names[k], n));
                memset(r, 0x77, sizeof(r));
                CHECK_MPI(MPI_Reduce(s, r, n, t->dt, op_of(k), np - 1, MPI_COMM_WORLD));
                if (me == np - 1)
                    t->check(r, 0, np - 1, n, k, 0,
                             t_fmt(w, sizeof w, "reduce %s %s n %d", t->name, op_names[k], n));
            }
        }
    }
    /* Bool and complex. */
    bool bs[5], br[5];
    for (int i = 0; i < 5; i++)
        bs[i] = gen(me, i, K_LAND) != 0;
    int bops[3] = {K_LAND, K_LOR, K_LXOR};
    for (int j = 0; j < 3; j++) {
        CHECK_MPI(MPI_Allreduce(bs, br, 5, MPI_C_BOOL, op_of(bops[j]), MPI_COMM_WORLD));
        for (int i = 0; i < 5; i++) {
            bool acc = gen(0, i, K_LAND) != 0;
            for (int q = 1; q < np; q++) {
                bool v = gen(q, i, K_LAND) != 0;
                acc = bops[j] == K_LAND ? (acc && v) : bops[j] == K_LOR ? (acc || v) : (acc != v);
            }
            CHECK_INT(acc, br[i], "allreduce C_BOOL");
        }
    }
    double complex cs[3], cr[3];
    for (int i = 0; i < 3; i++)
        cs[i] = (me + i) + I * (me - 2 * i);
    CHECK_MPI(MPI_Allreduce(cs, cr, 3, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 3; i++) {
        double complex acc = 0;
        for (int q = 0; q < np; q++)
            acc += (q + i) + I * (q - 2 * i);
        CHECK_TRUE(cr[i] == acc, "allreduce C_DOUBLE_COMPLEX SUM");
    }
    /* MAXLOC / MINLOC: ties resolved to the smaller index. */
    struct {
        int v, i;
    } is[4], ir[4];
    struct {
        double v;
        int i;
    } ds[4], dr[4];
    struct {
        float v;
        int i;
    } fs[2], fr[2];
    for (int j = 0; j < 4; j++) {
        is[j].v = (me * 3 + j) % 4;
        is[j].i = me;
        ds[j].v = (double)((me * 5 + j) % 3);
        ds[j].i = me + 10;
    }
    for (int j = 0; j < 2; j++) {
        fs[j].v = (float)((me + j) % 2);
        fs[j].i = me;
    }
    for (int loc = 0; loc < 2; loc++) {
        MPI_Op op = loc ? MPI_MINLOC : MPI_MAXLOC;
        CHECK_MPI(MPI_Allreduce(is, ir, 4, MPI_2INT, op, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Allreduce(ds, dr, 4, MPI_DOUBLE_INT, op, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Allreduce(fs, fr, 2, MPI_FLOAT_INT, op, MPI_COMM_WORLD));
        for (int j = 0; j < 4; j++) {
            int bv = 0, bi = 0;
            double dv = 0;
            int di = 0;
            for (int q = 0; q < np; q++) {
                int v = (q * 3 + j) % 4;
                double x = (double)((q * 5 + j) % 3);
                if (q == 0 || (loc ? v < bv : v > bv))
                    bv = v, bi = q;
                if (q == 0 || (loc ? x < dv : x > dv))
                    dv = x, di = q + 10;
            }
            CHECK_INT(bv, ir[j].v, "2INT loc value");
            CHECK_INT(bi, ir[j].i, "2INT loc index (ties: smallest)");
            CHECK_TRUE(dv == dr[j].v, "DOUBLE_INT loc value");
            CHECK_INT(di, dr[j].i, "DOUBLE_INT loc index");
        }
        for (int j = 0; j < 2; j++) {
            float bv = 0;
            int bi = 0;
            for (int q = 0; q < np; q++) {
                float v = (float)((q + j) % 2);
                if (q == 0 || (loc ? v < bv : v > bv))
                    bv = v, bi = q;
            }
            CHECK_TRUE(bv == fr[j].v, "FLOAT_INT loc value");
            CHECK_INT(bi, fr[j].i, "FLOAT_INT loc index");
        }
    }
}

/* All reduction calls over sizes, with and without MPI_IN_PLACE, for one kind/op. */
static void test_sizes(tkind_t *t, int k, int largest)
{
    static const int counts[] = {0, 1, 3, 100, 4097, 40000, 300000, 600000};
    char w[160];
    for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
        long long n = counts[ci];
        if (n > max_count || n > largest)
            continue;
        size_t bytes = (size_t)n * t->size;
        unsigned char *s = t_malloc(bytes + 8), *r = t_malloc(bytes + 8);
        for (int inplace = 0; inplace < 2; inplace++) {
            const char *ip = inplace ? " in place" : "";
            /* Allreduce */
            t->fill(inplace ? r : s, me, n, k, 0);
            CHECK_MPI(MPI_Allreduce(inplace ? MPI_IN_PLACE : s, r, (int)n, t->dt, op_of(k),
                                    MPI_COMM_WORLD));
            t->check(r, 0, np - 1, n, k, 0,
                     t_fmt(w, sizeof w, "allreduce%s %s %s n %lld", ip, t->name, op_names[k], n));
            /* Reduce, root rotating */
            int root = (int)(ci + (size_t)inplace) % np;
            t->fill(inplace && me == root ? r : s, me, n, k, 0);
            memset(r + (inplace && me == root ? bytes : 0), 0x11,
                   inplace && me == root ? 8 : bytes + 8);
            CHECK_MPI(MPI_Reduce(inplace && me == root ? MPI_IN_PLACE : s, r, (int)n, t->dt,
                                 op_of(k), root, MPI_COMM_WORLD));
            if (me == root) {
                t->check(r, 0, np - 1, n, k, 0,
                         t_fmt(w, sizeof w, "reduce%s root %d %s n %lld", ip, root, t->name, n));
                t_check_bytes(r + bytes, 8, 0x11, "reduce guard");
            }
            /* Scan / Exscan */
            t->fill(inplace ? r : s, me, n, k, 0);
            CHECK_MPI(
                MPI_Scan(inplace ? MPI_IN_PLACE : s, r, (int)n, t->dt, op_of(k), MPI_COMM_WORLD));
            t->check(r, 0, me, n, k, 0, t_fmt(w, sizeof w, "scan%s %s n %lld", ip, t->name, n));
            t->fill(inplace ? r : s, me, n, k, 0);
            CHECK_MPI(
                MPI_Exscan(inplace ? MPI_IN_PLACE : s, r, (int)n, t->dt, op_of(k), MPI_COMM_WORLD));
            if (me > 0)
                t->check(r, 0, me - 1, n, k, 0,
                         t_fmt(w, sizeof w, "exscan%s %s n %lld", ip, t->name, n));
            /* Reduce_scatter_block: n / np elements each (rounded down) */
            long long per = n / np;
            t->fill(inplace ? r : s, me, per * np, k, 0);
            CHECK_MPI(MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : s, r, (int)per, t->dt,
                                               op_of(k), MPI_COMM_WORLD));
            t->check(r, 0, np - 1, per, k, per * me,
                     t_fmt(w, sizeof w, "reduce_scatter_block%s %s n %lld", ip, t->name, per));
            /* Reduce_scatter: uneven counts, rank 1 gets none */
            int *rc = t_malloc(sizeof(int) * (size_t)np);
            long long tot = 0, first = 0;
            for (int q = 0; q < np; q++) {
                rc[q] = q == 1 ? 0 : (int)(per / (q + 1));
                if (q == me)
                    first = tot;
                tot += rc[q];
            }
            t->fill(inplace ? r : s, me, tot, k, 0);
            CHECK_MPI(MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : s, r, rc, t->dt, op_of(k),
                                         MPI_COMM_WORLD));
            t->check(r, 0, np - 1, rc[me], k, first,
                     t_fmt(w, sizeof w, "reduce_scatter%s %s n %d", ip, t->name, rc[me]));
            free(rc);
        }
        free(s);
        free(r);
    }
}

/* Affine maps x -> a x + b (mod 2^32); x op y = x(y(.)), associative, not commutative. */
typedef struct {
    uint32_t a, b;
} aff_t;

static void aff_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    aff_t *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        aff_t r = {x[i].a * y[i].a, x[i].a * y[i].b + x[i].b};
        y[i] = r;
    }
}

/* The same over a strided layout: {a, pad, b} per element, pad must stay as it was. */
static void aff_strided_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    uint32_t *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        uint32_t a = x[3 * i] * y[3 * i], b = x[3 * i] * y[3 * i + 2] + x[3 * i + 2];
        y[3 * i] = a;
        y[3 * i + 2] = b;
    }
}

static aff_t aff_gen(int r, long long i)
{
    aff_t v = {(uint32_t)(2 * (r * 31 + i) + 1), (uint32_t)(r * 7 + i * 3 + 1)};
    return v;
}

static aff_t aff_ref(int lo, int hi, long long i)
{
    aff_t acc = aff_gen(lo, i);
    for (int r = lo + 1; r <= hi; r++) {
        aff_t v = aff_gen(r, i), n = {acc.a * v.a, acc.a * v.b + acc.b};
        acc = n;
    }
    return acc;
}

static void test_user_ops(void)
{
    char w[160];
    MPI_Op op, sop;
    CHECK_MPI(MPI_Op_create(aff_op, 0, &op));
    CHECK_MPI(MPI_Op_create(aff_strided_op, 0, &sop));
    int commute = -1;
    CHECK_MPI(MPI_Op_commutative(op, &commute));
    CHECK_INT(0, commute, "Op_commutative of a non-commutative user op");
    CHECK_MPI(MPI_Op_commutative(MPI_SUM, &commute));
    CHECK_INT(1, commute, "Op_commutative(MPI_SUM)");
    MPI_Datatype pair, strided;
    MPI_Type_contiguous(2, MPI_UINT32_T, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_vector(2, 1, 2, MPI_UINT32_T, &strided); /* a, (pad), b: extent 12 */
    MPI_Type_commit(&strided);
    static const int counts[] = {1, 5, 1000, 70000};
    for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
        int n = counts[ci];
        aff_t *s = t_malloc(sizeof(aff_t) * (size_t)n), *r = t_malloc(sizeof(aff_t) * (size_t)n);
        for (int i = 0; i < n; i++)
            s[i] = aff_gen(me, i);
        for (int root = 0; root<np; root += np - 1> 0 ? np - 1 : 1) {
            CHECK_MPI(MPI_Reduce(s, r, n, pair, op, root, MPI_COMM_WORLD));
            for (int i = 0; i < n && me == root; i++) {
                aff_t want = aff_ref(0, np - 1, i);
                if (r[i].a != want.a || r[i].b != want.b)
                    t_fail("user op reduce root %d n %d elem %d: expected (%u,%u), got (%u,%u)",
                           root, n, i, want.a, want.b, r[i].a, r[i].b);
            }
        }
        CHECK_MPI(MPI_Allreduce(s, r, n, pair, op, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++) {
            aff_t want = aff_ref(0, np - 1, i);
            if (r[i].a != want.a || r[i].b != want.b)
                t_fail("user op allreduce n %d elem %d: expected (%u,%u), got (%u,%u)", n, i,
                       want.a, want.b, r[i].a, r[i].b);
        }
        CHECK_MPI(MPI_Scan(s, r, n, pair, op, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++) {
            aff_t want = aff_ref(0, me, i);
            if (r[i].a != want.a || r[i].b != want.b)
                t_fail("user op scan n %d elem %d: expected (%u,%u), got (%u,%u)", n, i, want.a,
                       want.b, r[i].a, r[i].b);
        }
        /* Strided layout, in place */
        uint32_t *st = t_malloc(sizeof(uint32_t) * 3 * (size_t)n);
        for (int i = 0; i < n; i++) {
            aff_t v = aff_gen(me, i);
            st[3 * i] = v.a;
            st[3 * i + 1] = 0xdead0000u + (uint32_t)i;
            st[3 * i + 2] = v.b;
        }
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, st, n, strided, sop, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++) {
            aff_t want = aff_ref(0, np - 1, i);
            if (st[3 * i] != want.a || st[3 * i + 2] != want.b)
                t_fail("strided user op n %d elem %d: expected (%u,%u), got (%u,%u)", n, i, want.a,
                       want.b, st[3 * i], st[3 * i + 2]);
            CHECK_INT(0xdead0000u + (uint32_t)i, st[3 * i + 1],
                      t_fmt(w, sizeof w, "strided user op: gap of elem %d untouched", i));
        }
        free(st);
        free(s);
        free(r);
    }
    /* Reduce_local: inout = in op inout */
    aff_t a[2] = {{3, 4}, {5, 6}}, b[2] = {{7, 8}, {9, 10}};
    CHECK_MPI(MPI_Reduce_local(a, b, 2, pair, op));
    CHECK_INT(21, b[0].a, "Reduce_local user a");
    CHECK_INT(3 * 8 + 4, b[0].b, "Reduce_local user b");
    int x[3] = {1, 2, 3}, y[3] = {10, 20, 30};
    CHECK_MPI(MPI_Reduce_local(x, y, 3, MPI_INT, MPI_SUM));
    CHECK_INT(33, y[2], "Reduce_local SUM");
    CHECK_MPI(MPI_Op_free(&op));
    CHECK_TRUE(op == MPI_OP_NULL, "Op_free nulls the handle");
    MPI_Op_free(&sop);
    MPI_Type_free(&pair);
    MPI_Type_free(&strided);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    me = t_rank;
    np = t_size;
    if (argc > 1)
        max_count = atoi(argv[1]);
    kinds_init();
    test_all_ops();
    test_sizes(&kinds[6], K_SUM, 600000); /* double: up to 4.8 MB */
    test_sizes(&kinds[0], K_BXOR, 40000); /* int */
    test_sizes(&kinds[3], K_MAX, 40000);  /* short */
    test_user_ops();
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        printf("coll_reduce: OK (%d ranks)\n", np);
    MPI_Finalize();
    return 0;
}
