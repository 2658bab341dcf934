/* File views and data representations.
 *
 * A view is a displacement, an etype and a filetype tiled from the displacement on: the
 * data stream of an access is cut into the filetype's blocks, tile after tile. The filetype's
 * flattened type map (dtype room) gives the blocks of one tile; ivc_io_view_pieces() maps a
 * stretch of the stream to file pieces with a binary search for the first block and a walk
 * after it.
 *
 * Representations: "native" and "internal" (the same here: the bytes of memory) and
 * "external32" (big-endian, through MPI_Pack_external), whose sizes equal the native ones on
 * the platforms IVC builds for (LP64: every basic type has the same size in both); a type
 * whose external32 size differs is refused with MPI_ERR_UNSUPPORTED_DATAREP. Representations
 * registered with MPI_Register_datarep convert through the program's functions, on the same
 * condition: the extent function must give each etype's native size. */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

void ivc_io_view_default(MPI_File fh)
{
    fh->disp = 0;
    fh->etype = MPI_BYTE;
    fh->filetype = MPI_BYTE;
    strcpy(fh->datarep, "native");
    fh->rep = IO_REP_NATIVE;
    fh->urep = NULL;
    fh->esize = 1;
    fh->ft_size = 1;
    fh->ft_extent = 1;
    fh->ft_lb = 0;
    fh->ft_nblocks = MPI_BYTE->map.nblocks;
    fh->ft_blocks = MPI_BYTE->map.blocks;
    fh->ft_prefix = MPI_BYTE->map.prefix;
    fh->fp = 0;
}

void ivc_io_view_free(MPI_File fh)
{
    if (fh->etype != MPI_DATATYPE_NULL)
        ivc_mpi_dt_release(fh->etype);
    if (fh->filetype != MPI_DATATYPE_NULL)
        ivc_mpi_dt_release(fh->filetype);
    fh->etype = fh->filetype = MPI_DATATYPE_NULL;
}

/* ---- registered representations ---- */

static io_datarep_t *reps;
static int nreps;

static const io_datarep_t *rep_find(const char *name)
{
    for (int i = 0; i < nreps; i++)
        if (!strcmp(reps[i].name, name))
            return &reps[i];
    return NULL;
}

static int rep_register(const char *datarep, MPI_Datarep_conversion_function *rd,
                        MPI_Datarep_conversion_function *wr, MPI_Datarep_conversion_function_c *rdc,
                        MPI_Datarep_conversion_function_c *wrc, MPI_Datarep_extent_function *ext,
                        void *extra, const char *fn)
{
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (datarep == NULL || ext == NULL || strlen(datarep) >= MPI_MAX_DATAREP_STRING ||
        datarep[0] == '\0')
        return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_ARG, fn, "invalid name or extent function");
    if (!strcmp(datarep, "native") || !strcmp(datarep, "internal") ||
        !strcmp(datarep, "external32") || rep_find(datarep) != NULL)
        return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_DUP_DATAREP, fn,
                            "data representation \"%s\" is already defined", datarep);
    io_datarep_t *n = realloc(reps, sizeof(*n) * (size_t)(nreps + 1));
    if (n == NULL)
        return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    reps = n;
    io_datarep_t *r = &reps[nreps++];
    memset(r, 0, sizeof(*r));
    snprintf(r->name, sizeof(r->name), "%s", datarep);
    r->read_fn = rd;
    r->write_fn = wr;
    r->read_fn_c = rdc;
    r->write_fn_c = wrc;
    r->extent_fn = ext;
    r->extra = extra;
    return MPI_SUCCESS;
}

int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return rep_register(datarep, read_conversion_fn, write_conversion_fn, NULL, NULL,
                        dtype_file_extent_fn, extra_state, "MPI_Register_datarep");
}
IVC_MPI_WEAK(Register_datarep)

int PMPI_Register_datarep_c(const char *datarep,
                            MPI_Datarep_conversion_function_c *read_conversion_fn,
                            MPI_Datarep_conversion_function_c *write_conversion_fn,
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return rep_register(datarep, NULL, NULL, read_conversion_fn, write_conversion_fn,
                        dtype_file_extent_fn, extra_state, "MPI_Register_datarep_c");
}
IVC_MPI_WEAK(Register_datarep_c)

