/* dtype_optional: the optional Fortran datatypes of gfortran's 16-byte kinds (MPI-4.1
 * section 3.2.2): MPI_INTEGER16 (INTEGER(16), __int128), MPI_REAL16 (REAL(16), IEEE
 * binary128) and MPI_COMPLEX32 (COMPLEX(16), two binary128). Values are chosen so that
 * they do not fit a double (bits below 2^-52 of their leading bit, integers beyond 2^64)
 * and every result is exact in binary128 whatever order a reduction folds in; every check
 * compares bits and prints both values in hexadecimal.
 *  - names, size, extent, true extent, alignment (a struct {REAL16, char} has extent 32),
 *    the NAMED combiner, Fortran handles that convert back, MPI_Type_match_size (REAL 16,
 *    COMPLEX 32, INTEGER 16 give these very handles), the f90 parameterized types of 33
 *    digits and of range 38, MPI_Abi_get_fortran_info's mpi_<type>_supported "true";
 *  - around a ring: contiguous arrays of each, and a strided vector of REAL16;
 *  - Allreduce SUM, MAX, MIN, PROD of REAL16; SUM, PROD of COMPLEX32; every integer,
 *    logical and bitwise operation of INTEGER16 (bits above 2^64 count);
 *  - Reduce_local on operands 8 bytes off their alignment (packed buffers);
 *  - Reduce_local refuses what the standard leaves undefined (MPI_ERR_OP): logical and
 *    bitwise operations and MAXLOC on REAL16, MAX and BAND on COMPLEX32;
 *  - external32: big-endian binary128 and 128-bit integers, round trips;
 *  - MPI_Accumulate SUM of REAL16 into rank 0's window; MPI_Compare_and_swap refuses REAL16
 *    (MPI_ERR_TYPE) and swaps an INTEGER16.
 * Before IVC had these types the program did not compile (no MPI_REAL16). */
#include "../t_util.h"

#include <complex.h>

typedef __int128 i128;
typedef _Float128 f128;
typedef _Complex _Float128 c128;

#define NV 4

/* 2^e, exactly. */
static f128 p2(int e)
{
    f128 x = 1;
    for (; e > 0; e--)
        x *= 2;
    for (; e < 0; e++)
        x /= 2;
    return x;
}

static i128 i128_of(uint64_t hi, uint64_t lo)
{
    return (i128)(((unsigned __int128)hi << 64) | lo);
}

static char *hex(const void *p, size_t n, char *buf)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) /* most significant byte first (x86-64 is little-endian) */
        sprintf(buf + 2 * i, "%02x", b[n - 1 - i]);
    return buf;
}

/* Bit-exact comparison of one element of n bytes. */
static void check_bits(const void *want, const void *got, size_t n, const char *what)
{
    char a[80], b[80];
    if (memcmp(want, got, n) != 0)
        t_fail("%s: expected 0x%s, got 0x%s", what, hex(want, n, a), hex(got, n, b));
}

static void check_class(int expected, int rc, const char *what)
{
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &rc);
    CHECK_INT(expected, rc, what);
}

/* The values rank r contributes to reductions, element k: one rank (k modulo the size)
 * holds a value with bits far below a double's precision, the others small dyadic values,
 * so that every partial sum and product is exact in binary128 and the result does not
 * depend on the order a reduction folds in. */
static f128 real_val(int r, int k)
{
    int fine = r == k % t_size;
    switch (k) {
    case 0: return fine ? 1 + p2(-100) : r + 1;
    case 1: return fine ? 1 + p2(-100) : 1; /* MAX finds it: above 1 by 2^-100 */
    case 2: return fine ? 1 - p2(-101) : 1; /* MIN finds it */
    default: return fine ? -(3 + p2(-98)) : -(f128)(r + 1) / 4;
    }
}

/* (1 + 2^-100) + (3 - 2^-99)i at one rank, 1 +- i at the others: sums and products exact. */
static c128 cplx_val(int r, int k)
{
    c128 z;
    if (r == k % t_size) {
        __real__ z = 1 + p2(-100);
        __imag__ z = (k % 2 ? -1 : 1) * (3 - p2(-99));
    } else {
        __real__ z = 1;
        __imag__ z = (r + k) % 2 ? 1 : -1;
    }
    return z;
}

