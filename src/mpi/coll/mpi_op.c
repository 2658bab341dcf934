/* Predefined reduction operations over the basic kinds. */
#include "mpi_impl.h"

/* The loops below are what large reductions spend their time in (a collective reduces
 * megabytes straight out of shared memory). GCC's -O2 vectorizes only loops that need no
 * run-time check that the operands do not overlap, and these may overlap (out == in2 is the
 * two-operand form), so it left them scalar: one float per instruction. The dynamic cost
 * model lets it vectorize them behind an overlap check. Element-wise, so the results are
 * bit-identical to the scalar loop's. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include <complex.h>
#include <stdbool.h>
#include <wchar.h>

#define OP_DEFINE(NAME, low)                                                                       \
    struct ivc_mpi_op_s ivc_obj_op_##low = {                                                       \
        .magic = OP_MAGIC, .id = OP_##NAME, .commute = 1, .predefined = 1};
IVC_MPI_OPS(OP_DEFINE)
#undef OP_DEFINE

int ivc_mpi_op_valid(MPI_Op op)
{
    return op != MPI_OP_NULL && op->magic == OP_MAGIC;
}

/* The 16-byte kinds (INTEGER16, REAL16, COMPLEX32; dtype.h) through types of alignment 1:
 * an operand need not be 16-byte aligned (a packed buffer, a slice of a user's buffer), and
 * GCC loads an aligned _Float128 with instructions that fault on an address that is not.
 * Their arithmetic is libgcc's software binary128, not worth vectorizing anyway. */
typedef ivc_i128_t i128u_t __attribute__((aligned(1)));
typedef ivc_f128_t f128u_t __attribute__((aligned(1)));
typedef ivc_c128_t c128u_t __attribute__((aligned(1)));

#define LOOP(T, EXPR)                                                                              \
    do {                                                                                           \
        const T *a = in;                                                                           \
        const T *b = in2;                                                                          \
        T *o = out;                                                                                \
        for (uint64_t i = 0; i < n; i++)                                                           \
            o[i] = (T)(EXPR);                                                                      \
    } while (0)

/* clang-format off */
/* One case per integer kind, applying EXPR over a[i] and b[i]. */
#define INT_CASES(EXPR)                                                                            \
    case B_CHAR: LOOP(char, EXPR); return MPI_SUCCESS;                                             \
    case B_SCHAR: LOOP(signed char, EXPR); return MPI_SUCCESS;                                     \
    case B_UCHAR: LOOP(unsigned char, EXPR); return MPI_SUCCESS;                                   \
    case B_WCHAR: LOOP(wchar_t, EXPR); return MPI_SUCCESS;                                         \
    case B_SHORT: LOOP(short, EXPR); return MPI_SUCCESS;                                           \
    case B_USHORT: LOOP(unsigned short, EXPR); return MPI_SUCCESS;                                 \
    case B_INT: LOOP(int, EXPR); return MPI_SUCCESS;                                               \
    case B_UINT: LOOP(unsigned, EXPR); return MPI_SUCCESS;                                         \
    case B_LONG: LOOP(long, EXPR); return MPI_SUCCESS;                                             \
    case B_ULONG: LOOP(unsigned long, EXPR); return MPI_SUCCESS;                                   \
    case B_LLONG: LOOP(long long, EXPR); return MPI_SUCCESS;                                       \
    case B_ULLONG: LOOP(unsigned long long, EXPR); return MPI_SUCCESS;                             \
    case B_I8: LOOP(int8_t, EXPR); return MPI_SUCCESS;                                             \
    case B_I16: LOOP(int16_t, EXPR); return MPI_SUCCESS;                                           \
    case B_I32: LOOP(int32_t, EXPR); return MPI_SUCCESS;                                           \
    case B_I64: LOOP(int64_t, EXPR); return MPI_SUCCESS;                                           \
    case B_U8: LOOP(uint8_t, EXPR); return MPI_SUCCESS;                                            \
    case B_U16: LOOP(uint16_t, EXPR); return MPI_SUCCESS;                                          \
    case B_U32: LOOP(uint32_t, EXPR); return MPI_SUCCESS;                                          \
    case B_U64: LOOP(uint64_t, EXPR); return MPI_SUCCESS;                                          \
    case B_AINT: LOOP(MPI_Aint, EXPR); return MPI_SUCCESS;                                         \
    case B_OFFSET: LOOP(MPI_Offset, EXPR); return MPI_SUCCESS;                                     \
    case B_COUNT: LOOP(MPI_Count, EXPR); return MPI_SUCCESS;                                       \
    case B_I128: LOOP(i128u_t, EXPR); return MPI_SUCCESS;

#define FLOAT_CASES(EXPR)                                                                          \
    case B_FLOAT: LOOP(float, EXPR); return MPI_SUCCESS;                                           \
    case B_DOUBLE: LOOP(double, EXPR); return MPI_SUCCESS;                                         \
    case B_LDOUBLE: LOOP(long double, EXPR); return MPI_SUCCESS;                                   \
    case B_FLOAT128: LOOP(f128u_t, EXPR); return MPI_SUCCESS;

