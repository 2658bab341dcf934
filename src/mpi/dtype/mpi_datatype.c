/* Datatypes: predefined types and the constructors, all flattened into one element's list of
 * (displacement, length) blocks (base/ivc_data.h), which is what channels pack from and
 * unpack into. */
#include "dtype/dt_impl.h"

#include <complex.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Flattening refuses types whose one element would need more blocks than this. */
#define DT_MAX_BLOCKS (1ull << 26)

#define DT_DEFINE(NAME, low) struct ivc_mpi_dt_s ivc_obj_dt_##low;
IVC_MPI_DATATYPES(DT_DEFINE)
IVC_MPI_F_DATATYPES(DT_DEFINE) /* Fortran datatypes (src/binding/fortran) */
IVC_MPI_F_OPT_DATATYPES(DT_DEFINE)
IVC_MPI_CXX_DATATYPES(DT_DEFINE)
IVC_MPI_REMOVED_DATATYPES(DT_DEFINE)
#undef DT_DEFINE

static ivc_block_t predef_blocks[B_COUNT_KINDS][2];
static uint64_t predef_prefix[B_COUNT_KINDS][3];

static void predef(MPI_Datatype dt, const char *name, int basic, size_t size, size_t align,
                   size_t extent, size_t off2, size_t size2)
{
    memset(dt, 0, sizeof(*dt));
    dt->magic = DT_MAGIC;
    dt->predefined = 1;
    dt->committed = 1;
    dt->refcount = 1;
    dt->basic = basic;
    dt->nbasic = 1;
    dt->basic_size = size + size2;
    dt->align = (uint32_t)align;
    ivc_block_t *b = predef_blocks[basic];
    uint64_t *p = predef_prefix[basic];
    b[0] = (ivc_block_t){0, size};
    dt->map.nblocks = 1;
    if (size2 != 0) {
        if (off2 == size) {
            b[0].len += size2; /* adjacent: one block */
        } else {
            b[1] = (ivc_block_t){(int64_t)off2, size2};
            dt->map.nblocks = 2;
        }
    }
    p[0] = 0;
    p[1] = b[0].len;
    p[2] = b[0].len + (dt->map.nblocks == 2 ? b[1].len : 0);
    dt->map.blocks = b;
    dt->map.prefix = p;
    dt->map.size = size + size2;
    dt->map.extent = (int64_t)extent;
    dt->map.lb = 0;
    dt->map.contig = dt->map.nblocks == 1 && dt->map.size == extent;
    dt->true_lb = 0;
    dt->true_ub = (int64_t)(size2 ? off2 + size2 : size);
    dt->nelems = size2 ? 2 : 1;
    dt->vsize = size2 ? (uint32_t)size : 0;
    dt->combiner = MPI_COMBINER_NAMED;
    snprintf(dt->name, sizeof(dt->name), "%s", name);
}

/* MPI_LB / MPI_UB (removed in MPI-3.0): no data, size and extent 0; only
 * MPI_Type_create_struct gives them a meaning. */
static ivc_block_t marker_block;
static uint64_t marker_prefix[3];

static void marker(MPI_Datatype dt, const char *name)
{
    memset(dt, 0, sizeof(*dt));
    dt->magic = DT_MAGIC;
    dt->predefined = 1;
    dt->committed = 1;
    dt->refcount = 1;
    dt->basic = B_NONE;
    dt->align = 1;
    dt->map.blocks = &marker_block;
    dt->map.prefix = marker_prefix;
    dt->map.contig = 1;
    dt->combiner = MPI_COMBINER_NAMED;
    snprintf(dt->name, sizeof(dt->name), "%s", name);
}