/* The predefined "no conversion" function: a representation registered with it leaves the
 * bytes as they are in memory. IVC never calls it; a program may. */
int MPI_CONVERSION_FN_NULL(void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                           MPI_Offset position, void *extra_state)
{
    (void)userbuf, (void)datatype, (void)count, (void)filebuf, (void)position, (void)extra_state;
    return MPI_SUCCESS;
}

int MPI_CONVERSION_FN_NULL_C(void *userbuf, MPI_Datatype datatype, MPI_Count count, void *filebuf,
                             MPI_Offset position, void *extra_state)
{
    (void)userbuf, (void)datatype, (void)count, (void)filebuf, (void)position, (void)extra_state;
    return MPI_SUCCESS;
}

/* ---- the view ---- */

/* 1 if every displacement of dt's type map is >= 0 and they do not decrease (what the
 * standard asks of a filetype, and what the two-phase exchange relies on). */
static int monotonic(MPI_Datatype dt)
{
    int64_t last = 0;
    for (uint64_t i = 0; i < dt->map.nblocks; i++) {
        if (dt->map.blocks[i].disp < last)
            return 0;
        last = dt->map.blocks[i].disp + (int64_t)dt->map.blocks[i].len;
    }
    return 1;
}

/* Whether a representation keeps native sizes for dt: the condition of IVC's conversions. */
static int rep_sizes_native(MPI_File fh, int rep, const io_datarep_t *u, MPI_Datatype dt)
{
    if (rep == IO_REP_EXTERNAL32) {
        MPI_Aint sz = 0;
        if (PMPI_Pack_external_size("external32", 1, dt, &sz) != MPI_SUCCESS)
            return 0;
        return (uint64_t)sz == dt->map.size;
    }
    if (rep == IO_REP_USER) {
        /* Asked of the etype's basic kind: a derived etype is built of one kind here. */
        MPI_Aint ext = 0;
        MPI_Datatype basic = dt;
        if (!dt->predefined && dt->npieces > 0)
            basic = dt->pieces[0].old;
        while (!basic->predefined && basic->npieces > 0)
            basic = basic->pieces[0].old;
        if (u->extent_fn(basic, &ext, u->extra) != MPI_SUCCESS)
            return 0;
        MPI_Aint true_lb, true_ext;
        PMPI_Type_get_true_extent(basic, &true_lb, &true_ext);
        return ext == true_ext;
    }
    (void)fh;
    return 1;
}

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    const char *fn = "MPI_File_set_view";
    IO_CHECK(fh, fn);
    if (!ivc_mpi_dt_valid(etype) || !ivc_mpi_dt_valid(filetype))
        return ivc_io_raise(fh, MPI_ERR_TYPE, fn, "invalid etype or filetype");
    if (!etype->committed || !filetype->committed)
        return ivc_io_raise(fh, MPI_ERR_TYPE, fn, "etype and filetype must be committed");
    if (etype->map.size == 0)
        return ivc_io_raise(fh, MPI_ERR_TYPE, fn, "the etype has no data");
    if (filetype->map.size % etype->map.size != 0)
        return ivc_io_raise(fh, MPI_ERR_TYPE, fn,
                            "the filetype's size is not a multiple of the etype's");
    if (!monotonic(filetype) || filetype->map.extent <= 0)
        return ivc_io_raise(fh, MPI_ERR_TYPE, fn,
                            "the filetype's displacements must be non-negative and not "
                            "decreasing, its extent positive");
    if (datarep == NULL)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "NULL datarep");
    int rep;
    const io_datarep_t *u = NULL;
    if (!strcmp(datarep, "native"))
        rep = IO_REP_NATIVE;
    else if (!strcmp(datarep, "internal"))
        rep = IO_REP_INTERNAL;
    else if (!strcmp(datarep, "external32"))
        rep = IO_REP_EXTERNAL32;
    else if ((u = rep_find(datarep)) != NULL)
        rep = IO_REP_USER;
    else
        return ivc_io_raise(fh, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                            "unknown data representation \"%s\"", datarep);
    if (!rep_sizes_native(fh, rep, u, etype))
        return ivc_io_raise(fh, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                            "representation \"%s\" changes the etype's size, which IVC does "
                            "not support",
                            datarep);
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        if (!(fh->amode & MPI_MODE_SEQUENTIAL))
            return ivc_io_raise(fh, MPI_ERR_ARG, fn,
                                "MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL");
        MPI_Offset cur = 0;
        ivc_io_shared_fetch_add(fh, 0, &cur);
        disp = ivc_io_view_byte(fh, cur);
    } else if (disp < 0) {
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "negative displacement");
    }
    if (fh->split != MPI_REQUEST_NULL)
        return ivc_io_raise(fh, MPI_ERR_OTHER, fn, "a split collective is in progress");
    ivc_io_coll_drain(fh);
    (void)info;

    ivc_mpi_dt_retain(etype);
    ivc_mpi_dt_retain(filetype);
    ivc_io_view_free(fh);
    fh->disp = disp;
    fh->etype = etype;
    fh->filetype = filetype;
    snprintf(fh->datarep, sizeof(fh->datarep), "%s", datarep);
    fh->rep = rep;
    fh->urep = u;
    fh->esize = etype->map.size;
    fh->ft_size = filetype->map.size;
    fh->ft_extent = filetype->map.extent;
    fh->ft_lb = filetype->map.lb;
    fh->ft_nblocks = filetype->map.nblocks;
    fh->ft_blocks = filetype->map.blocks;
    fh->ft_prefix = filetype->map.prefix;
    fh->fp = 0;
    /* The shared pointer goes back to 0 too, once every rank is done with the old view. */
    PMPI_Barrier(fh->comm);
    int err = fh->rank == 0 ? ivc_io_shared_set(fh, 0) : MPI_SUCCESS;
    PMPI_Bcast(&err, 1, MPI_INT, 0, fh->comm);
    if (err != MPI_SUCCESS)
        return ivc_io_raise(fh, err, fn, "cannot reset the shared file pointer");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_set_view)

