/* reduce_kernels: the loops of the predefined operations (src/mpi/coll/mpi_op.c), which the
 * compiler vectorizes behind an overlap check, and the one-pass fold of two contributions
 * (coll_op_apply3) give exactly what the element-by-element definition gives:
 *  - MPI_Reduce_local (in op inout, in place in inout) on counts around every vector width
 *    (1 .. 65, then large odd ones) and at starting addresses 0..3 elements off alignment,
 *    independently for both operands, for float/double/int/short/long long/unsigned char
 *    and the (value, index) pairs MPI_2INT, MPI_FLOAT_INT, MPI_DOUBLE_INT (whose packed
 *    and native layouts differ);
 *  - with 2 ranks, Allreduce (also in place), Reduce to either root and
 *    Reduce_scatter_block on counts just below and above where a collective area's pieces
 *    end (the default IVC_COLL_AREA of 256 KiB), misaligned by one element, with buffers in
 *    the shared heap (MPI_Alloc_mem) and in private memory (mmap).
 * Values are not small integers: the check is bit for bit against a reference computed
 * here in rank order (IEEE addition and multiplication of two operands commute exactly). */
#include "../t_util.h"

#include <sys/mman.h>

typedef struct {
    int v, i;
} int2_t;
typedef struct {
    float v;
    int i;
} fint_t;
typedef struct {
    double v;
    int i;
} dint_t;

/* Element i of rank (or operand) q, as a double; converted to each kind below. Pairs get
 * many equal values so that ties (smaller index wins) are exercised. */
static double val(int q, size_t i)
{
    return (double)((i * 37 + (size_t)q * 11) % 101) * 0.375 - 17.0;
}

enum { K_FLOAT_SUM, K_DOUBLE_PROD, K_INT_MAX, K_SHORT_MIN, K_LLONG_SUM, K_UCHAR_BXOR,
       K_2INT_MAXLOC, K_FINT_MINLOC, K_DINT_MAXLOC, K_KINDS };
static const char *kind_name[] = {"float SUM",   "double PROD",     "int MAX",
                                  "short MIN",   "long long SUM",   "unsigned char BXOR",
                                  "2INT MAXLOC", "FLOAT_INT MINLOC", "DOUBLE_INT MAXLOC"};

static MPI_Datatype kind_dt(int k)
{
    MPI_Datatype d[] = {MPI_FLOAT,     MPI_DOUBLE, MPI_INT,       MPI_SHORT,     MPI_LONG_LONG,
                        MPI_UNSIGNED_CHAR, MPI_2INT, MPI_FLOAT_INT, MPI_DOUBLE_INT};
    return d[k];
}

static MPI_Op kind_op(int k)
{
    MPI_Op o[] = {MPI_SUM,  MPI_PROD,   MPI_MAX,    MPI_MIN,   MPI_SUM,
                  MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_MAXLOC};
    return o[k];
}

static size_t kind_size(int k)
{
    size_t s[] = {sizeof(float), sizeof(double), sizeof(int),    sizeof(short), sizeof(long long),
                  1,             sizeof(int2_t), sizeof(fint_t), sizeof(dint_t)};
    return s[k];
}

/* Writes element i of operand q of kind k at p (element index i of the array at p). */
static void put(int k, void *p, size_t i, int q)
{
    double x = val(q, i);
    switch (k) {
    case K_FLOAT_SUM: ((float *)p)[i] = (float)x; break;
    case K_DOUBLE_PROD: ((double *)p)[i] = x * 0.125 + 1.0; break;
    case K_INT_MAX: ((int *)p)[i] = (int)(x * 8); break;
    case K_SHORT_MIN: ((short *)p)[i] = (short)(x * 8); break;
    case K_LLONG_SUM: ((long long *)p)[i] = (long long)(x * 8) * (1LL << 20); break;
    case K_UCHAR_BXOR: ((unsigned char *)p)[i] = (unsigned char)(x * 8); break;
    case K_2INT_MAXLOC: ((int2_t *)p)[i] = (int2_t){(int)x / 4, (int)(i % 7) + q}; break;
    case K_FINT_MINLOC: ((fint_t *)p)[i] = (fint_t){(float)((int)x / 4), (int)(i % 5) + q}; break;
    default: ((dint_t *)p)[i] = (dint_t){(double)((int)x / 4), (int)(i % 3) + q}; break;
    }
}

