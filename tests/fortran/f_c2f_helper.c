/* C half of the Fortran tests' cross-language checks: handles a Fortran program passes in
 * are converted with MPI_<Kind>_f2c and must be the C predefined objects; a communicator
 * made here goes back to Fortran through MPI_Comm_c2f. */
#include <mpi.h>
#include <stdio.h>

/* INTEGER FUNCTION c_check_world(comm, datatype, op): 0 when they are MPI_COMM_WORLD,
 * MPI_INTEGER and MPI_SUM and convert back to the same integers; else the failed check. */
int c_check_world_(const MPI_Fint *comm, const MPI_Fint *dt, const MPI_Fint *op);
int c_check_world_(const MPI_Fint *comm, const MPI_Fint *dt, const MPI_Fint *op)
{
    if (MPI_Comm_f2c(*comm) != MPI_COMM_WORLD)
        return 1;
    if (MPI_Type_f2c(*dt) != MPI_INTEGER)
        return 2;
    if (MPI_Op_f2c(*op) != MPI_SUM)
        return 3;
    if (MPI_Comm_c2f(MPI_COMM_WORLD) != *comm || MPI_Type_c2f(MPI_INTEGER) != *dt ||
        MPI_Op_c2f(MPI_SUM) != *op)
        return 4;
    int size = 0;
    if (MPI_Type_size(MPI_Type_f2c(*dt), &size) != MPI_SUCCESS || size != 4)
        return 5;
    return 0;
}

/* SUBROUTINE c_make_dup(comm, newcomm): newcomm = a C MPI_Comm_dup of comm. */
void c_make_dup_(const MPI_Fint *comm, MPI_Fint *newcomm);
void c_make_dup_(const MPI_Fint *comm, MPI_Fint *newcomm)
{
    MPI_Comm d = MPI_COMM_NULL;
    if (MPI_Comm_dup(MPI_Comm_f2c(*comm), &d) != MPI_SUCCESS)
        fprintf(stderr, "c_make_dup: MPI_Comm_dup failed\n");
    *newcomm = MPI_Comm_c2f(d);
}
