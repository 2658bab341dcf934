/* The "external32" data representation (MPI_Pack_external, MPI_Unpack_external,
 * MPI_Pack_external_size): big-endian, IEEE formats, the standard's sizes.
 *
 * Data is packed natively (base/ivc_data.h), then converted basic element by basic element
 * while walking the type's pieces in type-map order (unpacking: converted first, then
 * unpacked). On the LP64 Linux targets of IVC every C basic type has its external32 size
 * natively (checked below), so the conversion is in place: byte swaps, and long double
 * (x87 extended in 16 bytes) to and from IEEE binary128. The optional Fortran MPI_INTEGER16,
 * MPI_REAL16 and MPI_COMPLEX32 are 16, 16 and 32 bytes in external32 and natively (REAL16 is
 * binary128 already): byte swaps. */
#include "dtype/dt_impl.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

_Static_assert(sizeof(long) == 8 && sizeof(wchar_t) == 4 && sizeof(bool) == 1 &&
                   sizeof(MPI_Aint) == 8 && sizeof(MPI_Offset) == 8 && sizeof(MPI_Count) == 8 &&
                   sizeof(long double) == 16,
               "external32 sizes are the native sizes");

static void swap(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n / 2; i++) {
        uint8_t t = p[i];
        p[i] = p[n - 1 - i];
        p[n - 1 - i] = t;
    }
}

/* long double <-> big-endian binary128, in place. */
static void ldouble_conv(uint8_t *p, int to_ext)
{
#if defined(__SIZEOF_FLOAT128__) && defined(__x86_64__)
    if (to_ext) {
        long double v;
        memcpy(&v, p, sizeof(v));
        __float128 q = (__float128)v;
        memcpy(p, &q, 16);
        swap(p, 16);
    } else {
        __float128 q;
        swap(p, 16);
        memcpy(&q, p, 16);
        long double v = (long double)q;
        memset(p, 0, 16);
        memcpy(p, &v, sizeof(v));
    }
#else
    swap(p, 16); /* long double is binary128 already */
    (void)to_ext;
#endif
}

/* The packed layout of one element of a basic kind: a first part of `a` bytes and a second
 * (index or imaginary part) of `b` bytes; `ld`: the parts are long doubles. */
static void kind_parts(int basic, size_t *a, size_t *b, int *ld)
{
    *b = 0;
    *ld = 0;
    switch (basic) {
    case B_WCHAR: *a = sizeof(wchar_t); return;
    case B_SHORT:
    case B_USHORT:
    case B_I16:
    case B_U16: *a = 2; return;
    case B_INT:
    case B_UINT:
    case B_I32:
    case B_U32:
    case B_FLOAT: *a = 4; return;
    case B_LONG:
    case B_ULONG:
    case B_LLONG:
    case B_ULLONG:
    case B_I64:
    case B_U64:
    case B_DOUBLE:
    case B_AINT:
    case B_OFFSET:
    case B_COUNT: *a = 8; return;
    case B_LDOUBLE: *a = 16, *ld = 1; return;
    case B_CFLOAT: *a = *b = 4; return;
    case B_CDOUBLE: *a = *b = 8; return;
    case B_CLDOUBLE: *a = *b = 16, *ld = 1; return;
    case B_FLOAT_INT:
    case B_2INT:
    case B_2FLOAT: *a = *b = 4; return;
    case B_DOUBLE_INT:
    case B_LONG_INT: *a = 8, *b = 4; return;
    case B_2DOUBLE: *a = *b = 8; return;
    case B_I128:
    case B_FLOAT128: *a = 16; return; /* binary128 natively: a byte swap */
    case B_CFLOAT128: *a = *b = 16; return;
    case B_SHORT_INT: *a = 2, *b = 4; return;
    case B_LDOUBLE_INT: *a = 16, *b = 4; return;
    default: *a = 1; return; /* characters, bytes, bool, 8-bit integers, packed */
    }
}

