/* Datatype queries: envelopes and contents, sizes and extents in MPI_Count, counting basic
 * elements (MPI_Get_elements), matching predefined types (Type_match_size, the Fortran 90
 * parameterized types, Type_get_value_index) and address arithmetic. */
#include "dtype/dt_impl.h"

#include <limits.h>
#include <stdlib.h>

/* ---- envelopes ---- */

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    const char *fn = "MPI_Type_get_envelope";
    DT_QUERY(fn, datatype);
    if (num_integers == NULL || num_addresses == NULL || num_datatypes == NULL || combiner == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    if (datatype->nc > 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, fn,
                             "the type was made with a large count: use MPI_Type_get_envelope_c");
    *num_integers = datatype->ni;
    *num_addresses = datatype->na;
    *num_datatypes = datatype->nd;
    *combiner = datatype->combiner;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_get_envelope)

/* Only a type made by a `_c` constructor with a value that does not fit an int has large
 * counts (dt_large.c). */
int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses, MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner)
{
    const char *fn = "MPI_Type_get_envelope_c";
    DT_QUERY(fn, datatype);
    if (num_integers == NULL || num_addresses == NULL || num_large_counts == NULL ||
        num_datatypes == NULL || combiner == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    *num_integers = datatype->ni;
    *num_addresses = datatype->na;
    *num_large_counts = datatype->nc;
    *num_datatypes = datatype->nd;
    *combiner = datatype->combiner;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_get_envelope_c)

/* Copies the record out; derived types handed out are retained (the caller frees them). */
/* max_c < 0: the int form, which cannot show large counts. */
static int contents(MPI_Datatype dt, MPI_Count max_i, MPI_Count max_a, MPI_Count max_c,
                    MPI_Count max_d, int *ints, MPI_Aint *aints, MPI_Count *counts,
                    MPI_Datatype *types, const char *fn)
{
    DT_QUERY(fn, dt);
    if (dt->combiner == MPI_COMBINER_NAMED)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, fn,
                             "%s is a named type: it has no contents", dt->name);
    if (max_c < 0 && dt->nc > 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, fn,
                             "the type was made with a large count: use MPI_Type_get_contents_c");
    if (max_i < dt->ni || max_a < dt->na || max_d < dt->nd || (max_c >= 0 && max_c < dt->nc))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                             "arrays too small: %d integers, %d addresses, %d large counts, "
                             "%d datatypes needed",
                             dt->ni, dt->na, dt->nc, dt->nd);
    if ((dt->ni > 0 && ints == NULL) || (dt->na > 0 && aints == NULL) ||
        (dt->nd > 0 && types == NULL) || (dt->nc > 0 && counts == NULL))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL array");
    for (int i = 0; i < dt->nc; i++)
        counts[i] = dt->counts[i];
    for (int i = 0; i < dt->ni; i++)
        ints[i] = dt->ints[i];
    for (int i = 0; i < dt->na; i++)
        aints[i] = dt->aints[i];
    for (int i = 0; i < dt->nd; i++) {
        ivc_mpi_dt_retain(dt->types[i]);
        types[i] = dt->types[i];
    }
    return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    return contents(datatype, max_integers, max_addresses, -1, max_datatypes, array_of_integers,
                    array_of_addresses, NULL, array_of_datatypes, "MPI_Type_get_contents");
}
IVC_MPI_WEAK(Type_get_contents)

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                             MPI_Count max_addresses, MPI_Count max_large_counts,
                             MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[])
{
    if (max_large_counts < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_get_contents_c",
                             "negative max_large_counts");
    return contents(datatype, max_integers, max_addresses, max_large_counts, max_datatypes,
                    array_of_integers, array_of_addresses, array_of_large_counts,
                    array_of_datatypes, "MPI_Type_get_contents_c");
}
IVC_MPI_WEAK(Type_get_contents_c)

/* ---- sizes and extents in MPI_Count ---- */

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    DT_QUERY("MPI_Type_size_c", datatype);
    CHECK_NULL_ARG(MPI_COMM_WORLD, size, "MPI_Type_size_c", "size");
    *size = (MPI_Count)datatype->map.size;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_size_c)

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    DT_QUERY("MPI_Type_get_extent_c", datatype);
    CHECK_NULL_ARG(MPI_COMM_WORLD, lb, "MPI_Type_get_extent_c", "lb");
    CHECK_NULL_ARG(MPI_COMM_WORLD, extent, "MPI_Type_get_extent_c", "extent");
    *lb = datatype->map.lb;
    *extent = datatype->map.extent;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_get_extent_c)

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    DT_QUERY("MPI_Type_get_true_extent_x", datatype);
    CHECK_NULL_ARG(MPI_COMM_WORLD, true_lb, "MPI_Type_get_true_extent_x", "true_lb");
    CHECK_NULL_ARG(MPI_COMM_WORLD, true_extent, "MPI_Type_get_true_extent_x", "true_extent");
    *true_lb = datatype->true_lb;
    *true_extent = datatype->true_ub - datatype->true_lb;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_get_true_extent_x)

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    DT_QUERY("MPI_Type_get_true_extent_c", datatype);
    CHECK_NULL_ARG(MPI_COMM_WORLD, true_lb, "MPI_Type_get_true_extent_c", "true_lb");
    CHECK_NULL_ARG(MPI_COMM_WORLD, true_extent, "MPI_Type_get_true_extent_c", "true_extent");
    *true_lb = datatype->true_lb;
    *true_extent = datatype->true_ub - datatype->true_lb;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_get_true_extent_c)