/* Beyond 2^64 at one rank, small at the others: sums and products do not overflow. */
static i128 int_val(int r, int k)
{
    int fine = r == k % t_size;
    switch (k) {
    case 0: return fine ? i128_of(1ull << 36, 12345) : r + 1; /* 2^100 + 12345 */
    case 1: return fine ? -i128_of(1ull << 26, 7) : -(r + 1); /* -(2^90 + 7) */
    case 2: return r % 2 ? i128_of(1ull << 6, 0) : 0;         /* 2^70 or 0: logical ops see it */
    default: return fine ? i128_of(1ull << 16, 0) : r + 1;    /* 2^80: true, low bits 0 */
    }
}

/* What the ring sends: none of it fits a double. */
static f128 ring_val(int r, int k)
{
    return k == 0 ? (f128)(1 << r) / 3 : 1 + (r * NV + k) * p2(-100);
}

enum { O_MAX, O_MIN, O_SUM, O_PROD, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR };
static MPI_Op const ops[] = {MPI_MAX, MPI_MIN,  MPI_SUM,  MPI_PROD, MPI_LAND,
                             MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR,  MPI_BXOR};
static const char *const op_names[] = {"MAX", "MIN",  "SUM",  "PROD", "LAND",
                                       "LOR", "LXOR", "BAND", "BOR",  "BXOR"};

static f128 real_apply(int o, f128 a, f128 b)
{
    return o == O_MAX ? (a > b ? a : b) : o == O_MIN ? (a < b ? a : b) : o == O_SUM ? a + b : a * b;
}

static i128 int_apply(int o, i128 a, i128 b)
{
    switch (o) {
    case O_MAX: return a > b ? a : b;
    case O_MIN: return a < b ? a : b;
    case O_SUM: return a + b;
    case O_PROD: return a * b;
    case O_LAND: return a && b;
    case O_LOR: return a || b;
    case O_LXOR: return !a != !b;
    case O_BAND: return a & b;
    case O_BOR: return a | b;
    default: return a ^ b;
    }
}