#define PREDEF1(NAME, basic, T) predef(NAME, #NAME, basic, sizeof(T), _Alignof(T), sizeof(T), 0, 0)
#define PREDEF2(NAME, basic, S, T1, T2)                                                            \
    predef(NAME, #NAME, basic, sizeof(T1), _Alignof(S), sizeof(S), offsetof(S, i), sizeof(T2))

int ivc_mpi_dt_init(void)
{
    PREDEF1(MPI_CHAR, B_CHAR, char);
    PREDEF1(MPI_SIGNED_CHAR, B_SCHAR, signed char);
    PREDEF1(MPI_UNSIGNED_CHAR, B_UCHAR, unsigned char);
    PREDEF1(MPI_BYTE, B_BYTE, unsigned char);
    PREDEF1(MPI_WCHAR, B_WCHAR, wchar_t);
    PREDEF1(MPI_SHORT, B_SHORT, short);
    PREDEF1(MPI_UNSIGNED_SHORT, B_USHORT, unsigned short);
    PREDEF1(MPI_INT, B_INT, int);
    PREDEF1(MPI_UNSIGNED, B_UINT, unsigned);
    PREDEF1(MPI_LONG, B_LONG, long);
    PREDEF1(MPI_UNSIGNED_LONG, B_ULONG, unsigned long);
    PREDEF1(MPI_LONG_LONG_INT, B_LLONG, long long);
    PREDEF1(MPI_UNSIGNED_LONG_LONG, B_ULLONG, unsigned long long);
    PREDEF1(MPI_FLOAT, B_FLOAT, float);
    PREDEF1(MPI_DOUBLE, B_DOUBLE, double);
    PREDEF1(MPI_LONG_DOUBLE, B_LDOUBLE, long double);
    PREDEF1(MPI_C_BOOL, B_BOOL, bool);
    PREDEF1(MPI_INT8_T, B_I8, int8_t);
    PREDEF1(MPI_INT16_T, B_I16, int16_t);
    PREDEF1(MPI_INT32_T, B_I32, int32_t);
    PREDEF1(MPI_INT64_T, B_I64, int64_t);
    PREDEF1(MPI_UINT8_T, B_U8, uint8_t);
    PREDEF1(MPI_UINT16_T, B_U16, uint16_t);
    PREDEF1(MPI_UINT32_T, B_U32, uint32_t);
    PREDEF1(MPI_UINT64_T, B_U64, uint64_t);
    PREDEF1(MPI_AINT, B_AINT, MPI_Aint);
    PREDEF1(MPI_OFFSET, B_OFFSET, MPI_Offset);
    PREDEF1(MPI_COUNT, B_COUNT, MPI_Count);
    /* MPI_C_COMPLEX is the same handle (mpi.h): its name is the one that fits both, since
     * the standard calls MPI_C_FLOAT_COMPLEX a synonym of MPI_C_COMPLEX. */
    predef(MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX", B_CFLOAT, sizeof(float _Complex),
           _Alignof(float _Complex), sizeof(float _Complex), 0, 0);
    PREDEF1(MPI_C_DOUBLE_COMPLEX, B_CDOUBLE, double _Complex);
    PREDEF1(MPI_C_LONG_DOUBLE_COMPLEX, B_CLDOUBLE, long double _Complex);
    PREDEF1(MPI_PACKED, B_PACKED, unsigned char);
    /* C++ bool and std::complex<T> have the layouts of C's bool and T _Complex. */
    PREDEF1(MPI_CXX_BOOL, B_BOOL, bool);
    PREDEF1(MPI_CXX_FLOAT_COMPLEX, B_CFLOAT, float _Complex);
    PREDEF1(MPI_CXX_DOUBLE_COMPLEX, B_CDOUBLE, double _Complex);
    PREDEF1(MPI_CXX_LONG_DOUBLE_COMPLEX, B_CLDOUBLE, long double _Complex);
    PREDEF2(MPI_FLOAT_INT, B_FLOAT_INT, float_int_t, float, int);
    PREDEF2(MPI_DOUBLE_INT, B_DOUBLE_INT, double_int_t, double, int);
    PREDEF2(MPI_LONG_INT, B_LONG_INT, long_int_t, long, int);
    PREDEF2(MPI_2INT, B_2INT, int2_t, int, int);
    PREDEF2(MPI_SHORT_INT, B_SHORT_INT, short_int_t, short, int);
    PREDEF2(MPI_LONG_DOUBLE_INT, B_LDOUBLE_INT, ldouble_int_t, long double, int);
    /* Fortran datatypes (src/binding/fortran): gfortran's INTEGER is int, LOGICAL an int
     * holding 0 or 1, REAL float, DOUBLE PRECISION double, COMPLEX float _Complex. */
    PREDEF1(MPI_INTEGER, B_INT, int);
    PREDEF1(MPI_REAL, B_FLOAT, float);
    PREDEF1(MPI_DOUBLE_PRECISION, B_DOUBLE, double);
    PREDEF1(MPI_COMPLEX, B_CFLOAT, float _Complex);
    PREDEF1(MPI_DOUBLE_COMPLEX, B_CDOUBLE, double _Complex);
    PREDEF1(MPI_LOGICAL, B_INT, int);
    PREDEF1(MPI_CHARACTER, B_CHAR, char);
    PREDEF2(MPI_2INTEGER, B_2INT, int2_t, int, int);
    PREDEF2(MPI_2REAL, B_2FLOAT, float2_t, float, float);
    PREDEF2(MPI_2DOUBLE_PRECISION, B_2DOUBLE, double2_t, double, double);
    PREDEF1(MPI_INTEGER1, B_I8, int8_t);
    PREDEF1(MPI_INTEGER2, B_I16, int16_t);
    PREDEF1(MPI_INTEGER4, B_I32, int32_t);
    PREDEF1(MPI_INTEGER8, B_I64, int64_t);
    PREDEF1(MPI_REAL4, B_FLOAT, float);
    PREDEF1(MPI_REAL8, B_DOUBLE, double);
    PREDEF1(MPI_COMPLEX8, B_CFLOAT, float _Complex);
    PREDEF1(MPI_COMPLEX16, B_CDOUBLE, double _Complex);
    /* The optional 16-byte kinds (dtype.h): INTEGER(16), REAL(16) (binary128), COMPLEX(16). */
    PREDEF1(MPI_INTEGER16, B_I128, ivc_i128_t);
    PREDEF1(MPI_REAL16, B_FLOAT128, ivc_f128_t);
    PREDEF1(MPI_COMPLEX32, B_CFLOAT128, ivc_c128_t);
    marker(MPI_LB, "MPI_LB");
    marker(MPI_UB, "MPI_UB");
    return 0;
}

int ivc_mpi_dt_valid(MPI_Datatype dt)
{
    return dt != MPI_DATATYPE_NULL && dt->magic == DT_MAGIC;
}

void ivc_mpi_dt_retain(MPI_Datatype dt)
{
    if (!dt->predefined)
        dt->refcount++;
}

void ivc_mpi_dt_release(MPI_Datatype dt)
{
    if (dt->predefined || --dt->refcount > 0)
        return;
    dt->magic = 0;
    free(dt->map.blocks);
    free(dt->map.prefix);
    for (uint64_t i = 0; i < dt->npieces; i++)
        ivc_mpi_dt_release(dt->pieces[i].old);
    free(dt->pieces);
    dt_record_clear(dt);
    free(dt);
}

/* ---- envelope records ---- */

void dt_record_clear(MPI_Datatype dt)
{
    for (int i = 0; i < dt->nd; i++)
        ivc_mpi_dt_release(dt->types[i]);
    free(dt->ints);
    free(dt->aints);
    free(dt->types);
    free(dt->counts);
    dt->ints = NULL;
    dt->aints = NULL;
    dt->types = NULL;
    dt->counts = NULL;
    dt->ni = dt->na = dt->nd = dt->nc = 0;
}

int dt_record(MPI_Datatype dt, int combiner, int ni, int na, int nd)
{
    dt_record_clear(dt);
    dt->combiner = combiner;
    dt->ints = calloc(ni ? (size_t)ni : 1, sizeof(int));
    dt->aints = calloc(na ? (size_t)na : 1, sizeof(MPI_Aint));
    dt->types = calloc(nd ? (size_t)nd : 1, sizeof(MPI_Datatype));
    if (dt->ints == NULL || dt->aints == NULL || dt->types == NULL) {
        dt_record_clear(dt);
        return MPI_ERR_NO_MEM;
    }
    dt->ni = ni;
    dt->na = na;
    return MPI_SUCCESS;
}

int dt_record_c(MPI_Datatype dt, int combiner, int ni, int64_t nc, int nd)
{
    if (nc < 0 || nc > INT_MAX)
        return MPI_ERR_NO_MEM;
    int rc = dt_record(dt, combiner, ni, 0, nd);
    if (rc != MPI_SUCCESS)
        return rc;
    dt->counts = calloc(nc ? (size_t)nc : 1, sizeof(MPI_Count));
    if (dt->counts == NULL) {
        dt_record_clear(dt);
        return MPI_ERR_NO_MEM;
    }
    dt->nc = (int)nc;
    return MPI_SUCCESS;
}

void dt_record_type(MPI_Datatype dt, MPI_Datatype t)
{
    ivc_mpi_dt_retain(t);
    dt->types[dt->nd++] = t;
}

/* ---- constructors ---- */

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Whether consecutive copies of dt make one block: one block as long as the extent, so that
 * any number of them is flattened at once (MPI_Type_contiguous(INT_MAX, MPI_BYTE)). */
static int dt_runs(MPI_Datatype dt)
{
    return dt->map.nblocks == 1 && dt->map.extent > 0 &&
           dt->map.blocks[0].len == (uint64_t)dt->map.extent;
}

/* Bound on every displacement, extent, span and size dt_build meets or forms: a piece's
 * displacement, its copies' span, its size and its old type's bounds each stay below 2^60
 * in magnitude, so that the few of them dt_build adds cannot overflow an int64_t, and the
 * type's size stays below it too. Large-count constructors reach it; int ones hardly can. */
#define DT_MAX_SPAN (INT64_C(1) << 60)

/* |v|, also for INT64_MIN. */
static uint64_t mag64(int64_t v)
{
    return v < 0 ? -(uint64_t)v : (uint64_t)v;
}

/* Whether piece p keeps within DT_MAX_SPAN (see above). */
static int piece_fits(const dt_piece_t *p)
{
    const uint64_t lim = (uint64_t)DT_MAX_SPAN;
    MPI_Datatype o = p->old;
    uint64_t span, size;
    if (p->count >= lim || mag64(p->disp) >= lim || mag64(o->map.extent) >= lim ||
        mag64(o->map.lb) >= lim || mag64(o->true_lb) >= lim || mag64(o->true_ub) >= lim)
        return 0;
    if (__builtin_mul_overflow(p->count, mag64(o->map.extent), &span) ||
        __builtin_mul_overflow(p->count, o->map.size, &size))
        return 0;
    return span < lim && size < lim;
}

int dt_build(const dt_piece_t *pieces, size_t npieces, int is_struct, MPI_Datatype *out)
{
    uint64_t nblocks = 0, total = 0;
    for (size_t i = 0; i < npieces; i++) {
        const dt_piece_t *p = &pieces[i];
        if (p->count != 0) {
            if (!piece_fits(p))
                return MPI_ERR_COUNT;
            total += p->count * p->old->map.size;
            if (total >= (uint64_t)DT_MAX_SPAN)
                return MPI_ERR_COUNT;
        }
        if (p->count != 0 && dt_runs(p->old)) {
            nblocks += 1;
            continue;
        }
        if (p->count != 0 && p->old->map.nblocks > DT_MAX_BLOCKS / p->count)
            return MPI_ERR_NO_MEM;
        nblocks += p->count * p->old->map.nblocks;
        if (nblocks > DT_MAX_BLOCKS)
            return MPI_ERR_NO_MEM;
    }
    MPI_Datatype dt = calloc(1, sizeof(*dt));
    ivc_block_t *blocks = malloc((nblocks ? nblocks : 1) * sizeof(*blocks));
    dt_piece_t *kept = malloc((npieces ? npieces : 1) * sizeof(*kept));
    if (dt == NULL || blocks == NULL || kept == NULL) {
        free(dt);
        free(blocks);
        free(kept);
        return MPI_ERR_NO_MEM;
    }
    uint64_t n = 0, size = 0, nbasic = 0, nelems = 0, nkept = 0;
    int64_t lb = INT64_MAX, ub = INT64_MIN, tlb = INT64_MAX, tub = INT64_MIN;
    int basic = -2; /* not yet known */
    uint64_t basic_size = 0;
    uint32_t align = 1;
    for (size_t i = 0; i < npieces; i++) {
        const dt_piece_t *p = &pieces[i];
        MPI_Datatype old = p->old;
        if (p->count == 0)
            continue;
        int64_t ext = old->map.extent;
        int64_t first = p->disp, last = p->disp + (int64_t)(p->count - 1) * ext;
        lb = min64(lb, min64(first, last) + old->map.lb);
        ub = max64(ub, max64(first, last) + old->map.lb + ext);
        if (old->map.size != 0) {
            tlb = min64(tlb, min64(first, last) + old->true_lb);
            tub = max64(tub, max64(first, last) + old->true_ub);
        }
        size += p->count * old->map.size;
        nbasic += p->count * old->nbasic;
        nelems += p->count * old->nelems;
        kept[nkept++] = *p;
        if (old->align > align)
            align = old->align;
        if (basic == -2) {
            basic = old->basic;
            basic_size = old->basic_size;
        } else if (basic != old->basic) {
            basic = B_NONE;
        }
        if (dt_runs(old)) {
            int64_t d = p->disp + old->map.blocks[0].disp;
            uint64_t len = p->count * old->map.blocks[0].len;
            if (n > 0 && blocks[n - 1].disp + (int64_t)blocks[n - 1].len == d)
                blocks[n - 1].len += len;
            else
                blocks[n++] = (ivc_block_t){d, len};
            continue;
        }
        for (uint64_t k = 0; k < p->count; k++) {
            int64_t base = p->disp + (int64_t)k * ext;
            for (uint64_t b = 0; b < old->map.nblocks; b++) {
                int64_t d = base + old->map.blocks[b].disp;
                uint64_t len = old->map.blocks[b].len;
                if (len == 0)
                    continue;
                if (n > 0 && blocks[n - 1].disp + (int64_t)blocks[n - 1].len == d)
                    blocks[n - 1].len += len;
                else
                    blocks[n++] = (ivc_block_t){d, len};
            }
        }
    }
    if (lb == INT64_MAX) { /* no elements at all */
        lb = ub = 0;
    }
    if (tlb == INT64_MAX)
        tlb = tub = 0;
    int64_t extent = ub - lb;
    if (is_struct && align > 1 && extent % align != 0)
        extent += align - extent % align;
    uint64_t *prefix = malloc((n + 1) * sizeof(*prefix));
    if (prefix == NULL) {
        free(dt);
        free(blocks);
        free(kept);
        return MPI_ERR_NO_MEM;
    }
    for (uint64_t i = 0; i < nkept; i++)
        ivc_mpi_dt_retain(kept[i].old);
    dt->pieces = kept;
    dt->npieces = nkept;
    dt->nelems = nelems;
    prefix[0] = 0;
    for (uint64_t b = 0; b < n; b++)
        prefix[b + 1] = prefix[b] + blocks[b].len;
    dt->magic = DT_MAGIC;
    dt->refcount = 1;
    dt->basic = basic < 0 ? B_NONE : basic;
    dt->basic_size = dt->basic == B_NONE ? 0 : basic_size;
    dt->nbasic = nbasic;
    dt->align = align;
    dt->true_lb = tlb;
    dt->true_ub = tub;
    dt->map.size = size;
    dt->map.extent = extent;
    dt->map.lb = lb;
    dt->map.nblocks = n;
    dt->map.blocks = blocks;
    dt->map.prefix = prefix;
    dt->map.contig =
        n == 1 && blocks[0].disp == 0 && blocks[0].len == size && extent == (int64_t)size;
    if (n == 0 && size == 0 && extent == 0)
        dt->map.contig = 1;
    *out = dt;
    return MPI_SUCCESS;
}

/* The entry checks of a constructor: a valid old type, somewhere to put the new one. */
static int check_old(MPI_Datatype old, const MPI_Datatype *newtype, const char *fn)
{
    if (!ivc_mpi_dt_valid(old))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "invalid datatype");
    CHECK_NULL_ARG(MPI_COMM_WORLD, newtype, fn, "newtype");
    return MPI_SUCCESS;
}