/* ---- basic elements ---- */

/* Elements in the first `rem` bytes of one element of dt (rem < its size), or -1. */
static int64_t partial(MPI_Datatype dt, uint64_t rem)
{
    if (rem == 0)
        return 0;
    if (dt->predefined)
        return dt->vsize != 0 && rem == dt->vsize ? 1 : -1;
    int64_t n = 0;
    for (uint64_t i = 0; i < dt->npieces; i++) {
        const dt_piece_t *p = &dt->pieces[i];
        uint64_t s = p->old->map.size;
        if (s == 0)
            continue;
        if (rem >= p->count * s) {
            n += (int64_t)(p->count * p->old->nelems);
            rem -= p->count * s;
            if (rem == 0)
                return n;
            continue;
        }
        n += (int64_t)(rem / s * p->old->nelems);
        int64_t r = partial(p->old, rem % s);
        return r < 0 ? -1 : n + r;
    }
    return -1; /* not reached: rem < size */
}

int64_t ivc_mpi_dt_elements(MPI_Datatype dt, uint64_t bytes)
{
    uint64_t size = dt->map.size;
    if (size == 0)
        return bytes == 0 ? 0 : -1;
    /* One basic kind of one size throughout: a division. */
    if (dt->basic != B_NONE && dt->vsize == 0 && dt->basic_size != 0 &&
        dt->nelems * dt->basic_size == size)
        return bytes % dt->basic_size == 0 ? (int64_t)(bytes / dt->basic_size) : -1;
    int64_t r = partial(dt, bytes % size);
    return r < 0 ? -1 : (int64_t)(bytes / size * dt->nelems) + r;
}

static int elements(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count,
                    const char *fn)
{
    DT_QUERY(fn, datatype);
    if (status == NULL || status == MPI_STATUS_IGNORE || count == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "invalid status or count");
    int64_t n = ivc_mpi_dt_elements(datatype, (uint64_t)status->ivc_count);
    *count = n < 0 ? MPI_UNDEFINED : n;
    return MPI_SUCCESS;
}

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return elements(status, datatype, count, "MPI_Get_elements_x");
}
IVC_MPI_WEAK(Get_elements_x)

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return elements(status, datatype, count, "MPI_Get_elements_c");
}
IVC_MPI_WEAK(Get_elements_c)

/* ---- matching predefined types ---- */

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    const char *fn = "MPI_Type_match_size";
    MPI_Datatype t = MPI_DATATYPE_NULL;
    switch (typeclass) {
    case MPI_TYPECLASS_INTEGER:
        t = size == 1    ? MPI_INTEGER1
            : size == 2  ? MPI_INTEGER2
            : size == 4  ? MPI_INTEGER4
            : size == 8  ? MPI_INTEGER8
            : size == 16 ? MPI_INTEGER16
                         : MPI_DATATYPE_NULL;
        break;
    /* 16 (32) bytes is Fortran's REAL*16 (COMPLEX*32), binary128: MPI_REAL16 (MPI_COMPLEX32),
     * not the x87 long double that C's 16 bytes hold (gfortran's REAL(10)). */
    case MPI_TYPECLASS_REAL:
        t = size == 4    ? MPI_REAL4
            : size == 8  ? MPI_REAL8
            : size == 16 ? MPI_REAL16
                         : MPI_DATATYPE_NULL;
        break;
    case MPI_TYPECLASS_COMPLEX:
        t = size == 8    ? MPI_COMPLEX8
            : size == 16 ? MPI_COMPLEX16
            : size == 32 ? MPI_COMPLEX32
                         : MPI_DATATYPE_NULL;
        break;
    default:
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "invalid type class %d", typeclass);
    }
    CHECK_NULL_ARG(MPI_COMM_WORLD, datatype, fn, "datatype");
    if (t == MPI_DATATYPE_NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                             "no type of class %d has %d bytes", typeclass, size);
    *datatype = t;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_match_size)

/* The Fortran 90 parameterized types have the type map of the predefined type of the smallest
 * kind that has the precision p (decimal digits) and exponent range r asked for
 * (MPI_UNDEFINED: any), as gfortran's SELECTED_INT_KIND/SELECTED_REAL_KIND choose:
 * INTEGER*1/2/4/8/16 hold 2/4/9/18/38 digits; REAL*4, REAL*8, long double (gfortran's
 * REAL(10)) and REAL*16 (binary128) have 6/15/18/33 digits and ranges 37/307/4931/4931.
 * Each is a handle of its own, predefined (it cannot be freed) but not named: its envelope
 * is MPI_COMBINER_F90_INTEGER/REAL/COMPLEX with the arguments r or (p, r) (MPI 4.1 sec.
 * 5.1.13 and 19.3.5). One handle per combination of combiner, p and r, made at its first call
 * and kept for the rest of the run. */
