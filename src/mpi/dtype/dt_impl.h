/* Datatype room internals shared by its files: mpi_datatype.c (predefined types, the core
 * constructors, flattening), dt_array.c (subarray, darray), dt_query.c (envelopes, sizes,
 * elements, matching predefined types), dt_external.c (the "external32" representation). */
#ifndef IVC_MPI_DT_IMPL_H
#define IVC_MPI_DT_IMPL_H

#include "mpi_impl.h"

/* Builds a new type from pieces (copies of older types at byte displacements, in type-map
 * order): flattens the blocks (merging adjacent ones) and computes size, bounds and the
 * basic kind; `is_struct` pads the extent to the strictest alignment of the components, as
 * C does for a struct. The new type keeps the pieces (retaining their types) and has no
 * envelope record yet. Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int dt_build(const dt_piece_t *pieces, size_t npieces, int is_struct, MPI_Datatype *out);
/* One copy of old with lb and extent set (no record). Returns MPI_SUCCESS or a class. */
int dt_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *out);
/* Blocks of blocklens[i] (or `blocklen`) copies of old at disps[i] extents or bdisps[i]
 * bytes (no record). Returns MPI_SUCCESS, MPI_ERR_ARG (negative length) or MPI_ERR_NO_MEM. */
int dt_hindexed(int count, const int *blocklens, int blocklen, const int *disps,
                const MPI_Aint *bdisps, MPI_Datatype old, MPI_Datatype *out);

/* Envelope record: dt_record replaces dt's record by one of `combiner` with ni integers and
 * na addresses (zeroed, for the caller to fill) and room for nd types, which
 * dt_record_type appends (retained). dt_record returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int dt_record(MPI_Datatype dt, int combiner, int ni, int na, int nd);
void dt_record_type(MPI_Datatype dt, MPI_Datatype t);
void dt_record_clear(MPI_Datatype dt);

#define CHECK_COUNT(c, fn)                                                                         \
    do {                                                                                           \
        if ((c) < 0)                                                                               \
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative count %d", (c));     \
    } while (0)

#define DT_QUERY(fn, dt)                                                                           \
    do {                                                                                           \
        if (!ivc_mpi_dt_valid(dt))                                                                 \
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "invalid datatype");            \
    } while (0)

#endif