/* Ends a constructor: raises rc, or hands dt out. */
static int finish(int rc, const char *fn, MPI_Datatype dt, MPI_Datatype *newtype)
{
    if (rc != MPI_SUCCESS) {
        if (dt != NULL)
            ivc_mpi_dt_release(dt);
        return ivc_mpi_raise(MPI_COMM_WORLD, rc, fn, "%s",
                             rc == MPI_ERR_COUNT ? "the type's size or bounds reach 2^60 bytes"
                                                 : "cannot build the datatype");
    }
    *newtype = dt;
    return MPI_SUCCESS;
}

int dt_contiguous_make(int64_t count, MPI_Datatype oldtype, int large, MPI_Datatype *newtype,
                       const char *fn)
{
    if (count < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative count %lld",
                             (long long)count);
    int rc = check_old(oldtype, newtype, fn);
    if (rc)
        return rc;
    dt_piece_t p = {0, (uint64_t)count, oldtype};
    MPI_Datatype dt = NULL;
    rc = dt_build(&p, 1, 0, &dt);
    if (rc == MPI_SUCCESS)
        rc = large ? dt_record_c(dt, MPI_COMBINER_CONTIGUOUS, 0, 1, 1)
                   : dt_record(dt, MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
    if (rc == MPI_SUCCESS) {
        if (large)
            dt->counts[0] = count;
        else
            dt->ints[0] = (int)count;
        dt_record_type(dt, oldtype);
    }
    return finish(rc, fn, dt, newtype);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return dt_contiguous_make(count, oldtype, 0, newtype, "MPI_Type_contiguous");
}
IVC_MPI_WEAK(Type_contiguous)

/* Vector family: count blocks of blocklength copies of old, `stride` bytes apart (no
 * record). Blocks that abut (stride = blocklength extents) are one piece, whatever the
 * count (MPI_Type_vector_c(2^32, 1, 1, MPI_CHAR) describes one block); otherwise a count
 * above the flattening limit is refused before its pieces are allocated. Returns
 * MPI_SUCCESS, MPI_ERR_COUNT (beyond DT_MAX_SPAN) or MPI_ERR_NO_MEM. */
static int hvector(int64_t count, int64_t blocklength, int64_t stride, MPI_Datatype oldtype,
                   MPI_Datatype *out)
{
    int64_t blen, n;
    if (count == 0 || blocklength == 0)
        return dt_build(NULL, 0, 0, out);
    if (count == 1) {
        dt_piece_t one = {0, (uint64_t)blocklength, oldtype};
        return dt_build(&one, 1, 0, out);
    }
    if (!__builtin_mul_overflow(blocklength, oldtype->map.extent, &blen) && blen == stride) {
        if (__builtin_mul_overflow(count, blocklength, &n))
            return MPI_ERR_COUNT;
        dt_piece_t run = {0, (uint64_t)n, oldtype};
        return dt_build(&run, 1, 0, out);
    }
    if ((uint64_t)count > DT_MAX_BLOCKS)
        return MPI_ERR_NO_MEM;
    if (__builtin_mul_overflow(count - 1, stride, &n))
        return MPI_ERR_COUNT;
    dt_piece_t *p = malloc((size_t)count * sizeof(*p));
    if (p == NULL)
        return MPI_ERR_NO_MEM;
    for (int64_t i = 0; i < count; i++)
        p[i] = (dt_piece_t){i * stride, (uint64_t)blocklength, oldtype};
    int rc = dt_build(p, (size_t)count, 0, out);
    free(p);
    return rc;
}

int dt_vector_make(int64_t count, int64_t blocklength, int64_t stride, int bytes,
                   MPI_Datatype oldtype, int large, MPI_Datatype *newtype, const char *fn)
{
    if (count < 0 || blocklength < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative count %lld",
                             (long long)(count < 0 ? count : blocklength));
    int rc = check_old(oldtype, newtype, fn);
    if (rc)
        return rc;
    int64_t bstride = stride;
    if (!bytes && __builtin_mul_overflow(stride, oldtype->map.extent, &bstride))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn,
                             "a stride of %lld extents of %lld bytes does not fit MPI_Aint",
                             (long long)stride, (long long)oldtype->map.extent);
    int combiner = bytes ? MPI_COMBINER_HVECTOR : MPI_COMBINER_VECTOR;
    MPI_Datatype dt = NULL;
    rc = hvector(count, blocklength, bstride, oldtype, &dt);
    if (rc == MPI_SUCCESS)
        rc = large ? dt_record_c(dt, combiner, 0, 3, 1)
                   : dt_record(dt, combiner, bytes ? 2 : 3, bytes ? 1 : 0, 1);
    if (rc == MPI_SUCCESS && large) {
        dt->counts[0] = count;
        dt->counts[1] = blocklength;
        dt->counts[2] = stride;
    } else if (rc == MPI_SUCCESS) {
        dt->ints[0] = (int)count;
        dt->ints[1] = (int)blocklength;
        if (bytes)
            dt->aints[0] = stride;
        else
            dt->ints[2] = (int)stride;
    }
    if (rc == MPI_SUCCESS)
        dt_record_type(dt, oldtype);
    return finish(rc, fn, dt, newtype);
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    return dt_vector_make(count, blocklength, stride, 0, oldtype, 0, newtype, "MPI_Type_vector");
}
IVC_MPI_WEAK(Type_vector)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    return dt_vector_make(count, blocklength, stride, 1, oldtype, 0, newtype,
                          "MPI_Type_create_hvector");
}
IVC_MPI_WEAK(Type_create_hvector)

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    return dt_vector_make(count, blocklength, stride, 1, oldtype, 0, newtype, "MPI_Type_hvector");
}
IVC_MPI_WEAK(Type_hvector)

