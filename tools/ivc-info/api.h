/* ivc-info --api: the MPI-4.1 coverage report (api.c); the libraries beside ivc-info. */
#ifndef IVC_INFO_API_H
#define IVC_INFO_API_H

#include <stddef.h>
#include <stdio.h>

/* dlopens lib/NAME beside this program's bin/ (the build tree and every install prefix),
 * NAME being a soname (IVC_MPI_SONAME, IVC_MPIFORT_SONAME). Writes the path tried, resolved
 * when it exists, to path (len bytes). Returns the handle, or NULL (dlerror() says why). */
void *ivc_info_open_lib(const char *name, char *path, size_t len);

/* Prints the version, how this installation was built (Fortran, C++, network channel) and
 * every tunable with its value and where the value comes from. Returns 0, or 1 when a
 * tunable's value is invalid (the error is printed). */
int ivc_info_about(FILE *f);

/* Prints, per chapter of the standard, how many C functions and Fortran bindings the
 * libraries beside this program implement; verbose also lists the missing ones.
 * Returns 0, or 1 when libmpi cannot be opened. */
int ivc_info_api(int verbose);

#endif