static void queries(void)
{
    static const struct {
        MPI_Datatype t;
        const char *name;
        int size;
    } ts[] = {{MPI_INTEGER16, "MPI_INTEGER16", 16},
              {MPI_REAL16, "MPI_REAL16", 16},
              {MPI_COMPLEX32, "MPI_COMPLEX32", 32}};
    char w[160], name[MPI_MAX_OBJECT_NAME];
    for (int i = 0; i < 3; i++) {
        int len = -1, s = -1, ni, na, nd, comb;
        MPI_Aint lb, ext;
        CHECK_TRUE(ts[i].t != MPI_DATATYPE_NULL, ts[i].name);
        CHECK_MPI(MPI_Type_get_name(ts[i].t, name, &len));
        if (strcmp(name, ts[i].name) != 0)
            t_fail("Type_get_name: expected %s, got %s", ts[i].name, name);
        CHECK_INT((int)strlen(ts[i].name), len, t_fmt(w, sizeof w, "%s: name length", name));
        CHECK_MPI(MPI_Type_size(ts[i].t, &s));
        CHECK_INT(ts[i].size, s, t_fmt(w, sizeof w, "%s: size", name));
        CHECK_MPI(MPI_Type_get_extent(ts[i].t, &lb, &ext));
        CHECK_INT(0, lb, t_fmt(w, sizeof w, "%s: lb", name));
        CHECK_INT(ts[i].size, ext, t_fmt(w, sizeof w, "%s: extent", name));
        CHECK_MPI(MPI_Type_get_true_extent(ts[i].t, &lb, &ext));
        CHECK_INT(ts[i].size, ext, t_fmt(w, sizeof w, "%s: true extent", name));
        CHECK_MPI(MPI_Type_get_envelope(ts[i].t, &ni, &na, &nd, &comb));
        CHECK_INT(MPI_COMBINER_NAMED, comb, t_fmt(w, sizeof w, "%s: combiner", name));
        MPI_Fint f = MPI_Type_c2f(ts[i].t);
        CHECK_TRUE(f > 0 && MPI_Type_f2c(f) == ts[i].t,
                   t_fmt(w, sizeof w, "%s: Fortran handle %d converts back", name, (int)f));
        /* Added after every earlier predefined handle: those keep their Fortran indices. */
        CHECK_TRUE(f > MPI_Type_c2f(MPI_UB), t_fmt(w, sizeof w, "%s: index after MPI_UB's", name));
    }
    /* Alignment 16, as gfortran's REAL(16): {REAL16 at 0, char at 16} pads to 32 bytes. */
    int bl[2] = {1, 1};
    MPI_Aint d[2] = {0, 16};
    MPI_Datatype ty[2] = {MPI_REAL16, MPI_CHAR}, st;
    MPI_Aint lb, ext;
    CHECK_MPI(MPI_Type_create_struct(2, bl, d, ty, &st));
    CHECK_MPI(MPI_Type_get_extent(st, &lb, &ext));
    CHECK_INT(32, ext, "extent of struct {REAL16, char} (alignment 16)");
    MPI_Type_free(&st);

    MPI_Datatype m = MPI_DATATYPE_NULL;
    CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_REAL, 16, &m));
    CHECK_TRUE(m == MPI_REAL16, "Type_match_size(REAL, 16) is MPI_REAL16");
    CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 32, &m));
    CHECK_TRUE(m == MPI_COMPLEX32, "Type_match_size(COMPLEX, 32) is MPI_COMPLEX32");
    CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 16, &m));
    CHECK_TRUE(m == MPI_INTEGER16, "Type_match_size(INTEGER, 16) is MPI_INTEGER16");
    check_class(MPI_ERR_ARG, MPI_Type_match_size(MPI_TYPECLASS_REAL, 32, &m),
                "Type_match_size(REAL, 32)");
    int s;
    CHECK_MPI(MPI_Type_create_f90_real(33, MPI_UNDEFINED, &m));
    CHECK_MPI(MPI_Type_size(m, &s));
    CHECK_INT(16, s, "f90_real(33, UNDEFINED) (REAL(16))");
    CHECK_MPI(MPI_Type_create_f90_complex(20, 4000, &m));
    CHECK_MPI(MPI_Type_size(m, &s));
    CHECK_INT(32, s, "f90_complex(20, 4000) (COMPLEX(16))");
    CHECK_MPI(MPI_Type_create_f90_integer(38, &m));
    CHECK_MPI(MPI_Type_size(m, &s));
    CHECK_INT(16, s, "f90_integer(38) (INTEGER(16))");
    check_class(MPI_ERR_ARG, MPI_Type_create_f90_real(34, MPI_UNDEFINED, &m), "f90_real(34)");
    check_class(MPI_ERR_ARG, MPI_Type_create_f90_integer(39, &m), "f90_integer(39)");

    MPI_Info info;
    CHECK_MPI(MPI_Abi_get_fortran_info(&info));
    static const char *const keys[] = {"mpi_integer16_supported", "mpi_real16_supported",
                                       "mpi_complex32_supported"};
    for (int i = 0; i < 3; i++) {
        char v[16] = "";
        int buflen = sizeof v, flag = 0;
        CHECK_MPI(MPI_Info_get_string(info, keys[i], &buflen, v, &flag));
        if (!flag || strcmp(v, "true") != 0)
            t_fail("Abi_get_fortran_info %s: expected true, got %s", keys[i], flag ? v : "(none)");
    }
    MPI_Info_free(&info);
}