/* Converts n packed elements of basic kind `basic` at p; returns the end. */
static uint8_t *conv_basic(int basic, uint64_t n, uint8_t *p, int to_ext)
{
    size_t a, b;
    int ld;
    kind_parts(basic, &a, &b, &ld);
    if (a == 1 && b == 0)
        return p + n;
    for (uint64_t i = 0; i < n; i++) {
        if (ld)
            ldouble_conv(p, to_ext);
        else
            swap(p, a);
        p += a;
        if (b != 0) {
            if (ld && basic == B_CLDOUBLE)
                ldouble_conv(p, to_ext);
            else
                swap(p, b);
            p += b;
        }
    }
    return p;
}

/* Converts count packed elements of dt at p; returns the end. */
static uint8_t *conv(MPI_Datatype dt, uint64_t count, uint8_t *p, int to_ext)
{
    if (dt->map.size == 0 || count == 0)
        return p;
    if (dt->basic != B_NONE)
        return conv_basic(dt->basic, count * dt->nbasic, p, to_ext);
    for (uint64_t k = 0; k < count; k++)
        for (uint64_t i = 0; i < dt->npieces; i++)
            p = conv(dt->pieces[i].old, dt->pieces[i].count, p, to_ext);
    return p;
}

static int check_rep(const char *datarep, const char *fn)
{
    if (datarep == NULL || strcmp(datarep, "external32") != 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                             "data representation \"%s\" is not \"external32\"",
                             datarep ? datarep : "(null)");
    return MPI_SUCCESS;
}

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    const char *fn = "MPI_Pack_external_size";
    int rc = check_rep(datarep, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    DT_QUERY(fn, datatype);
    CHECK_COUNT(incount, fn);
    if (size == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    *size = (MPI_Aint)((uint64_t)incount * datatype->map.size);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Pack_external_size)

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    const char *fn = "MPI_Pack_external";
    int rc = check_rep(datarep, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    DT_QUERY(fn, datatype);
    CHECK_COUNT(incount, fn);
    if (ivc_mpi_dt_null_buf(inbuf, incount, datatype))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_BUFFER, fn,
                             "NULL input buffer for %d elements", incount);
    if (position == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL position");
    ivc_data_t d;
    ivc_mpi_data(&d, inbuf, incount, datatype);
    if (outbuf == NULL && d.bytes > 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_BUFFER, fn, "NULL output buffer");
    if (*position < 0 || outsize < 0 || (uint64_t)*position > (uint64_t)outsize ||
        d.bytes > (uint64_t)(outsize - *position))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TRUNCATE, fn,
                             "%llu bytes do not fit at position %ld of a %ld-byte buffer",
                             (unsigned long long)d.bytes, (long)*position, (long)outsize);
    uint8_t *out = (uint8_t *)outbuf + *position;
    ivc_data_pack(&d, 0, out, d.bytes);
    conv(datatype, (uint64_t)incount, out, 1);
    *position += (MPI_Aint)d.bytes;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Pack_external)

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    const char *fn = "MPI_Unpack_external";
    int rc = check_rep(datarep, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    DT_QUERY(fn, datatype);
    CHECK_COUNT(outcount, fn);
    if (ivc_mpi_dt_null_buf(outbuf, outcount, datatype))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_BUFFER, fn,
                             "NULL output buffer for %d elements", outcount);
    if (position == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL position");
    ivc_data_t d;
    ivc_mpi_data(&d, outbuf, outcount, datatype);
    if (inbuf == NULL && d.bytes > 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_BUFFER, fn, "NULL input buffer");
    if (*position < 0 || insize < 0 || (uint64_t)*position > (uint64_t)insize ||
        d.bytes > (uint64_t)(insize - *position))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TRUNCATE, fn,
                             "%llu bytes are not there at position %ld of a %ld-byte buffer",
                             (unsigned long long)d.bytes, (long)*position, (long)insize);
    uint8_t *tmp = malloc(d.bytes ? d.bytes : 1);
    if (tmp == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    memcpy(tmp, (const uint8_t *)inbuf + *position, d.bytes);
    conv(datatype, (uint64_t)outcount, tmp, 0);
    ivc_data_unpack(&d, 0, tmp, d.bytes);
    free(tmp);
    *position += (MPI_Aint)d.bytes;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Unpack_external)