/* Blocks of blocklens[k] (or `blocklen` when there is no array) copies of old at disps[k]
 * extents of old, or bytes when `bytes` (no record). Returns MPI_SUCCESS, MPI_ERR_ARG (a
 * negative block length), MPI_ERR_COUNT (beyond DT_MAX_SPAN) or MPI_ERR_NO_MEM. */
static int indexed_build(int64_t count, dt_arr_t blocklens, int64_t blocklen, dt_arr_t disps,
                         int bytes, MPI_Datatype oldtype, MPI_Datatype *out)
{
    if ((uint64_t)count > SIZE_MAX / sizeof(dt_piece_t))
        return MPI_ERR_NO_MEM;
    dt_piece_t *p = malloc((count ? (size_t)count : 1) * sizeof(*p));
    if (p == NULL)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    for (int64_t k = 0; k < count && rc == MPI_SUCCESS; k++) {
        int64_t bl = dt_arr_null(blocklens) ? blocklen : dt_arr_at(blocklens, k);
        int64_t d = dt_arr_at(disps, k);
        if (bl < 0)
            rc = MPI_ERR_ARG;
        else if (!bytes && __builtin_mul_overflow(d, oldtype->map.extent, &d))
            rc = MPI_ERR_COUNT;
        p[k] = (dt_piece_t){d, (uint64_t)bl, oldtype};
    }
    if (rc == MPI_SUCCESS)
        rc = dt_build(p, (size_t)count, 0, out);
    free(p);
    return rc;
}

