/* ivc-info --api: the MPI-4.1 coverage report (api.c). */
#ifndef IVC_INFO_API_H
#define IVC_INFO_API_H

/* Prints, per chapter of the standard, how many C functions and Fortran bindings the
 * libraries beside this program implement; verbose also lists the missing ones.
 * Returns 0, or 1 when libmpi cannot be opened. */
int ivc_info_api(int verbose);

#endif
