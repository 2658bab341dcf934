/* mpi_f08's choice buffers as C descriptors (hand-written; used by the generated
 * generated/mpi_f08_ts_glue.c). mpi_f08 declares every choice buffer TYPE(*), DIMENSION(..)
 * (MPI_SUBARRAYS_SUPPORTED = .TRUE.), so gfortran passes the actual argument as it is, an
 * array section included, and the BIND(C) glue receives a CFI_cdesc_t. A contiguous buffer
 * (the common case: whole arrays, contiguous sections, scalars, MPI_IN_PLACE, MPI_BOTTOM)
 * goes through as base_addr with the caller's count and datatype; fortran_ts.c describes a
 * non-contiguous section by a derived datatype, or copies it (blocking calls), or refuses it
 * (see README.md, "Choice buffers").
 *
 * Each buffer of a call is one ivcf_sec_t, set up by ivcf_sec_init; when one of them is not
 * contiguous, ivcf_sec_prepare decides for all of them together (buffers that share a count
 * or a datatype argument, a reduction's send and receive buffers, must agree on what they
 * pass), and ivcf_sec_done undoes it after the call. */
#ifndef IVC_FORTRAN_TS_H
#define IVC_FORTRAN_TS_H

#include "fortran_util.h"

#include <ISO_Fortran_binding.h>

/* What a buffer is to its routine (the generator's classification, gen_fortran.py). */
enum {
    IVCF_RUN,   /* count items of datatype from the buffer's start */
    IVCF_TILED, /* items addressed by index: one block per process, displacements, partitions */
    IVCF_OTHER, /* no datatype describes it (Pack's outbuf, the w collectives) */
    IVCF_FIRST, /* only its address counts (Get_address, Free_mem, Win_detach, *_end) */
    IVCF_KEEP,  /* the library keeps the memory (Buffer_attach, Win_create, Win_attach) */
};

/* Flags of a buffer. */
#define IVCF_OUT 1 /* the call may write it (no INTENT(IN)) */
#define IVCF_NB 2  /* in use after the call returns (ASYNCHRONOUS: nonblocking, persistent, RMA) */
#define IVCF_BIG 4 /* its count is an MPI_Count (large-count form) */

/* The object whose error handler reports a buffer that cannot be passed. */
enum { IVCF_OBJ_NONE, IVCF_OBJ_COMM, IVCF_OBJ_WIN, IVCF_OBJ_FILE, IVCF_OBJ_SESSION };

typedef struct ivcf_sec {
    CFI_cdesc_t *d;
    void *addr;  /* what the F77 glue gets as the buffer */
    void *count; /* ... as the count (the caller's, or &one_*), NULL: the routine has none */
    void *type;  /* ... as the datatype (the caller's Fortran handle, or &ftype) */
    int role, flags, group;
    int contig;         /* 1: passed as it is */
    MPI_Datatype made;  /* the datatype made for the section (freed by ivcf_sec_done) */
    void *copy;         /* a contiguous copy of the section (blocking calls) */
    MPI_Fint ftype;     /* Fortran handle of made */
    MPI_Fint one_fint;  /* count 1 */
    MPI_Count one_count;
} ivcf_sec_t;

/* Whether the array d describes occupies one contiguous run of memory in array element
 * order: each dimension's stride is the previous ones' size; dimensions of extent 1 do not
 * count, an assumed-size array (last extent -1) is contiguous, an empty array is. */
static inline int ivcf_desc_contig(const CFI_cdesc_t *d)
{
    CFI_index_t want = (CFI_index_t)d->elem_len;
    int contig = 1;
    for (int r = 0; r < d->rank; r++) {
        CFI_index_t e = d->dim[r].extent;
        if (e == 0)
            return 1;
        if (e == -1)
            break;
        if (e != 1 && d->dim[r].sm != want)
            contig = 0;
        want *= e;
    }
    return contig;
}

static inline void ivcf_sec_init(ivcf_sec_t *s, CFI_cdesc_t *d, void *count, void *type,
                                 int role, int flags, int group)
{
    s->d = d;
    s->addr = d->base_addr;
    s->count = count;
    s->type = type;
    s->role = role;
    s->flags = flags;
    s->group = group;
    s->contig = d->rank == 0 || ivcf_desc_contig(d);
    s->made = MPI_DATATYPE_NULL;
    s->copy = NULL;
}

/* Prepares the n buffers of a call when one is not contiguous. Returns MPI_SUCCESS, or
 * MPI_ERR_BUFFER: a section the library must keep (Buffer_attach, Win_create ...), or that a
 * nonblocking, persistent or RMA call would use after returning and no datatype describes;
 * MPI_ERR_NO_MEM: no memory for a copy. Nothing is left to undo on error. */
int ivcf_sec_prepare(ivcf_sec_t *s, int n);

/* After the call (rc: its result): copies written sections back (rc == MPI_SUCCESS), frees
 * copies and made datatypes (a pending operation keeps its own reference). */
void ivcf_sec_done(ivcf_sec_t *s, int n, int rc);

/* Raises error class rc on the object's error handler (obj: its C handle; MPI_COMM_SELF for
 * IVCF_OBJ_NONE, the standard's choice for errors tied to no object) and returns rc. */
int ivcf_sec_error(int rc, int kind, void *obj);

#endif