int dt_hindexed(int count, const int *blocklens, int blocklen, const int *disps,
                const MPI_Aint *bdisps, MPI_Datatype oldtype, MPI_Datatype *out)
{
    return indexed_build(count, DT_ARR_I(blocklens), blocklen,
                         bdisps ? DT_ARR_A(bdisps) : DT_ARR_I(disps), bdisps != NULL, oldtype, out);
}

int dt_indexed_make(int64_t count, dt_arr_t blocklens, int64_t blocklen, dt_arr_t disps, int bytes,
                    MPI_Datatype oldtype, int combiner, int large, MPI_Datatype *newtype,
                    const char *fn)
{
    if (count < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative count %lld",
                             (long long)count);
    int rc = check_old(oldtype, newtype, fn);
    if (rc)
        return rc;
    if (count > 0 && ((dt_arr_null(blocklens) && blocklen < 0) || dt_arr_null(disps)))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                             "NULL block length or displacement array");
    /* The envelope: count, then the block lengths (one for the _block forms), then the
     * displacements; in the integers and the addresses, or all in the large counts. */
    int64_t nbl = blocklen >= 0 ? 1 : count;
    if (count > INT_MAX || 1 + nbl + count > INT_MAX)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn,
                             "%lld blocks are more than a datatype's record holds",
                             (long long)count);
    MPI_Datatype dt = NULL;
    rc = indexed_build(count, blocklens, blocklen, disps, bytes, oldtype, &dt);
    if (rc == MPI_ERR_ARG)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "negative block length");
    if (rc == MPI_SUCCESS)
        rc = large ? dt_record_c(dt, combiner, 0, 1 + nbl + count, 1)
                   : dt_record(dt, combiner, (int)(1 + nbl + (bytes ? 0 : count)),
                               bytes ? (int)count : 0, 1);
    if (rc == MPI_SUCCESS) {
        for (int64_t k = 0; k < 1 + nbl + count; k++) {
            int64_t v = k == 0     ? count
                        : k <= nbl ? (blocklen >= 0 ? blocklen : dt_arr_at(blocklens, k - 1))
                                   : dt_arr_at(disps, k - 1 - nbl);
            if (large)
                dt->counts[k] = v;
            else if (k <= nbl || !bytes)
                dt->ints[k] = (int)v;
            else
                dt->aints[k - 1 - nbl] = v;
        }
        dt_record_type(dt, oldtype);
    }
    return finish(rc, fn, dt, newtype);
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    return dt_indexed_make(count, DT_ARR_I(array_of_blocklengths), -1,
                           DT_ARR_I(array_of_displacements), 0, oldtype, MPI_COMBINER_INDEXED, 0,
                           newtype, "MPI_Type_indexed");
}
IVC_MPI_WEAK(Type_indexed)

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return dt_indexed_make(count, DT_ARR_I(array_of_blocklengths), -1,
                           DT_ARR_A(array_of_displacements), 1, oldtype, MPI_COMBINER_HINDEXED, 0,
                           newtype, "MPI_Type_create_hindexed");
}
IVC_MPI_WEAK(Type_create_hindexed)

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_indexed_block";
    if (blocklength < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "negative block length");
    return dt_indexed_make(count, DT_ARR_I(NULL), blocklength, DT_ARR_I(array_of_displacements), 0,
                           oldtype, MPI_COMBINER_INDEXED_BLOCK, 0, newtype, fn);
}
IVC_MPI_WEAK(Type_create_indexed_block)

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_hindexed_block";
    if (blocklength < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "negative block length");
    return dt_indexed_make(count, DT_ARR_I(NULL), blocklength, DT_ARR_A(array_of_displacements), 1,
                           oldtype, MPI_COMBINER_HINDEXED_BLOCK, 0, newtype, fn);
}
IVC_MPI_WEAK(Type_create_hindexed_block)