int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                       char *datarep)
{
    const char *fn = "MPI_File_get_view";
    IO_CHECK(fh, fn);
    if (disp == NULL || etype == NULL || filetype == NULL || datarep == NULL)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "NULL argument");
    *disp = fh->disp;
    /* Derived types come back as new references the program frees (MPI_Type_free). */
    ivc_mpi_dt_retain(fh->etype);
    ivc_mpi_dt_retain(fh->filetype);
    *etype = fh->etype;
    *filetype = fh->filetype;
    strcpy(datarep, fh->datarep);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_get_view)

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    const char *fn = "MPI_File_get_type_extent";
    IO_CHECK(fh, fn);
    if (!ivc_mpi_dt_valid(datatype))
        return ivc_io_raise(fh, MPI_ERR_TYPE, fn, "invalid datatype");
    if (extent == NULL)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "NULL extent");
    if (fh->rep == IO_REP_USER && datatype->predefined) {
        MPI_Aint e = 0;
        int rc = fh->urep->extent_fn(datatype, &e, fh->urep->extra);
        if (rc != MPI_SUCCESS)
            return ivc_io_raise(fh, rc, fn, "the representation's extent function failed");
        *extent = e;
        return MPI_SUCCESS;
    }
    *extent = datatype->map.extent;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_get_type_extent)

/* ---- mapping the stream to the file ---- */

/* Index of the block holding stream byte r of a tile (0 <= r < ft_size): the last block
 * whose prefix is <= r, skipping empty ones. */
