/* Functions that MPI-3.0 removed from the standard but that old programs still call
 * (HPL, inside the HPC Challenge, uses MPI_Address and MPI_Type_struct; MPICH keeps them
 * too). Each is its MPI-2 replacement under the old name and argument types; mpi.h
 * declares them in its section of removed functions. MPI_Type_hvector lives with the
 * other vector constructors (src/mpi/dtype). */
#include "mpi_impl.h"

int PMPI_Address(void *location, MPI_Aint *address)
{
    return PMPI_Get_address(location, address);
}
IVC_MPI_WEAK(Address)

int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Aint lb;
    return PMPI_Type_get_extent(datatype, &lb, extent);
}
IVC_MPI_WEAK(Type_extent)

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint extent;
    return PMPI_Type_get_extent(datatype, displacement, &extent);
}
IVC_MPI_WEAK(Type_lb)

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint lb, extent;
    /* The result is computed here, not by Type_get_extent: its address is checked here. */
    int rc = PMPI_Type_get_extent(datatype, &lb, &extent);
    if (rc == MPI_SUCCESS && displacement == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_ub", "NULL displacement");
    if (rc == MPI_SUCCESS)
        *displacement = lb + extent;
    return rc;
}
IVC_MPI_WEAK(Type_ub)

int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return PMPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype,
                                     newtype);
}
IVC_MPI_WEAK(Type_hindexed)

int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return PMPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements,
                                   array_of_types, newtype);
}
IVC_MPI_WEAK(Type_struct)

int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_create_errhandler(function, errhandler);
}
IVC_MPI_WEAK(Errhandler_create)

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return PMPI_Comm_set_errhandler(comm, errhandler);
}
IVC_MPI_WEAK(Errhandler_set)

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_get_errhandler(comm, errhandler);
}
IVC_MPI_WEAK(Errhandler_get)