int dt_struct_make(int64_t count, dt_arr_t blocklens, dt_arr_t disps, const MPI_Datatype types[],
                   int large, MPI_Datatype *newtype, const char *fn)
{
    if (count < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative count %lld",
                             (long long)count);
    if (count > 0 && (dt_arr_null(blocklens) || dt_arr_null(disps) || types == NULL))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL array");
    CHECK_NULL_ARG(MPI_COMM_WORLD, newtype, fn, "newtype");
    if (count > (INT_MAX - 1) / 2)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn,
                             "%lld blocks are more than a datatype's record holds",
                             (long long)count);
    dt_piece_t *p = calloc(count ? (size_t)count : 1, sizeof(*p));
    if (p == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    int any_resized = 0, has_lb = 0, has_ub = 0;
    size_t n = 0;
    MPI_Aint lb = 0, ub = 0;
    for (int64_t i = 0; i < count; i++) {
        MPI_Datatype t = types[i];
        int64_t bl = dt_arr_at(blocklens, i);
        if (!ivc_mpi_dt_valid(t) || bl < 0) {
            free(p);
            return ivc_mpi_raise(MPI_COMM_WORLD, bl < 0 ? MPI_ERR_ARG : MPI_ERR_TYPE, fn,
                                 "invalid block %lld", (long long)i);
        }
        /* MPI-1's markers: the lowest MPI_LB is the type's lb, the highest MPI_UB its ub. */
        MPI_Aint d = dt_arr_at(disps, i);
        if (t == MPI_LB || t == MPI_UB) {
            if (t == MPI_LB && (!has_lb || d < lb))
                lb = d, has_lb = 1;
            if (t == MPI_UB && (!has_ub || d > ub))
                ub = d, has_ub = 1;
            continue;
        }
        any_resized |= t->resized;
        p[n++] = (dt_piece_t){d, (uint64_t)bl, t};
    }
    MPI_Datatype dt = NULL;
    int rc = dt_build(p, n, !any_resized && !has_lb && !has_ub, &dt);
    free(p);
    if (rc == MPI_SUCCESS && (has_lb || has_ub)) {
        if (!has_lb)
            lb = (MPI_Aint)dt->map.lb;
        if (!has_ub)
            ub = (MPI_Aint)(dt->map.lb + dt->map.extent);
        dt->map.lb = lb;
        dt->map.extent = ub - lb;
        dt->resized = 1;
        dt->map.contig = dt->map.nblocks == 1 && dt->map.blocks[0].disp == 0 && lb == 0 &&
                         ub - lb == (int64_t)dt->map.size;
        if (dt->map.nblocks == 0 && dt->map.size == 0 && ub == lb)
            dt->map.contig = 1;
    }
    /* The envelope: count and the block lengths in the integers, the displacements in the
     * addresses; or all three in the large counts. */
    if (rc == MPI_SUCCESS)
        rc = large ? dt_record_c(dt, MPI_COMBINER_STRUCT, 0, 1 + 2 * count, (int)count)
                   : dt_record(dt, MPI_COMBINER_STRUCT, (int)count + 1, (int)count, (int)count);
    if (rc == MPI_SUCCESS) {
        if (large)
            dt->counts[0] = count;
        else
            dt->ints[0] = (int)count;
        for (int64_t i = 0; i < count; i++) {
            if (large) {
                dt->counts[1 + i] = dt_arr_at(blocklens, i);
                dt->counts[1 + count + i] = dt_arr_at(disps, i);
            } else {
                dt->ints[1 + i] = (int)dt_arr_at(blocklens, i);
                dt->aints[i] = dt_arr_at(disps, i);
            }
            dt_record_type(dt, types[i]);
        }
    }
    return finish(rc, fn, dt, newtype);
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return dt_struct_make(count, DT_ARR_I(array_of_blocklengths), DT_ARR_A(array_of_displacements),
                          array_of_types, 0, newtype, "MPI_Type_create_struct");
}
IVC_MPI_WEAK(Type_create_struct)