/* Whether element i at `got` is a op b (the elements i at a and b) for kind k. */
static int same(int k, const void *a, const void *b, const void *got, size_t i)
{
#define PAIR(T, BETTER)                                                                            \
    do {                                                                                           \
        T x = ((const T *)a)[i], y = ((const T *)b)[i], g = ((const T *)got)[i];                   \
        T w = (x.v BETTER y.v || (x.v == y.v && x.i < y.i)) ? x : y;                               \
        return w.v == g.v && w.i == g.i;                                                           \
    } while (0)
    switch (k) {
    case K_FLOAT_SUM: {
        float w = ((const float *)a)[i] + ((const float *)b)[i];
        return memcmp(&w, (const float *)got + i, sizeof w) == 0;
    }
    case K_DOUBLE_PROD: {
        double w = ((const double *)a)[i] * ((const double *)b)[i];
        return memcmp(&w, (const double *)got + i, sizeof w) == 0;
    }
    case K_INT_MAX: {
        int x = ((const int *)a)[i], y = ((const int *)b)[i];
        return ((const int *)got)[i] == (x > y ? x : y);
    }
    case K_SHORT_MIN: {
        short x = ((const short *)a)[i], y = ((const short *)b)[i];
        return ((const short *)got)[i] == (x < y ? x : y);
    }
    case K_LLONG_SUM:
        return ((const long long *)got)[i] == ((const long long *)a)[i] + ((const long long *)b)[i];
    case K_UCHAR_BXOR:
        return ((const unsigned char *)got)[i] ==
               (unsigned char)(((const unsigned char *)a)[i] ^ ((const unsigned char *)b)[i]);
    case K_2INT_MAXLOC: PAIR(int2_t, >);
    case K_FINT_MINLOC: PAIR(fint_t, <);
    default: PAIR(dint_t, >);
    }
#undef PAIR
}

static void fill(int k, void *p, size_t n, int q)
{
    for (size_t i = 0; i < n; i++)
        put(k, p, i, q);
}

/* One element-by-element check of got against a op b over n elements. */
static void check(int k, const void *a, const void *b, const void *got, size_t n,
                  const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (!same(k, a, b, got, i))
            t_fail("%s, %s, %zu elements: element %zu is wrong", what, kind_name[k], n, i);
}

