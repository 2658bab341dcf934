/* The large-count datatype functions (MPI-4.1 sec. 5.1, the `_c` forms): constructors whose
 * counts, block lengths, strides and displacements are MPI_Count, and MPI_Pack_size_c.
 *
 * Written by hand (src/binding/gen_c.py, LARGE_BY_HAND) rather than generated as wrappers
 * that narrow their arguments to the int forms: a type describes memory, it moves nothing,
 * and the datatype engine counts in 64 bits (dt_build), so a value beyond INT_MAX makes the
 * type it describes. Copies that abut flatten into one block of any length, so
 * MPI_Type_create_hindexed_c with a block of 9.4e9 MPI_CHAR is one block descriptor: nothing
 * of that size is allocated. What moves such a type (a send of more than INT_MAX bytes) is
 * another matter: see the README's "Large counts".
 *
 * When every argument fits the int form, the type and its envelope record are those of the
 * int form (MPI_Type_get_envelope shows them); otherwise the record holds the arguments as
 * large counts, laid out as MPI-4.1 sec. 5.1.13 lists them (as MPICH does), which only
 * MPI_Type_get_envelope_c and MPI_Type_get_contents_c show. */
#include "dtype/dt_impl.h"

#include <limits.h>

/* Byte displacements and strides pass from MPI_Count to MPI_Aint unchanged. */
_Static_assert(sizeof(MPI_Count) == sizeof(MPI_Aint), "MPI_Aint narrower than MPI_Count");

/* Whether v fits the int form. */
static int fits(MPI_Count v)
{
    return v >= INT_MIN && v <= INT_MAX;
}

/* Whether the n values of a fit the int form. A missing array or n <= 0 counts as fitting:
 * the constructor then reports what is wrong. */
static int all_fit(const MPI_Count *a, MPI_Count n)
{
    if (a == NULL)
        return 1;
    for (MPI_Count k = 0; k < n; k++)
        if (!fits(a[k]))
            return 0;
    return 1;
}

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return dt_contiguous_make(count, oldtype, !fits(count), newtype, "MPI_Type_contiguous_c");
}
IVC_MPI_WEAK(Type_contiguous_c)

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int large = !fits(count) || !fits(blocklength) || !fits(stride);
    return dt_vector_make(count, blocklength, stride, 0, oldtype, large, newtype,
                          "MPI_Type_vector_c");
}
IVC_MPI_WEAK(Type_vector_c)

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int large = !fits(count) || !fits(blocklength);
    return dt_vector_make(count, blocklength, stride, 1, oldtype, large, newtype,
                          "MPI_Type_create_hvector_c");
}
IVC_MPI_WEAK(Type_create_hvector_c)

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    int large = !fits(count) || !all_fit(array_of_blocklengths, count) ||
                !all_fit(array_of_displacements, count);
    return dt_indexed_make(count, DT_ARR_C(array_of_blocklengths), -1,
                           DT_ARR_C(array_of_displacements), 0, oldtype, MPI_COMBINER_INDEXED,
                           large, newtype, "MPI_Type_indexed_c");
}
IVC_MPI_WEAK(Type_indexed_c)

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    int large = !fits(count) || !all_fit(array_of_blocklengths, count);
    return dt_indexed_make(count, DT_ARR_C(array_of_blocklengths), -1,
                           DT_ARR_C(array_of_displacements), 1, oldtype, MPI_COMBINER_HINDEXED,
                           large, newtype, "MPI_Type_create_hindexed_c");
}
IVC_MPI_WEAK(Type_create_hindexed_c)

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_indexed_block_c";
    if (blocklength < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "negative block length");
    int large = !fits(count) || !fits(blocklength) || !all_fit(array_of_displacements, count);
    return dt_indexed_make(count, DT_ARR_C(NULL), blocklength, DT_ARR_C(array_of_displacements), 0,
                           oldtype, MPI_COMBINER_INDEXED_BLOCK, large, newtype, fn);
}
IVC_MPI_WEAK(Type_create_indexed_block_c)

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_hindexed_block_c";
    if (blocklength < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "negative block length");
    int large = !fits(count) || !fits(blocklength);
    return dt_indexed_make(count, DT_ARR_C(NULL), blocklength, DT_ARR_C(array_of_displacements), 1,
                           oldtype, MPI_COMBINER_HINDEXED_BLOCK, large, newtype, fn);
}
IVC_MPI_WEAK(Type_create_hindexed_block_c)

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    int large = !fits(count) || !all_fit(array_of_blocklengths, count);
    return dt_struct_make(count, DT_ARR_C(array_of_blocklengths), DT_ARR_C(array_of_displacements),
                          array_of_types, large, newtype, "MPI_Type_create_struct_c");
}
IVC_MPI_WEAK(Type_create_struct_c)

/* The packed size in MPI_Count: MPI_Pack_size's int answers MPI_UNDEFINED beyond INT_MAX.
 * Returns MPI_SUCCESS, MPI_ERR_TYPE, MPI_ERR_COUNT (negative, or a size beyond MPI_Count)
 * or MPI_ERR_ARG (size NULL). */
int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    const char *fn = "MPI_Pack_size_c";
    (void)comm; /* one representation for every peer: comm does not change the size */
    DT_QUERY(fn, datatype);
    if (incount < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative count %lld",
                             (long long)incount);
    CHECK_NULL_ARG(MPI_COMM_WORLD, size, fn, "size");
    MPI_Count bytes;
    if (__builtin_mul_overflow(incount, (MPI_Count)datatype->map.size, &bytes))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn,
                             "%lld elements of %llu bytes do not fit MPI_Count", (long long)incount,
                             (unsigned long long)datatype->map.size);
    *size = bytes;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Pack_size_c)
