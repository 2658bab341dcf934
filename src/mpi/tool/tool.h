/* Tool room: the MPI tool information interface, MPI_T (mpi_t_cvar.c: initialization,
 * control variables, categories, enumerations; mpi_t_other.c: performance variables, events
 * and event sources). Private to src/mpi/tool; the rest of the MPI layer only calls
 * ivc_mpi_t_snapshot() (env.h). */
#ifndef IVC_MPI_TOOL_H
#define IVC_MPI_TOOL_H

#include <mpi.h>

/* MPI_T_init_thread has been called more often than MPI_T_finalize. */
extern int ivc_mpi_t_refs;

#define CHECK_T_INIT()                                                                             \
    do {                                                                                           \
        if (ivc_mpi_t_refs <= 0)                                                                   \
            return MPI_T_ERR_NOT_INITIALIZED;                                                      \
    } while (0)

/* Copies `s` by the MPI_T string convention (MPI 4.1 sec. 15.3.3): at most *len - 1
 * characters and a NUL into buf unless buf is NULL or *len is 0; *len becomes
 * strlen(s) + 1; nothing happens when len is NULL. */
void ivc_mpi_t_string(const char *s, char *buf, int *len);

/* Number of categories (mpi_t_cvar.c); category_get_num_events/get_events check indices
 * against it. */
int ivc_mpi_t_num_categories(void);

/* Releases what mpi_t_other.c holds (performance experiment sessions) at the last
 * MPI_T_finalize. */
void ivc_mpi_t_other_finalize(void);

#endif