int dt_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *out)
{
    dt_piece_t p = {0, 1, oldtype};
    MPI_Datatype dt = NULL;
    int rc = dt_build(&p, 1, 0, &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    dt->map.lb = lb;
    dt->map.extent = extent;
    dt->resized = 1;
    dt->map.contig = dt->map.nblocks == 1 && dt->map.blocks[0].disp == 0 && lb == 0 &&
                     extent == (int64_t)dt->map.size;
    if (dt->map.nblocks == 0 && dt->map.size == 0 && extent == 0)
        dt->map.contig = 1;
    *out = dt;
    return MPI_SUCCESS;
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_resized";
    int rc = check_old(oldtype, newtype, fn);
    if (rc)
        return rc;
    MPI_Datatype dt = NULL;
    rc = dt_resized(oldtype, lb, extent, &dt);
    if (rc == MPI_SUCCESS && (rc = dt_record(dt, MPI_COMBINER_RESIZED, 0, 2, 1)) == 0) {
        dt->aints[0] = lb;
        dt->aints[1] = extent;
        dt_record_type(dt, oldtype);
    }
    return finish(rc, fn, dt, newtype);
}
IVC_MPI_WEAK(Type_create_resized)

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_dup";
    int rc = check_old(oldtype, newtype, fn);
    if (rc)
        return rc;
    MPI_Datatype dt = NULL;
    rc = dt_resized(oldtype, oldtype->map.lb, oldtype->map.extent, &dt);
    if (rc == MPI_SUCCESS && (rc = dt_record(dt, MPI_COMBINER_DUP, 0, 0, 1)) == 0) {
        dt->resized = oldtype->resized;
        dt->committed = oldtype->committed;
        dt->align = oldtype->align;
        dt_record_type(dt, oldtype);
    }
    rc = finish(rc, fn, dt, newtype);
    /* A duplicate runs the attributes' copy callbacks (comm/mpi_attr.c). */
    if (rc == MPI_SUCCESS && (rc = ivc_mpi_type_attr_copy(oldtype, dt)) != MPI_SUCCESS) {
        ivc_mpi_type_attr_delete_all(dt);
        ivc_mpi_dt_release(dt);
        *newtype = MPI_DATATYPE_NULL;
        return ivc_mpi_raise(MPI_COMM_WORLD, rc, fn, "an attribute's copy callback failed");
    }
    return rc;
}
IVC_MPI_WEAK(Type_dup)

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    CHECK_NULL_ARG(MPI_COMM_WORLD, datatype, "MPI_Type_commit", "datatype pointer");
    if (!ivc_mpi_dt_valid(*datatype))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_commit", "invalid datatype");
    (*datatype)->committed = 1;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_commit)

