/* Datatype room internals shared by its files: mpi_datatype.c (predefined types, the core
 * constructors, flattening), dt_large.c (the large-count `_c` constructors and sizes),
 * dt_array.c (subarray, darray), dt_query.c (envelopes, sizes, elements, matching predefined
 * types), dt_external.c (the "external32" representation). */
#ifndef IVC_MPI_DT_IMPL_H
#define IVC_MPI_DT_IMPL_H

#include "mpi_impl.h"

/* Builds a new type from pieces (copies of older types at byte displacements, in type-map
 * order): flattens the blocks (merging adjacent ones) and computes size, bounds and the
 * basic kind in 64 bits; `is_struct` pads the extent to the strictest alignment of the
 * components, as C does for a struct. The new type keeps the pieces (retaining their types)
 * and has no envelope record yet. Returns MPI_SUCCESS, MPI_ERR_COUNT (a displacement, span
 * or size that reaches 2^60 bytes: DT_MAX_SPAN, mpi_datatype.c) or MPI_ERR_NO_MEM (more
 * blocks than DT_MAX_BLOCKS, or out of memory). */
int dt_build(const dt_piece_t *pieces, size_t npieces, int is_struct, MPI_Datatype *out);
/* One copy of old with lb and extent set (no record). Returns MPI_SUCCESS or a class. */
int dt_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *out);
/* Blocks of blocklens[i] (or `blocklen`) copies of old at disps[i] extents or bdisps[i]
 * bytes (no record). Returns MPI_SUCCESS, MPI_ERR_ARG (negative length), MPI_ERR_COUNT or
 * MPI_ERR_NO_MEM (as dt_build). */
int dt_hindexed(int count, const int *blocklens, int blocklen, const int *disps,
                const MPI_Aint *bdisps, MPI_Datatype old, MPI_Datatype *out);

/* A constructor's array argument in any of its widths: the int form's integers (i) or
 * addresses (a), or the large-count form's counts (c). At most one is set; none: no array. */
typedef struct {
    const int *i;
    const MPI_Aint *a;
    const MPI_Count *c;
} dt_arr_t;
#define DT_ARR_I(p) ((dt_arr_t){(p), NULL, NULL})
#define DT_ARR_A(p) ((dt_arr_t){NULL, (p), NULL})
#define DT_ARR_C(p) ((dt_arr_t){NULL, NULL, (p)})

static inline int dt_arr_null(dt_arr_t v)
{
    return v.i == NULL && v.a == NULL && v.c == NULL;
}

static inline int64_t dt_arr_at(dt_arr_t v, int64_t k)
{
    return v.i ? v.i[k] : v.a ? (int64_t)v.a[k] : (int64_t)v.c[k];
}

/* The constructors of both forms (mpi_datatype.c): the int functions call them with their
 * arguments widened, the large-count `_c` functions (dt_large.c) with theirs. They check
 * the arguments, build the type and record the envelope: `large` records the arguments as
 * large counts (MPI-4.1 sec. 5.1.13: count, block lengths, strides and displacements all
 * in the large-count array), otherwise in the int form's integers and addresses, which
 * must then fit them. blocklen >= 0 selects the _block forms (one length, no array).
 * Return MPI_SUCCESS or the class they raised. */
int dt_contiguous_make(int64_t count, MPI_Datatype old, int large, MPI_Datatype *newtype,
                       const char *fn);
int dt_vector_make(int64_t count, int64_t blocklength, int64_t stride, int bytes, MPI_Datatype old,
                   int large, MPI_Datatype *newtype, const char *fn);
int dt_indexed_make(int64_t count, dt_arr_t blocklens, int64_t blocklen, dt_arr_t disps, int bytes,
                    MPI_Datatype old, int combiner, int large, MPI_Datatype *newtype,
                    const char *fn);
int dt_struct_make(int64_t count, dt_arr_t blocklens, dt_arr_t disps, const MPI_Datatype types[],
                   int large, MPI_Datatype *newtype, const char *fn);

/* Envelope record: dt_record replaces dt's record by one of `combiner` with ni integers and
 * na addresses (zeroed, for the caller to fill) and room for nd types, which
 * dt_record_type appends (retained); dt_record_c makes one with ni integers and nc large
 * counts (no addresses). Both return MPI_SUCCESS or MPI_ERR_NO_MEM. */
int dt_record(MPI_Datatype dt, int combiner, int ni, int na, int nd);
int dt_record_c(MPI_Datatype dt, int combiner, int ni, int64_t nc, int nd);
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
