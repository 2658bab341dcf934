/* Fortran glue of the routines MPI-3.0 removed from the standard that old Fortran programs
 * still call (MPICH's f77/datatype/hindex1f, f90/datatype/get_elem_u; libmpi keeps their C
 * forms, src/binding/c/removed.c): MPI_ADDRESS, MPI_TYPE_EXTENT, MPI_TYPE_LB, MPI_TYPE_UB,
 * MPI_TYPE_HVECTOR, MPI_TYPE_HINDEXED and MPI_TYPE_STRUCT. Their MPI-1 Fortran bindings take
 * addresses, extents, strides and displacements as default INTEGERs (MPI-1.1 sections 3.12
 * and 3.12.3), where the MPI-2 replacements take INTEGER(KIND=MPI_ADDRESS_KIND); a value
 * that does not fit an INTEGER gives MPI_ERR_VALUE_TOO_LARGE and leaves the output alone.
 * The modules declare no interfaces for them (they are not in the standard any more): a
 * program reaches them as external procedures, as it would through mpif.h. Every C
 * function is reached through a weak reference, as in the rest of the glue. */
#include "fortran_util.h"

#include <limits.h>
#include <stdlib.h>

#define WEAK_C(ret, name, params)                                                                  \
    extern ret ivcf_##name params __asm__("P" #name) __attribute__((weak))

WEAK_C(int, MPI_Get_address, (const void *, MPI_Aint *));
WEAK_C(int, MPI_Type_get_extent, (MPI_Datatype, MPI_Aint *, MPI_Aint *));
WEAK_C(int, MPI_Type_create_hvector, (int, int, MPI_Aint, MPI_Datatype, MPI_Datatype *));
WEAK_C(int, MPI_Type_create_hindexed,
       (int, const int[], const MPI_Aint[], MPI_Datatype, MPI_Datatype *));
WEAK_C(int, MPI_Type_create_struct,
       (int, const int[], const MPI_Aint[], const MPI_Datatype[], MPI_Datatype *));

#define NOT_THERE(fn, ierr)                                                                        \
    do {                                                                                           \
        if (ivcf_##fn == NULL) {                                                                   \
            *(ierr) = MPI_ERR_UNSUPPORTED_OPERATION;                                               \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* *out = v when v fits a default INTEGER; the error code otherwise. */
static int fint_out(MPI_Aint v, MPI_Fint *out)
{
    if (v < INT_MIN || v > INT_MAX)
        return MPI_ERR_VALUE_TOO_LARGE;
    *out = (MPI_Fint)v;
    return MPI_SUCCESS;
}

/* INTEGER displacements as MPI_Aint (NULL without memory; count < 0 is the C call's to
 * report, so it gets an array of one). */
static MPI_Aint *aints_of(const MPI_Fint *f, MPI_Fint count)
{
    MPI_Aint *a = malloc((count > 0 ? (size_t)count : 1) * sizeof(*a));
    for (MPI_Fint i = 0; a != NULL && i < count; i++)
        a[i] = f[i];
    return a;
}

void pmpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierror);
void pmpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierror)
{
    NOT_THERE(MPI_Get_address, ierror);
    MPI_Aint a = 0;
    int rc = ivcf_MPI_Get_address(ivcf_buf(location), &a);
    *ierror = rc == MPI_SUCCESS ? fint_out(a, address) : rc;
}
IVCF_ALIAS(mpi_address)

/* MPI_TYPE_EXTENT, MPI_TYPE_LB, MPI_TYPE_UB: which = 0, 1, 2. */
static void extent_part(const MPI_Fint *datatype, MPI_Fint *out, MPI_Fint *ierror, int which)
{
    NOT_THERE(MPI_Type_get_extent, ierror);
    MPI_Aint lb = 0, extent = 0;
    int rc = ivcf_MPI_Type_get_extent(PMPI_Type_f2c(*datatype), &lb, &extent);
    if (rc == MPI_SUCCESS)
        rc = fint_out(which == 0 ? extent : which == 1 ? lb : lb + extent, out);
    *ierror = rc;
}

void pmpi_type_extent_(MPI_Fint *datatype, MPI_Fint *extent, MPI_Fint *ierror);
void pmpi_type_extent_(MPI_Fint *datatype, MPI_Fint *extent, MPI_Fint *ierror)
{
    extent_part(datatype, extent, ierror, 0);
}
IVCF_ALIAS(mpi_type_extent)

void pmpi_type_lb_(MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierror);
void pmpi_type_lb_(MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierror)
{
    extent_part(datatype, displacement, ierror, 1);
}
IVCF_ALIAS(mpi_type_lb)

void pmpi_type_ub_(MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierror);
void pmpi_type_ub_(MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierror)
{
    extent_part(datatype, displacement, ierror, 2);
}
IVCF_ALIAS(mpi_type_ub)

void pmpi_type_hvector_(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *stride, MPI_Fint *oldtype,
                        MPI_Fint *newtype, MPI_Fint *ierror);
void pmpi_type_hvector_(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *stride, MPI_Fint *oldtype,
                        MPI_Fint *newtype, MPI_Fint *ierror)
{
    NOT_THERE(MPI_Type_create_hvector, ierror);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = ivcf_MPI_Type_create_hvector(*count, *blocklength, (MPI_Aint)*stride,
                                          PMPI_Type_f2c(*oldtype), &t);
    if (rc == MPI_SUCCESS)
        *newtype = PMPI_Type_c2f(t);
    *ierror = rc;
}
IVCF_ALIAS(mpi_type_hvector)

void pmpi_type_hindexed_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements,
                         MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierror);
void pmpi_type_hindexed_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements,
                         MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierror)
{
    NOT_THERE(MPI_Type_create_hindexed, ierror);
    MPI_Aint *d = aints_of(displacements, *count);
    if (d == NULL) {
        *ierror = MPI_ERR_NO_MEM;
        return;
    }
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = ivcf_MPI_Type_create_hindexed(*count, blocklengths, d, PMPI_Type_f2c(*oldtype), &t);
    free(d);
    if (rc == MPI_SUCCESS)
        *newtype = PMPI_Type_c2f(t);
    *ierror = rc;
}
IVCF_ALIAS(mpi_type_hindexed)

void pmpi_type_struct_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements,
                       MPI_Fint *types, MPI_Fint *newtype, MPI_Fint *ierror);
void pmpi_type_struct_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements,
                       MPI_Fint *types, MPI_Fint *newtype, MPI_Fint *ierror)
{
    NOT_THERE(MPI_Type_create_struct, ierror);
    MPI_Aint *d = aints_of(displacements, *count);
    MPI_Datatype *ct = malloc((*count > 0 ? (size_t)*count : 1) * sizeof(*ct));
    if (d == NULL || ct == NULL) {
        free(d);
        free(ct);
        *ierror = MPI_ERR_NO_MEM;
        return;
    }
    for (MPI_Fint i = 0; i < *count; i++)
        ct[i] = PMPI_Type_f2c(types[i]);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = ivcf_MPI_Type_create_struct(*count, blocklengths, d, ct, &t);
    free(d);
    free(ct);
    if (rc == MPI_SUCCESS)
        *newtype = PMPI_Type_c2f(t);
    *ierror = rc;
}
IVCF_ALIAS(mpi_type_struct)
