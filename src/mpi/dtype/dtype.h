/* Datatype room: the objects behind MPI_Datatype, their basic kinds and type maps
 * (mpi_datatype.c). */
#ifndef IVC_MPI_DTYPE_H
#define IVC_MPI_DTYPE_H

#include <mpi.h>

#include "base/ivc_data.h"

#include <stdint.h>

#define DT_MAGIC 0x44545950u

/* Basic kinds: what a reduction operates on. */
/* clang-format off */
enum {
    B_NONE = -1,
    B_CHAR, B_SCHAR, B_UCHAR, B_BYTE, B_WCHAR, B_SHORT, B_USHORT, B_INT, B_UINT, B_LONG,
    B_ULONG, B_LLONG, B_ULLONG, B_FLOAT, B_DOUBLE, B_LDOUBLE, B_BOOL, B_I8, B_I16, B_I32, B_I64,
    B_U8, B_U16, B_U32, B_U64, B_AINT, B_OFFSET, B_COUNT, B_CFLOAT, B_CDOUBLE, B_CLDOUBLE,
    B_PACKED, B_FLOAT_INT, B_DOUBLE_INT, B_LONG_INT, B_2INT, B_SHORT_INT, B_LDOUBLE_INT,
    B_2FLOAT, B_2DOUBLE, /* Fortran MPI_2REAL, MPI_2DOUBLE_PRECISION (src/binding/fortran) */
    B_I128, B_FLOAT128, B_CFLOAT128, /* Fortran MPI_INTEGER16, MPI_REAL16, MPI_COMPLEX32 */
    B_COUNT_KINDS
};
/* clang-format on */

/* gfortran's 16-byte kinds: INTEGER(16) is __int128; REAL(16) is IEEE binary128, which GCC
 * calls _Float128 (on x86-64 a software type: libgcc's __addtf3, __multf3, __lttf2 ...,
 * no libquadmath), and COMPLEX(16) is two of them (libgcc's __multc3 multiplies). Where
 * long double is binary128 itself (aarch64, ppc64le with IEEE long double) it is the same
 * type. */
typedef __int128 ivc_i128_t;
#if defined(__FLT128_MANT_DIG__)
typedef _Float128 ivc_f128_t;
typedef _Complex _Float128 ivc_c128_t;
#else
#include <float.h>
_Static_assert(LDBL_MANT_DIG == 113, "REAL(16) needs a binary128 type");
typedef long double ivc_f128_t;
typedef _Complex long double ivc_c128_t;
#endif
_Static_assert(sizeof(ivc_f128_t) == 16 && sizeof(ivc_c128_t) == 32 && sizeof(ivc_i128_t) == 16,
               "REAL(16), COMPLEX(16) and INTEGER(16) are 16, 32 and 16 bytes");

/* The C layouts of the (value, index) pair types (MPI_FLOAT_INT ...). */
typedef struct {
    float v;
    int i;
} float_int_t;
typedef struct {
    double v;
    int i;
} double_int_t;
typedef struct {
    long v;
    int i;
} long_int_t;
typedef struct {
    int v;
    int i;
} int2_t;
typedef struct {
    short v;
    int i;
} short_int_t;
typedef struct {
    long double v;
    int i;
} ldouble_int_t;
/* Fortran's (value, index) pairs of one type: MPI_2REAL, MPI_2DOUBLE_PRECISION. */
typedef struct {
    float v, i;
} float2_t;
typedef struct {
    double v, i;
} double2_t;

/* `count` consecutive copies of `old` placed at byte displacement `disp`: what a derived
 * type is built from, in type-map order (dt_build, mpi_datatype.c). */
typedef struct dt_piece {
    int64_t disp;
    uint64_t count;
    struct ivc_mpi_dt_s *old;
} dt_piece_t;

struct ivc_mpi_dt_s {
    uint32_t magic;
    int predefined;
    int committed;
    int refcount;    /* the user's handle plus requests in flight */
    int basic;       /* basic kind if every element is of one kind, else B_NONE */
    uint64_t nbasic; /* basic elements per element */
    uint64_t basic_size;
    uint32_t align; /* strictest alignment of a component (struct extent padding) */
    int resized;    /* lb/extent were set explicitly */
    int64_t true_lb, true_ub;
    ivc_typemap_t map;
    char name[MPI_MAX_OBJECT_NAME];
    /* MPI basic elements per element (MPI_Get_elements): a pair type such as MPI_DOUBLE_INT
     * counts two; vsize: packed bytes of a predefined pair's value part, else 0. */
    uint64_t nelems;
    uint32_t vsize;
    /* Derived types: the pieces flattened into `map`, each `old` retained (Get_elements and
     * external32 walk them in type-map order). */
    dt_piece_t *pieces;
    uint64_t npieces;
    /* How the type was made (MPI_Type_get_envelope / get_contents): MPI_COMBINER_* and the
     * constructor's arguments; `types` are retained. `counts` (nc of them) are the large counts
     * of a type made by a `_c` constructor with a value that does not fit an int (dt_large.c):
     * only the _c queries show its record. */
    int combiner;
    int ni, na, nd, nc;
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
    MPI_Datatype *types;
    struct ivc_mpi_attr *attrs; /* cached attributes (comm/mpi_attr.c) */
};

int ivc_mpi_dt_init(void);
int ivc_mpi_dt_valid(MPI_Datatype dt);
void ivc_mpi_dt_retain(MPI_Datatype dt);
void ivc_mpi_dt_release(MPI_Datatype dt);
/* MPI basic elements in the first `bytes` packed bytes of a sequence of dt elements, or -1
 * when `bytes` ends inside a basic element (MPI_Get_elements: MPI_UNDEFINED). */
int64_t ivc_mpi_dt_elements(MPI_Datatype dt, uint64_t bytes);

/* 1 when `count` elements of the valid type dt at buf would read or write through a NULL
 * pointer: buf is NULL, there is data (count > 0, a type of non-zero size) and it would
 * start in the first page. NULL is also MPI_BOTTOM, with which a type of absolute addresses
 * (MPI_Get_address) is used: such data lies far above the first page and is accepted. The
 * MPI calls refuse a buffer for which this is 1 with MPI_ERR_BUFFER, as MPICH does for a
 * NULL buffer of a predefined type or of a derived type that starts at 0. */
static inline int ivc_mpi_dt_null_buf(const void *buf, int64_t count, MPI_Datatype dt)
{
    return __builtin_expect(buf == NULL, 0) && count > 0 && dt->map.size > 0 &&
           dt->true_lb < 4096;
}

/* The same for data at byte displacement `off` from buf (a block of a v or w collective). */
static inline int ivc_mpi_dt_null_buf_at(const void *buf, int64_t count, MPI_Datatype dt,
                                         int64_t off)
{
    return __builtin_expect(buf == NULL, 0) && count > 0 && dt->map.size > 0 &&
           off + dt->true_lb < 4096;
}

/* Describes count elements of dt at buf as a byte stream. */
static inline void ivc_mpi_data(ivc_data_t *d, const void *buf, int count, MPI_Datatype dt)
{
    d->buf = (void *)buf;
    d->count = (uint64_t)count;
    d->map = &dt->map;
    d->bytes = (uint64_t)count * dt->map.size;
}

#endif
