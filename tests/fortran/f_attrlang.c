/* C side of f90_attrlang.f90: reads and sets attributes the way the standard's language
 * interoperability rules (MPI-4.1 section 19.3.7) say C sees them. Each function returns 0
 * or prints what it found and returns 1. */
#include <mpi.h>
#include <stdio.h>

static int c_target = 42; /* what C's attribute points to */

/* keyvals made in C, with C's predefined copy callback (MPI_COMM_DUP_FN copies the
 * attribute as C's get returns it). */
void c_attr_keyval_(MPI_Fint *keyval);
void c_attr_keyval_(MPI_Fint *keyval)
{
    int k;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL);
    *keyval = k;
}

/* An attribute set from Fortran (INTEGER(KIND=MPI_ADDRESS_KIND)): C gets the address of an
 * MPI_Aint holding the value. */
void c_attr_check_aint_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *expected, MPI_Fint *bad);
void c_attr_check_aint_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *expected, MPI_Fint *bad)
{
    MPI_Aint *v = NULL;
    int flag = 0;
    MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *keyval, &v, &flag);
    *bad = !flag || v == NULL || *v != *expected;
    if (*bad)
        fprintf(stderr, "C get of a Fortran attribute: expected a pointer to %ld, got %s %ld\n",
                (long)*expected, flag ? "pointer to" : "no attribute", flag && v ? (long)*v : 0L);
}

/* An attribute set from Fortran by MPI_ATTR_PUT (INTEGER): C gets the address of an
 * MPI_Fint holding the value. */
void c_attr_check_fint_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *expected, MPI_Fint *bad);
void c_attr_check_fint_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *expected, MPI_Fint *bad)
{
    MPI_Fint *v = NULL;
    int flag = 0;
    MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *keyval, &v, &flag);
    *bad = !flag || v == NULL || *v != *expected;
    if (*bad)
        fprintf(stderr, "C get of an MPI_ATTR_PUT attribute: expected a pointer to %d, got %s %d\n",
                (int)*expected, flag ? "pointer to" : "no attribute", flag && v ? (int)*v : 0);
}

/* Sets a C attribute (a pointer to c_target); *addr is the pointer as an integer, which is
 * what Fortran's get must return. */
void c_attr_set_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *addr);
void c_attr_set_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *addr)
{
    MPI_Comm_set_attr(MPI_Comm_f2c(*comm), *keyval, &c_target);
    *addr = (MPI_Aint)&c_target;
}
