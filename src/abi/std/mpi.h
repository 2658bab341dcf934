/* <mpi.h> for programs of the MPI-5 standard ABI: `mpicc -mpi-abi` puts include/abi first on
 * the include path, so that their #include <mpi.h> finds this file and not IVC's own. */
#include "mpi_abi.h"
