/* Which MPI library a rank's program gets: IVC's own, or IVC's library for another MPI's
 * ABI (src/abi). Read from the program's ELF DT_NEEDED entries:
 *   libivcmpi.so.*                      IVC's own: nothing to do
 *   libmpi.so.12, libmpich.so.12        MPICH's ABI (MPICH, Intel MPI, MVAPICH, Cray MPICH):
 *                                       <prefix>/lib/abi/mpich goes first on LD_LIBRARY_PATH
 *   libmpifort.so.12, libmpichfort.so.12   the same: MPICH's own Fortran library (Debian's
 *                                       libmpich12) then calls IVC's C library of that ABI
 *   libmpi_abi.so.*, libmpifort_abi.so.*   the MPI-5 standard ABI (`mpicc -mpi-abi`,
 *                                       `mpifort -mpi-abi`, IVC's or another MPI's):
 *                                       <prefix>/lib/abi/std goes first
 *   libmpi.so.40 (Open MPI): not served; ivcrun says so in one line and does not start the
 *                                       job
 *   no MPI library (a script, python3 with mpi4py, which opens libmpi.so.12 or libmpi.so
 *                   itself): the MPICH-ABI directory too, so that such a program finds IVC
 *                   there before any other MPI; IVC's native programs are not affected
 *                   (they need libivcmpi.so.1, which that directory does not hold).
 * IVCRUN_ABI=native turns the choice off (the ranks' LD_LIBRARY_PATH stays as it is). */
#ifndef IVCRUN_ABI_H
#define IVCRUN_ABI_H

#include "job.h"

/* Sets job->progs[a].abi_libdir for every app. Returns 0, or -ENOTSUP for a program whose
 * MPI IVC cannot serve (printed). With opts->verbose, prints each choice. */
int abi_choose(job_t *job);

/* In a rank, before exec: puts libdir (a progs[].abi_libdir, or NULL: nothing) first on
 * LD_LIBRARY_PATH. Returns 0 or -errno. */
int abi_apply(const char *libdir);

#endif