#define COMPLEX_CASES(EXPR)                                                                        \
    case B_CFLOAT: LOOP(float _Complex, EXPR); return MPI_SUCCESS;                                 \
    case B_CDOUBLE: LOOP(double _Complex, EXPR); return MPI_SUCCESS;                               \
    case B_CLDOUBLE: LOOP(long double _Complex, EXPR); return MPI_SUCCESS;                         \
    case B_CFLOAT128: LOOP(c128u_t, EXPR); return MPI_SUCCESS;

#define BYTE_CASES(EXPR)                                                                           \
    case B_BYTE: LOOP(unsigned char, EXPR); return MPI_SUCCESS;

#define BOOL_CASES(EXPR)                                                                           \
    case B_BOOL: LOOP(bool, EXPR); return MPI_SUCCESS;

/* MAXLOC/MINLOC over (value, index) pairs: the better value wins; on a tie, the smaller
 * index. */
#define LOC_LOOP(T, CMP)                                                                           \
    do {                                                                                           \
        const T *a = in;                                                                           \
        const T *b = in2;                                                                          \
        T *o = out;                                                                                \
        for (uint64_t i = 0; i < n; i++) {                                                         \
            T x = a[i].v CMP b[i].v || (a[i].v == b[i].v && a[i].i < b[i].i) ? a[i] : b[i];        \
            o[i] = x;                                                                              \
        }                                                                                          \
    } while (0)

#define LOC_CASES(CMP)                                                                             \
    case B_FLOAT_INT: LOC_LOOP(float_int_t, CMP); return MPI_SUCCESS;                              \
    case B_DOUBLE_INT: LOC_LOOP(double_int_t, CMP); return MPI_SUCCESS;                            \
    case B_LONG_INT: LOC_LOOP(long_int_t, CMP); return MPI_SUCCESS;                                \
    case B_2INT: LOC_LOOP(int2_t, CMP); return MPI_SUCCESS;                                        \
    case B_SHORT_INT: LOC_LOOP(short_int_t, CMP); return MPI_SUCCESS;                              \
    case B_LDOUBLE_INT: LOC_LOOP(ldouble_int_t, CMP); return MPI_SUCCESS;                          \
    case B_2FLOAT: LOC_LOOP(float2_t, CMP); return MPI_SUCCESS;                                    \
    case B_2DOUBLE: LOC_LOOP(double2_t, CMP); return MPI_SUCCESS;
/* clang-format on */

/* clang-format off */
int ivc_mpi_op_apply3(MPI_Op op, const void *in, const void *in2, void *out, uint64_t n, int basic)
{
    switch (op->id) {
    case OP_MAX:
        switch (basic) { INT_CASES(a[i] > b[i] ? a[i] : b[i]) FLOAT_CASES(a[i] > b[i] ? a[i] : b[i]) }
        break;
    case OP_MIN:
        switch (basic) { INT_CASES(a[i] < b[i] ? a[i] : b[i]) FLOAT_CASES(a[i] < b[i] ? a[i] : b[i]) }
        break;
    case OP_SUM:
        switch (basic) { INT_CASES(a[i] + b[i]) FLOAT_CASES(a[i] + b[i]) COMPLEX_CASES(a[i] + b[i]) }
        break;
    case OP_PROD:
        switch (basic) { INT_CASES(a[i] * b[i]) FLOAT_CASES(a[i] * b[i]) COMPLEX_CASES(a[i] * b[i]) }
        break;
    case OP_LAND:
        switch (basic) { INT_CASES(a[i] && b[i]) BOOL_CASES(a[i] && b[i]) }
        break;
    case OP_LOR:
        switch (basic) { INT_CASES(a[i] || b[i]) BOOL_CASES(a[i] || b[i]) }
        break;
    case OP_LXOR:
        switch (basic) { INT_CASES(!a[i] != !b[i]) BOOL_CASES(!a[i] != !b[i]) }
        break;
    case OP_BAND:
        switch (basic) { INT_CASES(a[i] & b[i]) BYTE_CASES(a[i] & b[i]) }
        break;
    case OP_BOR:
        switch (basic) { INT_CASES(a[i] | b[i]) BYTE_CASES(a[i] | b[i]) }
        break;
    case OP_BXOR:
        switch (basic) { INT_CASES(a[i] ^ b[i]) BYTE_CASES(a[i] ^ b[i]) }
        break;
    case OP_MAXLOC:
        switch (basic) { LOC_CASES(>) }
        break;
    case OP_MINLOC:
        switch (basic) { LOC_CASES(<) }
        break;
    case OP_NO_OP:
        return MPI_SUCCESS;
    default:
        break;
    }
    return MPI_ERR_OP;
}
/* clang-format on */

int ivc_mpi_op_apply(MPI_Op op, const void *in, void *inout, uint64_t n, int basic)
{
    return ivc_mpi_op_apply3(op, in, inout, inout, n, basic);
}

int ivc_mpi_op_defined(MPI_Op op, int basic)
{
    /* The dispatch of an empty vector: reaches `return MPI_SUCCESS` exactly for the kinds
     * the operation has a case for, and touches no memory. */
    unsigned char dummy[1] = {0};
    return ivc_mpi_op_apply(op, dummy, dummy, 0, basic) == MPI_SUCCESS;
}