static uint64_t block_of(MPI_File fh, uint64_t r)
{
    uint64_t lo = 0, hi = fh->ft_nblocks; /* prefix[lo] <= r < prefix[hi] */
    while (hi - lo > 1) {
        uint64_t mid = (lo + hi) / 2;
        if (fh->ft_prefix[mid] <= r)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

MPI_Offset ivc_io_view_byte(MPI_File fh, MPI_Offset pos)
{
    if (fh->ft_size == 0)
        return fh->disp; /* a filetype without data: every position is its start */
    uint64_t s = (uint64_t)pos * fh->esize;
    uint64_t tile = s / fh->ft_size, r = s % fh->ft_size;
    uint64_t j = block_of(fh, r);
    return fh->disp + (MPI_Offset)tile * fh->ft_extent + fh->ft_blocks[j].disp +
           (MPI_Offset)(r - fh->ft_prefix[j]);
}

MPI_Offset ivc_io_view_pos_of_byte(MPI_File fh, MPI_Offset byte)
{
    if (byte <= fh->disp)
        return 0;
    MPI_Offset rel = byte - fh->disp;
    MPI_Offset tile = rel / fh->ft_extent, in = rel % fh->ft_extent;
    uint64_t data = (uint64_t)tile * fh->ft_size;
    for (uint64_t j = 0; j < fh->ft_nblocks; j++) {
        const ivc_block_t *b = &fh->ft_blocks[j];
        if (b->disp >= in)
            break;
        data += (uint64_t)(in - b->disp) < b->len ? (uint64_t)(in - b->disp) : b->len;
    }
    return (MPI_Offset)((data + fh->esize - 1) / fh->esize);
}

int ivc_io_view_pieces(MPI_File fh, MPI_Offset pos, uint64_t nbytes, io_piece_t **out,
                       uint64_t *n)
{
    *out = NULL;
    *n = 0;
    if (pos < 0)
        return MPI_ERR_ARG;
    if (nbytes == 0)
        return MPI_SUCCESS;
    if (fh->ft_size == 0)
        return MPI_ERR_TYPE; /* data through a filetype that has none */
    if (fh->ft_nblocks == 1 && fh->ft_blocks[0].disp == 0 &&
        (int64_t)fh->ft_size == fh->ft_extent) {
        /* A dense filetype (the default view's MPI_BYTE, any contiguous one): one piece,
         * without walking the tiles one by one. */
        io_piece_t *one = malloc(sizeof(*one));
        if (one == NULL)
            return MPI_ERR_NO_MEM;
        *one = (io_piece_t){fh->disp + pos * (int64_t)fh->esize, (int64_t)nbytes, 0};
        *out = one;
        *n = 1;
        return MPI_SUCCESS;
    }
    uint64_t cap = 16, cnt = 0;
    io_piece_t *pc = malloc(sizeof(*pc) * cap);
    if (pc == NULL)
        return MPI_ERR_NO_MEM;
    uint64_t s = (uint64_t)pos * fh->esize;
    uint64_t tile = s / fh->ft_size, r = s % fh->ft_size;
    uint64_t j = block_of(fh, r);
    uint64_t in = r - fh->ft_prefix[j]; /* bytes into block j */
    uint64_t soff = 0;
    while (soff < nbytes) {
        const ivc_block_t *b = &fh->ft_blocks[j];
        uint64_t len = b->len - in;
        if (len > nbytes - soff)
            len = nbytes - soff;
        int64_t off = fh->disp + (int64_t)tile * fh->ft_extent + b->disp + (int64_t)in;
        if (off < 0 || off > INT64_MAX / 2) {
            free(pc);
            return MPI_ERR_IO;
        }
        if (len > 0) {
            if (cnt > 0 && pc[cnt - 1].off + pc[cnt - 1].len == off) {
                pc[cnt - 1].len += (int64_t)len;
            } else {
                if (cnt == cap) {
                    io_piece_t *g = realloc(pc, sizeof(*pc) * cap * 2);
                    if (g == NULL) {
                        free(pc);
                        return MPI_ERR_NO_MEM;
                    }
                    pc = g;
                    cap *= 2;
                }
                pc[cnt++] = (io_piece_t){off, (int64_t)len, (int64_t)soff};
            }
        }
        soff += len;
        in = 0;
        if (++j == fh->ft_nblocks) {
            j = 0;
            tile++;
        }
    }
    *out = pc;
    *n = cnt;
    return MPI_SUCCESS;
}

/* ---- representations ---- */

int ivc_io_direct(MPI_File fh, int count, MPI_Datatype dt)
{
    (void)count;
    return (fh->rep == IO_REP_NATIVE || fh->rep == IO_REP_INTERNAL) && dt->map.contig;
}

int ivc_io_pack(MPI_File fh, const void *buf, int count, MPI_Datatype dt, void **out,
                int *owned, uint64_t *nbytes)
{
    uint64_t n = (uint64_t)count * dt->map.size;
    *nbytes = n;
    *owned = 0;
    if (ivc_io_direct(fh, count, dt) || n == 0) {
        *out = (void *)buf;
        return MPI_SUCCESS;
    }
    char *tmp = malloc(n);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    if (fh->rep == IO_REP_EXTERNAL32) {
        MPI_Aint pos = 0;
        if (!rep_sizes_native(fh, fh->rep, NULL, dt) ||
            PMPI_Pack_external("external32", buf, count, dt, tmp, (MPI_Aint)n, &pos) !=
                MPI_SUCCESS) {
            free(tmp);
            return MPI_ERR_UNSUPPORTED_DATAREP;
        }
    } else if (fh->rep == IO_REP_USER) {
        const io_datarep_t *u = fh->urep;
        /* The conversion writes the file's form of count elements; first into the memory
         * layout (packed), which equals the file layout when sizes are native. */
        ivc_data_t d;
        ivc_mpi_data(&d, buf, count, dt);
        char *packed = malloc(n);
        if (packed == NULL) {
            free(tmp);
            return MPI_ERR_NO_MEM;
        }
        ivc_data_pack(&d, 0, packed, n);
        int rc = MPI_SUCCESS;
        if (u->write_fn_c != NULL)
            rc = u->write_fn_c((void *)buf, dt, count, tmp, 0, u->extra);
        else if (u->write_fn != NULL && u->write_fn != MPI_CONVERSION_FN_NULL)
            rc = u->write_fn((void *)buf, dt, count, tmp, 0, u->extra);
        else
            memcpy(tmp, packed, n);
        free(packed);
        if (rc != MPI_SUCCESS) {
            free(tmp);
            return MPI_ERR_CONVERSION;
        }
    } else {
        ivc_data_t d;
        ivc_mpi_data(&d, buf, count, dt);
        ivc_data_pack(&d, 0, tmp, n);
    }
    *out = tmp;
    *owned = 1;
    return MPI_SUCCESS;
}

int ivc_io_unpack(MPI_File fh, const void *src, uint64_t nbytes, void *buf, int count,
                  MPI_Datatype dt)
{
    if (nbytes == 0)
        return MPI_SUCCESS;
    if (fh->rep == IO_REP_EXTERNAL32) {
        /* Whole elements only: a short read converts what it got. */
        int whole = dt->map.size ? (int)(nbytes / dt->map.size) : 0;
        MPI_Aint pos = 0;
        if (whole > 0 && PMPI_Unpack_external("external32", src, (MPI_Aint)nbytes, &pos, buf,
                                              whole, dt) != MPI_SUCCESS)
            return MPI_ERR_UNSUPPORTED_DATAREP;
        return MPI_SUCCESS;
    }
    if (fh->rep == IO_REP_USER) {
        const io_datarep_t *u = fh->urep;
        int whole = dt->map.size ? (int)(nbytes / dt->map.size) : 0;
        int rc = MPI_SUCCESS;
        if (u->read_fn_c != NULL)
            rc = u->read_fn_c(buf, dt, whole, (void *)src, 0, u->extra);
        else if (u->read_fn != NULL && u->read_fn != MPI_CONVERSION_FN_NULL)
            rc = u->read_fn(buf, dt, whole, (void *)src, 0, u->extra);
        else {
            ivc_data_t d;
            ivc_mpi_data(&d, buf, count, dt);
            ivc_data_unpack(&d, 0, src, nbytes);
        }
        return rc == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_CONVERSION;
    }
    if (src == buf && ivc_io_direct(fh, count, dt))
        return MPI_SUCCESS;
    ivc_data_t d;
    ivc_mpi_data(&d, buf, count, dt);
    ivc_data_unpack(&d, 0, src, nbytes);
    return MPI_SUCCESS;
}