int PMPI_Type_free(MPI_Datatype *datatype)
{
    CHECK_NULL_ARG(MPI_COMM_WORLD, datatype, "MPI_Type_free", "datatype pointer");
    if (!ivc_mpi_dt_valid(*datatype))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_free", "invalid datatype");
    if ((*datatype)->predefined)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_free",
                             "%s is predefined and cannot be freed", (*datatype)->name);
    int rc = ivc_mpi_type_attr_delete_all(*datatype); /* comm/mpi_attr.c */
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(MPI_COMM_WORLD, rc, "MPI_Type_free",
                             "an attribute's delete callback failed");
    ivc_mpi_dt_release(*datatype);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_free)

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    DT_QUERY("MPI_Type_size", datatype);
    CHECK_NULL_ARG(MPI_COMM_WORLD, size, "MPI_Type_size", "size");
    *size = datatype->map.size > INT32_MAX ? MPI_UNDEFINED : (int)datatype->map.size;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_size)

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    DT_QUERY("MPI_Type_size_x", datatype);
    CHECK_NULL_ARG(MPI_COMM_WORLD, size, "MPI_Type_size_x", "size");
    *size = (MPI_Count)datatype->map.size;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_size_x)

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    DT_QUERY("MPI_Type_get_extent", datatype);
    CHECK_NULL_ARG(MPI_COMM_WORLD, lb, "MPI_Type_get_extent", "lb");
    CHECK_NULL_ARG(MPI_COMM_WORLD, extent, "MPI_Type_get_extent", "extent");
    *lb = datatype->map.lb;
    *extent = datatype->map.extent;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_get_extent)

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    DT_QUERY("MPI_Type_get_extent_x", datatype);
    CHECK_NULL_ARG(MPI_COMM_WORLD, lb, "MPI_Type_get_extent_x", "lb");
    CHECK_NULL_ARG(MPI_COMM_WORLD, extent, "MPI_Type_get_extent_x", "extent");
    *lb = datatype->map.lb;
    *extent = datatype->map.extent;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_get_extent_x)

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    DT_QUERY("MPI_Type_get_true_extent", datatype);
    CHECK_NULL_ARG(MPI_COMM_WORLD, true_lb, "MPI_Type_get_true_extent", "true_lb");
    CHECK_NULL_ARG(MPI_COMM_WORLD, true_extent, "MPI_Type_get_true_extent", "true_extent");
    *true_lb = datatype->true_lb;
    *true_extent = datatype->true_ub - datatype->true_lb;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_get_true_extent)

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    /* location may be anything, NULL (MPI_BOTTOM) included: only its value is taken. */
    CHECK_NULL_ARG(MPI_COMM_WORLD, address, "MPI_Get_address", "address");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Get_address)

/* ---- Pack / Unpack ---- */

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    DT_QUERY("MPI_Pack_size", datatype);
    CHECK_COUNT(incount, "MPI_Pack_size");
    CHECK_NULL_ARG(MPI_COMM_WORLD, size, "MPI_Pack_size", "size");
    uint64_t bytes = (uint64_t)incount * datatype->map.size;
    *size = bytes > INT32_MAX ? MPI_UNDEFINED : (int)bytes;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Pack_size)

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    const char *fn = "MPI_Pack";
    DT_QUERY(fn, datatype);
    CHECK_COUNT(incount, fn);
    if (ivc_mpi_dt_null_buf(inbuf, incount, datatype))
        return ivc_mpi_raise(comm, MPI_ERR_BUFFER, fn, "NULL input buffer for %d elements",
                             incount);
    CHECK_NULL_ARG(comm, position, fn, "position");
    ivc_data_t d;
    ivc_mpi_data(&d, inbuf, incount, datatype);
    if (outbuf == NULL && d.bytes > 0)
        return ivc_mpi_raise(comm, MPI_ERR_BUFFER, fn, "NULL output buffer");
    if (*position < 0 || (uint64_t)*position + d.bytes > (uint64_t)outsize)
        return ivc_mpi_raise(comm, MPI_ERR_TRUNCATE, "MPI_Pack",
                             "%llu bytes do not fit at position %d of a %d-byte buffer",
                             (unsigned long long)d.bytes, *position, outsize);
    ivc_data_pack(&d, 0, (char *)outbuf + *position, d.bytes);
    *position += (int)d.bytes;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Pack)

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    const char *fn = "MPI_Unpack";
    DT_QUERY(fn, datatype);
    CHECK_COUNT(outcount, fn);
    if (ivc_mpi_dt_null_buf(outbuf, outcount, datatype))
        return ivc_mpi_raise(comm, MPI_ERR_BUFFER, fn, "NULL output buffer for %d elements",
                             outcount);
    CHECK_NULL_ARG(comm, position, fn, "position");
    ivc_data_t d;
    ivc_mpi_data(&d, outbuf, outcount, datatype);
    if (inbuf == NULL && d.bytes > 0)
        return ivc_mpi_raise(comm, MPI_ERR_BUFFER, fn, "NULL input buffer");
    if (*position < 0 || (uint64_t)*position + d.bytes > (uint64_t)insize)
        return ivc_mpi_raise(comm, MPI_ERR_TRUNCATE, "MPI_Unpack",
                             "%llu bytes are not there at position %d of a %d-byte buffer",
                             (unsigned long long)d.bytes, *position, insize);
    ivc_data_unpack(&d, 0, (const char *)inbuf + *position, d.bytes);
    *position += (int)d.bytes;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Unpack)