typedef struct {
    int combiner, p, r;
    MPI_Datatype dt;
} f90_type_t;
static f90_type_t *f90_types;
static int f90_ntypes;

static int f90_type(int combiner, int p, int r, MPI_Datatype base, const char *fn,
                    MPI_Datatype *newtype)
{
    if (newtype == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    for (int i = 0; i < f90_ntypes; i++)
        if (f90_types[i].combiner == combiner && f90_types[i].p == p && f90_types[i].r == r) {
            *newtype = f90_types[i].dt;
            return MPI_SUCCESS;
        }
    f90_type_t *t = realloc(f90_types, (size_t)(f90_ntypes + 1) * sizeof(*t));
    if (t == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    f90_types = t;
    MPI_Datatype dt = NULL;
    int ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    int rc = dt_resized(base, base->map.lb, base->map.extent, &dt);
    if (rc == MPI_SUCCESS && (rc = dt_record(dt, combiner, ni, 0, 0)) != MPI_SUCCESS)
        ivc_mpi_dt_release(dt);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(MPI_COMM_WORLD, rc, fn, "cannot build the datatype");
    if (ni == 1) {
        dt->ints[0] = r;
    } else {
        dt->ints[0] = p;
        dt->ints[1] = r;
    }
    dt->resized = 0;
    dt->align = base->align;
    dt->committed = 1;
    dt->predefined = 1; /* from now on neither retained nor released */
    f90_types[f90_ntypes++] = (f90_type_t){combiner, p, r, dt};
    *newtype = dt;
    return MPI_SUCCESS;
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    MPI_Datatype t = r == MPI_UNDEFINED ? MPI_DATATYPE_NULL
                     : r <= 2           ? MPI_INTEGER1
                     : r <= 4           ? MPI_INTEGER2
                     : r <= 9           ? MPI_INTEGER4
                     : r <= 18          ? MPI_INTEGER8
                     : r <= 38          ? MPI_INTEGER16
                                        : MPI_DATATYPE_NULL;
    if (t == MPI_DATATYPE_NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_create_f90_integer",
                             "no integer kind has range %d", r);
    return f90_type(MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, t, "MPI_Type_create_f90_integer",
                    newtype);
}
IVC_MPI_WEAK(Type_create_f90_integer)

/* 0, 1, 2, 3 for REAL*4, REAL*8, long double, REAL*16; -1 if none fits. */
static int real_kind(int p, int r)
{
    static const int digits[] = {6, 15, 18, 33}, range[] = {37, 307, 4931, 4931};
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return -1;
    for (int k = 0; k < 4; k++)
        if ((p == MPI_UNDEFINED || p <= digits[k]) && (r == MPI_UNDEFINED || r <= range[k]))
            return k;
    return -1;
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    int k = real_kind(p, r);
    if (k < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_create_f90_real",
                             "no real kind has precision %d and range %d", p, r);
    return f90_type(MPI_COMBINER_F90_REAL, p, r,
                    k == 0   ? MPI_REAL4
                    : k == 1 ? MPI_REAL8
                    : k == 2 ? MPI_LONG_DOUBLE
                             : MPI_REAL16,
                    "MPI_Type_create_f90_real", newtype);
}
IVC_MPI_WEAK(Type_create_f90_real)

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    int k = real_kind(p, r);
    if (k < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_create_f90_complex",
                             "no complex kind has precision %d and range %d", p, r);
    return f90_type(MPI_COMBINER_F90_COMPLEX, p, r,
                    k == 0   ? MPI_COMPLEX8
                    : k == 1 ? MPI_COMPLEX16
                    : k == 2 ? MPI_C_LONG_DOUBLE_COMPLEX
                             : MPI_COMPLEX32,
                    "MPI_Type_create_f90_complex", newtype);
}
IVC_MPI_WEAK(Type_create_f90_complex)

/* MPI-4.1: the predefined (value, index) pair type of these two types, or
 * MPI_DATATYPE_NULL when there is none. */
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                              MPI_Datatype *pair_type)
{
    const char *fn = "MPI_Type_get_value_index";
    DT_QUERY(fn, value_type);
    DT_QUERY(fn, index_type);
    if (pair_type == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    static const struct {
        MPI_Datatype v, i, pair;
    } pairs[] = {
        {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
        {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
        {MPI_LONG, MPI_INT, MPI_LONG_INT},
        {MPI_INT, MPI_INT, MPI_2INT},
        {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
        {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
        {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
        {MPI_REAL, MPI_REAL, MPI_2REAL},
        {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
    };
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++)
        if (pairs[k].v == value_type && pairs[k].i == index_type)
            *pair_type = pairs[k].pair;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_get_value_index)

/* ---- address arithmetic ---- */

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
IVC_MPI_WEAK(Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
IVC_MPI_WEAK(Aint_diff)