/* Each rank sends its values to the next and checks what the previous one sent. */
static void ring(void)
{
    int next = (t_rank + 1) % t_size, prev = (t_rank + t_size - 1) % t_size;
    char w[160];
    f128 rs[NV], rr[NV];
    c128 cs[NV], cr[NV];
    i128 is[NV], ir[NV];
    for (int k = 0; k < NV; k++) {
        rs[k] = ring_val(t_rank, k);
        __real__ cs[k] = ring_val(t_rank, k);
        __imag__ cs[k] = -ring_val(t_rank, k + 1);
        is[k] = int_val(t_rank, k) * (t_rank + 1);
    }
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(rs, NV, MPI_REAL16, next, 1, rr, NV, MPI_REAL16, prev, 1, MPI_COMM_WORLD,
                           &st));
    CHECK_INT(NV, t_count(&st, MPI_REAL16), "REAL16 count");
    CHECK_MPI(MPI_Sendrecv(cs, NV, MPI_COMPLEX32, next, 2, cr, NV, MPI_COMPLEX32, prev, 2,
                           MPI_COMM_WORLD, &st));
    CHECK_INT(NV, t_count(&st, MPI_COMPLEX32), "COMPLEX32 count");
    CHECK_MPI(MPI_Sendrecv(is, NV, MPI_INTEGER16, next, 3, ir, NV, MPI_INTEGER16, prev, 3,
                           MPI_COMM_WORLD, &st));
    for (int k = 0; k < NV; k++) {
        f128 r = ring_val(prev, k);
        c128 c;
        __real__ c = ring_val(prev, k);
        __imag__ c = -ring_val(prev, k + 1);
        i128 i = int_val(prev, k) * (prev + 1);
        CHECK_TRUE((double)r == (double)rr[k] && r != (f128)(double)r,
                   t_fmt(w, sizeof w, "REAL16 element %d does not fit a double", k));
        check_bits(&r, &rr[k], 16, t_fmt(w, sizeof w, "REAL16 from rank %d, element %d", prev, k));
        check_bits(&c, &cr[k], 32,
                   t_fmt(w, sizeof w, "COMPLEX32 from rank %d, element %d", prev, k));
        check_bits(&i, &ir[k], 16,
                   t_fmt(w, sizeof w, "INTEGER16 from rank %d, element %d", prev, k));
    }
    /* Every other element of 2 * NV REAL16s, received contiguous. */
    f128 big[2 * NV], got[NV];
    for (int k = 0; k < 2 * NV; k++)
        big[k] = k % 2 ? -1 : ring_val(t_rank, k / 2);
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(NV, 1, 2, MPI_REAL16, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    CHECK_MPI(MPI_Sendrecv(big, 1, vec, next, 4, got, NV, MPI_REAL16, prev, 4, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    MPI_Type_free(&vec);
    for (int k = 0; k < NV; k++) {
        f128 r = ring_val(prev, k);
        check_bits(&r, &got[k], 16, t_fmt(w, sizeof w, "strided REAL16, element %d", k));
    }
}

static void reductions(void)
{
    char w[160];
    static const int real_ops[] = {O_SUM, O_MAX, O_MIN, O_PROD};
    for (int oi = 0; oi < 4; oi++) {
        int o = real_ops[oi];
        f128 in[NV], out[NV], ref[NV];
        for (int k = 0; k < NV; k++) {
            in[k] = real_val(t_rank, k);
            ref[k] = real_val(0, k);
            for (int r = 1; r < t_size; r++)
                ref[k] = real_apply(o, ref[k], real_val(r, k));
        }
        CHECK_MPI(MPI_Allreduce(in, out, NV, MPI_REAL16, ops[o], MPI_COMM_WORLD));
        for (int k = 0; k < NV; k++)
            check_bits(&ref[k], &out[k], 16,
                       t_fmt(w, sizeof w, "Allreduce %s on REAL16, element %d", op_names[o], k));
    }
    /* The sum of element 0 is n(n+1)/2 + 2^-100 exactly, which is not a double. */
    f128 s0 = real_val(0, 0);
    for (int r = 1; r < t_size; r++)
        s0 += real_val(r, 0);
    f128 want = (f128)(t_size * (t_size + 1) / 2) + p2(-100);
    check_bits(&want, &s0, 16, "the reference sum itself");
    CHECK_TRUE(s0 != (f128)(double)s0, "the sum does not fit a double");

    static const int cplx_ops[] = {O_SUM, O_PROD};
    for (int oi = 0; oi < 2; oi++) {
        int o = cplx_ops[oi];
        c128 in[NV], out[NV], ref[NV];
        for (int k = 0; k < NV; k++) {
            in[k] = cplx_val(t_rank, k);
            ref[k] = cplx_val(0, k);
            for (int r = 1; r < t_size; r++)
                ref[k] = o == O_SUM ? ref[k] + cplx_val(r, k) : ref[k] * cplx_val(r, k);
        }
        CHECK_MPI(MPI_Allreduce(in, out, NV, MPI_COMPLEX32, ops[o], MPI_COMM_WORLD));
        for (int k = 0; k < NV; k++)
            check_bits(&ref[k], &out[k], 32,
                       t_fmt(w, sizeof w, "Allreduce %s on COMPLEX32, element %d", op_names[o], k));
    }

    for (int o = O_MAX; o <= O_BXOR; o++) {
        i128 in[NV], out[NV], ref[NV];
        for (int k = 0; k < NV; k++) {
            in[k] = int_val(t_rank, k);
            ref[k] = int_val(0, k);
            for (int r = 1; r < t_size; r++)
                ref[k] = int_apply(o, ref[k], int_val(r, k));
        }
        CHECK_MPI(MPI_Allreduce(in, out, NV, MPI_INTEGER16, ops[o], MPI_COMM_WORLD));
        for (int k = 0; k < NV; k++)
            check_bits(&ref[k], &out[k], 16,
                       t_fmt(w, sizeof w, "Allreduce %s on INTEGER16, element %d", op_names[o], k));
    }

    /* Operands 8 bytes off a 16-byte boundary, as in a packed buffer. */
    _Alignas(16) unsigned char a[8 + NV * 32], b[8 + NV * 32];
    f128 x[NV], y[NV];
    for (int k = 0; k < NV; k++)
        x[k] = real_val(1, k), y[k] = real_val(2, k);
    memcpy(a + 8, x, sizeof x);
    memcpy(b + 8, y, sizeof y);
    CHECK_MPI(MPI_Reduce_local(a + 8, b + 8, NV, MPI_REAL16, MPI_SUM));
    for (int k = 0; k < NV; k++) {
        f128 r = x[k] + y[k];
        check_bits(&r, b + 8 + 16 * k, 16, t_fmt(w, sizeof w, "unaligned REAL16 SUM, %d", k));
    }
    c128 cx[NV], cy[NV];
    for (int k = 0; k < NV; k++)
        cx[k] = cplx_val(1, k), cy[k] = cplx_val(3, k);
    memcpy(a + 8, cx, sizeof cx);
    memcpy(b + 8, cy, sizeof cy);
    CHECK_MPI(MPI_Reduce_local(a + 8, b + 8, NV, MPI_COMPLEX32, MPI_PROD));
    for (int k = 0; k < NV; k++) {
        c128 r = cx[k] * cy[k];
        check_bits(&r, b + 8 + 32 * k, 32, t_fmt(w, sizeof w, "unaligned COMPLEX32 PROD, %d", k));
    }

    /* What the standard does not define for these types (as for REAL8 and COMPLEX16). */
    static const struct {
        MPI_Op op;
        MPI_Datatype t;
        const char *what;
    } bad[] = {{MPI_LAND, MPI_REAL16, "LAND on REAL16"},
               {MPI_BOR, MPI_REAL16, "BOR on REAL16"},
               {MPI_MAXLOC, MPI_REAL16, "MAXLOC on REAL16"},
               {MPI_MAX, MPI_COMPLEX32, "MAX on COMPLEX32"},
               {MPI_BAND, MPI_COMPLEX32, "BAND on COMPLEX32"},
               {MPI_MINLOC, MPI_INTEGER16, "MINLOC on INTEGER16"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        check_class(MPI_ERR_OP, MPI_Reduce_local(a, b, 1, bad[i].t, bad[i].op), bad[i].what);
}

static void external32(void)
{
    char w[160];
    f128 v[2] = {1 + p2(-100), -real_val(3, 0) / 3}, back[2];
    unsigned char buf[64];
    MPI_Aint pos = 0, size;
    CHECK_MPI(MPI_Pack_external_size("external32", 2, MPI_REAL16, &size));
    CHECK_INT(32, size, "Pack_external_size of 2 REAL16");
    CHECK_MPI(MPI_Pack_external("external32", v, 2, MPI_REAL16, buf, sizeof buf, &pos));
    CHECK_INT(32, pos, "REAL16 packed bytes");
    /* 1 + 2^-100: sign 0, exponent 0x3fff, the fraction's bit 12 (byte 14 big-endian). */
    static const unsigned char one_eps[16] = {0x3f, 0xff, 0, 0, 0, 0, 0,    0,
                                              0,    0,    0, 0, 0, 0, 0x10, 0};
    for (int i = 0; i < 16; i++)
        CHECK_INT(one_eps[i], buf[i], t_fmt(w, sizeof w, "external32 of 1 + 2^-100, byte %d", i));
    pos = 0;
    CHECK_MPI(MPI_Unpack_external("external32", buf, 32, &pos, back, 2, MPI_REAL16));
    check_bits(&v[0], &back[0], 16, "REAL16 external32 round trip 0");
    check_bits(&v[1], &back[1], 16, "REAL16 external32 round trip 1");

    i128 iv = i128_of(0x0102030405060708ull, 0x090a0b0c0d0e0f10ull), ib;
    pos = 0;
    CHECK_MPI(MPI_Pack_external("external32", &iv, 1, MPI_INTEGER16, buf, sizeof buf, &pos));
    for (int i = 0; i < 16; i++)
        CHECK_INT(i + 1, buf[i], t_fmt(w, sizeof w, "external32 of INTEGER16, byte %d", i));
    pos = 0;
    CHECK_MPI(MPI_Unpack_external("external32", buf, 16, &pos, &ib, 1, MPI_INTEGER16));
    check_bits(&iv, &ib, 16, "INTEGER16 external32 round trip");

    c128 cv = cplx_val(2, 0), cb;
    pos = 0;
    CHECK_MPI(MPI_Pack_external("external32", &cv, 1, MPI_COMPLEX32, buf, sizeof buf, &pos));
    CHECK_INT(32, pos, "COMPLEX32 packed bytes");
    f128 re = __real__ cv;
    unsigned char rb[16];
    memcpy(rb, &re, 16);
    for (int i = 0; i < 16; i++) /* the real part first, big-endian */
        CHECK_INT(rb[15 - i], buf[i], t_fmt(w, sizeof w, "external32 of COMPLEX32, byte %d", i));
    pos = 0;
    CHECK_MPI(MPI_Unpack_external("external32", buf, 32, &pos, &cb, 1, MPI_COMPLEX32));
    check_bits(&cv, &cb, 32, "COMPLEX32 external32 round trip");
}

static void rma(void)
{
    char w[160];
    f128 *base;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(NV * 16 + 16, 16, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int k = 0; k < NV; k++)
        base[k] = 0;
    memset(base + NV, 0, 16);
    CHECK_MPI(MPI_Win_fence(0, win));
    f128 mine[NV];
    for (int k = 0; k < NV; k++)
        mine[k] = real_val(t_rank, 0);
    CHECK_MPI(MPI_Accumulate(mine, NV, MPI_REAL16, 0, 0, NV, MPI_REAL16, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    if (t_rank == 0) {
        f128 want = (f128)(t_size * (t_size + 1) / 2) + p2(-100);
        for (int k = 0; k < NV; k++)
            check_bits(&want, &base[k], 16, t_fmt(w, sizeof w, "Accumulate SUM REAL16, %d", k));
    }
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    f128 cmp = 0, res;
    check_class(MPI_ERR_TYPE, MPI_Compare_and_swap(&mine[0], &cmp, &res, MPI_REAL16, 0, 0, win),
                "Compare_and_swap of REAL16");
    /* INTEGER16 at slot NV: the first rank to come swaps 0 for 2^100 + rank. */
    i128 mi = int_val(t_rank, 0), zero = 0, old;
    CHECK_MPI(MPI_Compare_and_swap(&mi, &zero, &old, MPI_INTEGER16, 0, NV, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
    MPI_Barrier(MPI_COMM_WORLD);
    i128 now, first = 0;
    if (t_rank == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        memcpy(&now, base + NV, 16);
        CHECK_MPI(MPI_Win_unlock(0, win));
    }
    CHECK_MPI(MPI_Bcast(&now, 1, MPI_INTEGER16, 0, MPI_COMM_WORLD));
    int won = old == 0, winners = 0;
    MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_INT(1, winners, "ranks whose Compare_and_swap of INTEGER16 found 0");
    if (won)
        first = mi;
    else
        check_bits(&now, &old, 16, "Compare_and_swap of INTEGER16: the winner's value");
    if (won)
        check_bits(&first, &now, 16, "INTEGER16 in the window");
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (t_size > 4)
        t_skip("the exact products assume at most 4 ranks");
    queries();
    ring();
    reductions();
    external32();
    rma();
    MPI_Finalize();
    return 0;
}