/* MPI_Reduce_local at every small count and at misaligned starts. */
static void local_kernels(void)
{
    static const size_t counts[] = {1,  2,  3,  4,  5,  7,  8,  9,   15,   16,   17,
                                    31, 32, 33, 63, 64, 65, 1000, 4099, 65537};
    size_t maxb = (65537 + 8) * sizeof(dint_t);
    unsigned char *in = malloc(maxb), *io = malloc(maxb), *a = malloc(maxb),
                  *b = malloc(maxb);
    if (in == NULL || io == NULL || a == NULL || b == NULL)
        t_fail("out of memory");
    char what[96];
    for (int k = 0; k < K_KINDS; k++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
            for (int sh = 0; sh < 16; sh++) {
                size_t n = counts[c], es = kind_size(k);
                /* starts 0..3 elements past 64-byte alignment, each operand on its own */
                unsigned char *pi = in + (size_t)(sh & 3) * es, *po = io + (size_t)(sh >> 2) * es;
                fill(k, a, n, 0);
                fill(k, b, n, 1);
                memcpy(pi, a, n * es);
                memcpy(po, b, n * es);
                CHECK_INT(MPI_SUCCESS, MPI_Reduce_local(pi, po, (int)n, kind_dt(k), kind_op(k)),
                          "MPI_Reduce_local");
                t_fmt(what, sizeof what, "Reduce_local, starts +%d/+%d elements", sh & 3, sh >> 2);
                check(k, a, b, po, n, what);
                if (memcmp(pi, a, n * es) != 0)
                    t_fail("%s, %s: the input operand changed", what, kind_name[k]);
            }
    free(in);
    free(io);
    free(a);
    free(b);
}

static unsigned char *heap_s, *heap_r, *priv_s, *priv_r, *ref0, *ref1;
#define MAXB ((size_t)1600000 * sizeof(double) + 4096)

/* The collectives on n elements of kind k, rank order 0 then 1, send buffer in the heap
 * (bit 0 of mode) or not, receive buffer likewise (bit 1), both one element off when
 * `shift`. */
static void coll_kernels(int k, size_t n, int mode, int shift)
{
    char what[128];
    size_t es = kind_size(k), off = shift ? es : 0;
    unsigned char *s = ((mode & 1) ? heap_s : priv_s) + off;
    unsigned char *r = ((mode & 2) ? heap_r : priv_r) + off;
    fill(k, ref0, n, 0);
    fill(k, ref1, n, 1);
    /* Allreduce */
    fill(k, s, n, t_rank);
    memset(r, 0xa5, n * es);
    CHECK_INT(MPI_SUCCESS, MPI_Allreduce(s, r, (int)n, kind_dt(k), kind_op(k), MPI_COMM_WORLD),
              "MPI_Allreduce");
    t_fmt(what, sizeof what, "Allreduce mode %d shift %d", mode, shift);
    check(k, ref0, ref1, r, n, what);
    /* in place, in the receive buffer */
    fill(k, r, n, t_rank);
    CHECK_INT(MPI_SUCCESS,
              MPI_Allreduce(MPI_IN_PLACE, r, (int)n, kind_dt(k), kind_op(k), MPI_COMM_WORLD),
              "MPI_Allreduce in place");
    t_fmt(what, sizeof what, "Allreduce in place mode %d shift %d", mode, shift);
    check(k, ref0, ref1, r, n, what);
    /* Reduce to each root */
    for (int root = 0; root < 2; root++) {
        fill(k, s, n, t_rank);
        memset(r, 0xa5, n * es);
        CHECK_INT(MPI_SUCCESS,
                  MPI_Reduce(s, r, (int)n, kind_dt(k), kind_op(k), root, MPI_COMM_WORLD),
                  "MPI_Reduce");
        t_fmt(what, sizeof what, "Reduce to %d mode %d shift %d", root, mode, shift);
        if (t_rank == root)
            check(k, ref0, ref1, r, n, what);
    }
    /* Reduce_scatter_block: n / 2 elements each (at least one) */
    size_t per = n / 2 ? n / 2 : 1;
    fill(k, s, 2 * per, t_rank);
    memset(r, 0xa5, per * es);
    CHECK_INT(MPI_SUCCESS,
              MPI_Reduce_scatter_block(s, r, (int)per, kind_dt(k), kind_op(k), MPI_COMM_WORLD),
              "MPI_Reduce_scatter_block");
    t_fmt(what, sizeof what, "Reduce_scatter_block mode %d shift %d", mode, shift);
    fill(k, ref0, 2 * per, 0);
    fill(k, ref1, 2 * per, 1);
    check(k, ref0 + (size_t)t_rank * per * es, ref1 + (size_t)t_rank * per * es, r, per, what);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    if (t_size != 2)
        t_skip("needs exactly 2 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    local_kernels();
    if (MPI_Alloc_mem((MPI_Aint)MAXB, MPI_INFO_NULL, &heap_s) != MPI_SUCCESS ||
        MPI_Alloc_mem((MPI_Aint)MAXB, MPI_INFO_NULL, &heap_r) != MPI_SUCCESS)
        t_fail("MPI_Alloc_mem failed");
    priv_s = mmap(NULL, MAXB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    priv_r = mmap(NULL, MAXB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ref0 = malloc(MAXB);
    ref1 = malloc(MAXB);
    if (priv_s == MAP_FAILED || priv_r == MAP_FAILED || ref0 == NULL || ref1 == NULL)
        t_fail("out of memory");
    /* Bytes around the piece boundaries of a 256 KiB area: partitioned allreduce halves
     * (128 KiB, less a descriptor line), whole areas (256 KiB: reduce-scatter's pieces),
     * several pieces. */
    static const size_t bytes[] = {4,      28,     131068, 131076,  262076,
                                   262140, 262148, 262212, 1048580, 3200004};
    int kinds[] = {K_FLOAT_SUM, K_DOUBLE_PROD, K_INT_MAX, K_UCHAR_BXOR, K_DINT_MAXLOC};
    for (size_t kk = 0; kk < sizeof kinds / sizeof kinds[0]; kk++)
        for (size_t b = 0; b < sizeof bytes / sizeof bytes[0]; b++)
            for (int mode = 0; mode < 4; mode++) {
                int k = kinds[kk];
                size_t n = bytes[b] / kind_size(k) + (size_t)(kk & 1);
                if ((n + 2) * kind_size(k) > MAXB)
                    continue;
                coll_kernels(k, n, mode, (int)(b + (size_t)mode) & 1);
            }
    MPI_Free_mem(heap_s);
    MPI_Free_mem(heap_r);
    MPI_Finalize();
    if (t_rank == 0)
        printf("reduction kernels: every count, alignment and piece boundary checked\n");
    return 0;
}
