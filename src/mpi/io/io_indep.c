/* Independent access: explicit offsets, the individual file pointer and the shared file
 * pointer, blocking and nonblocking.
 *
 * Each access packs the program's data into the file's representation (nothing to do for
 * contiguous native data), maps it through the view to file pieces and moves them with
 * pread/pwrite. A read with several pieces close together reads their whole span at once and
 * picks the pieces out (data sieving); a write never writes bytes it was not given, so holes
 * of the view stay as other ranks left them. In atomic mode an access holds an fcntl
 * byte-range lock (open-file-description locks where the kernel has them) over its span:
 * shared for reads, exclusive for writes, so concurrent accesses are serialized as the
 * standard's atomic mode asks.
 *
 * The nonblocking calls (MPI_File_iread ...) do the access when they are called and return a
 * request that is already complete: the standard lets an implementation finish a
 * nonblocking operation at any time between its start and its completion call, and the
 * data, the status and the file pointers are what they would be at completion. */
#include "mpi_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef F_OFD_SETLKW
#define IO_SETLKW F_SETLKW
#else
#define IO_SETLKW F_OFD_SETLKW
#endif

#define SIEVE_MAX (4 << 20) /* the largest span a sieving read reads at once */

static int lock_range(int fd, int type, int64_t off, int64_t len)
{
    struct flock fl;
    memset(&fl, 0, sizeof(fl));
    fl.l_type = (short)type;
    fl.l_whence = SEEK_SET;
    fl.l_start = off;
    fl.l_len = len;
    while (fcntl(fd, IO_SETLKW, &fl) != 0) {
        if (errno != EINTR)
            return -errno;
    }
    return 0;
}

static int full_pwrite(int fd, const char *p, int64_t len, int64_t off)
{
    while (len > 0) {
        ssize_t w = pwrite(fd, p, (size_t)len, off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        p += w, off += w, len -= w;
    }
    return 0;
}

/* Reads up to len bytes; returns how many (short at the end of the file) or -errno. */
static int64_t full_pread(int fd, char *p, int64_t len, int64_t off)
{
    int64_t got = 0;
    while (got < len) {
        ssize_t r = pread(fd, p + got, (size_t)(len - got), off + got);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (r == 0)
            break;
        got += r;
    }
    return got;
}

int ivc_io_rw_pieces(MPI_File fh, int write, const io_piece_t *pc, uint64_t n, char *data,
                     uint64_t *done)
{
    *done = 0;
    if (n == 0)
        return MPI_SUCCESS;
    int64_t lo = pc[0].off, hi = pc[n - 1].off + pc[n - 1].len;
    int locked = 0, err = 0;
    if (fh->atomic) {
        err = lock_range(fh->fd, write ? F_WRLCK : F_RDLCK, lo, hi - lo);
        if (err != 0)
            return ivc_io_errno_class(-err);
        locked = 1;
    }
    uint64_t moved = 0;
    char *sieve = NULL;
    for (uint64_t i = 0; i < n && err == 0;) {
        if (write) {
            err = full_pwrite(fh->fd, data + pc[i].soff, pc[i].len, pc[i].off);
            if (err == 0)
                moved += (uint64_t)pc[i].len;
            i++;
            continue;
        }
        /* Reads: the pieces i..j-1 whose span fits SIEVE_MAX and is at least half data. */
        uint64_t j = i + 1;
        int64_t want = pc[i].len;
        while (j < n && pc[j].off + pc[j].len - pc[i].off <= SIEVE_MAX &&
               2 * (want + pc[j].len) >= pc[j].off + pc[j].len - pc[i].off) {
            want += pc[j].len;
            j++;
        }
        if (j == i + 1) {
            int64_t got = full_pread(fh->fd, data + pc[i].soff, pc[i].len, pc[i].off);
            if (got < 0) {
                err = (int)got;
                break;
            }
            moved += (uint64_t)got;
            if (got < pc[i].len)
                break; /* the end of the file */
            i++;
            continue;
        }
        int64_t span = pc[j - 1].off + pc[j - 1].len - pc[i].off;
        if (sieve == NULL && (sieve = malloc(SIEVE_MAX)) == NULL) {
            err = -ENOMEM;
            break;
        }
        int64_t got = full_pread(fh->fd, sieve, span, pc[i].off);
        if (got < 0) {
            err = (int)got;
            break;
        }
        int short_read = 0;
        for (uint64_t k = i; k < j; k++) {
            int64_t rel = pc[k].off - pc[i].off;
            int64_t avail = got - rel < pc[k].len ? got - rel : pc[k].len;
            if (avail > 0) {
                memcpy(data + pc[k].soff, sieve + rel, (size_t)avail);
                moved += (uint64_t)avail;
            }
            if (avail < pc[k].len) {
                short_read = 1;
                break;
            }
        }
        if (short_read)
            break;
        i = j;
    }
    free(sieve);
    if (locked)
        lock_range(fh->fd, F_UNLCK, lo, hi - lo);
    *done = moved;
    return err == 0 ? MPI_SUCCESS : ivc_io_errno_class(-err);
}

void ivc_io_status(MPI_Status *st, uint64_t bytes)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    int keep = st->MPI_ERROR;
    PMPI_Status_set_elements_x(st, MPI_BYTE, (MPI_Count)bytes);
    PMPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = keep;
}

/* ---- requests complete at start ---- */

typedef struct done_req {
    MPI_Status st;
    int err;
} done_req_t;

static int done_query(void *extra, MPI_Status *status)
{
    done_req_t *d = extra;
    int keep = status->MPI_ERROR;
    *status = d->st;
    status->MPI_ERROR = keep;
    return d->err;
}

static int done_free(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

static int done_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS; /* complete already: cancelling does nothing */
}

int ivc_io_req_done(const MPI_Status *st, int err, MPI_Request *req)
{
    done_req_t *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return MPI_ERR_NO_MEM;
    d->st = *st;
    d->err = err;
    int rc = PMPI_Grequest_start(done_query, done_free, done_cancel, d, req);
    if (rc != MPI_SUCCESS) {
        free(d);
        return rc;
    }
    return PMPI_Grequest_complete(*req);
}

/* ---- checks ---- */

int ivc_io_check_access(MPI_File fh, int write, int count, MPI_Datatype dt, const void *buf,
                        const char *fn)
{
    if (write && (fh->amode & MPI_MODE_RDONLY))
        return ivc_io_raise(fh, MPI_ERR_READ_ONLY, fn, "the file is open read-only");
    if (!write && (fh->amode & MPI_MODE_WRONLY))
        return ivc_io_raise(fh, MPI_ERR_ACCESS, fn, "the file is open write-only");
    if (count < 0)
        return ivc_io_raise(fh, MPI_ERR_COUNT, fn, "negative count");
    if (!ivc_mpi_dt_valid(dt) || !dt->committed)
        return ivc_io_raise(fh, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype");
    /* Whole etypes (as ROMIO checks it: bytes of MPI_BYTE through a view of doubles are
     * fine when they make whole doubles). */
    if ((uint64_t)count * dt->map.size % fh->esize != 0)
        return ivc_io_raise(fh, MPI_ERR_TYPE, fn, "the data is not a whole number of etypes");
    if (ivc_mpi_dt_null_buf(buf, count, dt))
        return ivc_io_raise(fh, MPI_ERR_BUFFER, fn, "NULL buffer");
    return MPI_SUCCESS;
}

static int not_sequential(MPI_File fh, const char *fn)
{
    if (fh->amode & MPI_MODE_SEQUENTIAL)
        return ivc_io_raise(fh, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                            "only the shared file pointer may be used on a file opened with "
                            "MPI_MODE_SEQUENTIAL");
    return MPI_SUCCESS;
}

/* ---- the access itself ---- */

/* Reads or writes count dt at buf at etype position pos of the view; *bytes: the bytes
 * moved. Returns MPI_SUCCESS or raises on fh. */
static int access_at(MPI_File fh, int write, MPI_Offset pos, void *buf, int count,
                     MPI_Datatype dt, uint64_t *bytes, const char *fn)
{
    *bytes = 0;
    if (pos < 0)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "negative offset");
    uint64_t n = (uint64_t)count * dt->map.size;
    if (n == 0)
        return MPI_SUCCESS;
    void *data;
    int owned = 0, rc;
    if (write) {
        rc = ivc_io_pack(fh, buf, count, dt, &data, &owned, &n);
    } else if (ivc_io_direct(fh, count, dt)) {
        data = buf;
        rc = MPI_SUCCESS;
    } else {
        data = malloc(n);
        owned = 1;
        rc = data ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    }
    if (rc != MPI_SUCCESS)
        return ivc_io_raise(fh, rc, fn, "cannot convert the data");
    io_piece_t *pc;
    uint64_t np;
    rc = ivc_io_view_pieces(fh, pos, n, &pc, &np);
    if (rc == MPI_SUCCESS) {
        rc = ivc_io_rw_pieces(fh, write, pc, np, data, bytes);
        free(pc);
    }
    if (rc == MPI_SUCCESS && !write)
        rc = ivc_io_unpack(fh, data, *bytes, buf, count, dt);
    if (owned)
        free(data);
    if (rc != MPI_SUCCESS)
        return ivc_io_raise(fh, rc, fn, "%s failed", write ? "write" : "read");
    return MPI_SUCCESS;
}

/* The kinds of positioning. */
enum { AT_EXPLICIT, AT_INDIVIDUAL, AT_SHARED };

static int access_any(MPI_File fh, int kind, int write, MPI_Offset offset, void *buf, int count,
                      MPI_Datatype dt, MPI_Status *status, const char *fn)
{
    IO_CHECK(fh, fn);
    int rc = ivc_io_check_access(fh, write, count, dt, buf, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (kind != AT_SHARED && (rc = not_sequential(fh, fn)) != MPI_SUCCESS)
        return rc;
    MPI_Offset etypes = (MPI_Offset)((uint64_t)count * dt->map.size / fh->esize);
    MPI_Offset pos = offset;
    if (kind == AT_INDIVIDUAL) {
        pos = fh->fp;
    } else if (kind == AT_SHARED) {
        rc = ivc_io_shared_fetch_add(fh, etypes, &pos);
        if (rc != MPI_SUCCESS)
            return ivc_io_raise(fh, rc, fn, "cannot move the shared file pointer");
    }
    uint64_t bytes;
    rc = access_at(fh, write, pos, buf, count, dt, &bytes, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (kind == AT_INDIVIDUAL)
        fh->fp = pos + (MPI_Offset)(bytes / fh->esize);
    ivc_io_status(status, bytes);
    return MPI_SUCCESS;
}

static int iaccess_any(MPI_File fh, int kind, int write, MPI_Offset offset, void *buf, int count,
                       MPI_Datatype dt, MPI_Request *request, const char *fn)
{
    IO_CHECK(fh, fn);
    if (request == NULL)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "NULL request");
    MPI_Status st;
    memset(&st, 0, sizeof(st));
    int rc = access_any(fh, kind, write, offset, buf, count, dt, &st, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = ivc_io_req_done(&st, MPI_SUCCESS, request);
    if (rc != MPI_SUCCESS)
        return ivc_io_raise(fh, rc, fn, "cannot make the request");
    return MPI_SUCCESS;
}

/* clang-format off */
#define IO_BLOCKING(Name, kind, write, Const)                                                      \
    int PMPI_File_##Name(MPI_File fh, Const void *buf, int count, MPI_Datatype datatype,         \
                         MPI_Status *status)                                                       \
    {                                                                                              \
        return access_any(fh, kind, write, 0, (void *)buf, count, datatype, status,               \
                          "MPI_File_" #Name);                                                      \
    }
#define IO_BLOCKING_AT(Name, write, Const)                                                         \
    int PMPI_File_##Name(MPI_File fh, MPI_Offset offset, Const void *buf, int count,             \
                         MPI_Datatype datatype, MPI_Status *status)                                \
    {                                                                                              \
        return access_any(fh, AT_EXPLICIT, write, offset, (void *)buf, count, datatype, status,   \
                          "MPI_File_" #Name);                                                      \
    }
#define IO_NONBLOCKING(Name, kind, write, Const)                                                   \
    int PMPI_File_##Name(MPI_File fh, Const void *buf, int count, MPI_Datatype datatype,         \
                         MPI_Request *request)                                                     \
    {                                                                                              \
        return iaccess_any(fh, kind, write, 0, (void *)buf, count, datatype, request,             \
                           "MPI_File_" #Name);                                                     \
    }
#define IO_NONBLOCKING_AT(Name, write, Const)                                                      \
    int PMPI_File_##Name(MPI_File fh, MPI_Offset offset, Const void *buf, int count,             \
                         MPI_Datatype datatype, MPI_Request *request)                              \
    {                                                                                              \
        return iaccess_any(fh, AT_EXPLICIT, write, offset, (void *)buf, count, datatype,          \
                           request, "MPI_File_" #Name);                                            \
    }
/* clang-format on */

#define IO_NOCONST
IO_BLOCKING_AT(read_at, 0, IO_NOCONST)
IVC_MPI_WEAK(File_read_at)
IO_BLOCKING_AT(write_at, 1, const)
IVC_MPI_WEAK(File_write_at)
IO_BLOCKING(read, AT_INDIVIDUAL, 0, IO_NOCONST)
IVC_MPI_WEAK(File_read)
IO_BLOCKING(write, AT_INDIVIDUAL, 1, const)
IVC_MPI_WEAK(File_write)
IO_BLOCKING(read_shared, AT_SHARED, 0, IO_NOCONST)
IVC_MPI_WEAK(File_read_shared)
IO_BLOCKING(write_shared, AT_SHARED, 1, const)
IVC_MPI_WEAK(File_write_shared)
IO_NONBLOCKING_AT(iread_at, 0, IO_NOCONST)
IVC_MPI_WEAK(File_iread_at)
IO_NONBLOCKING_AT(iwrite_at, 1, const)
IVC_MPI_WEAK(File_iwrite_at)
IO_NONBLOCKING(iread, AT_INDIVIDUAL, 0, IO_NOCONST)
IVC_MPI_WEAK(File_iread)
IO_NONBLOCKING(iwrite, AT_INDIVIDUAL, 1, const)
IVC_MPI_WEAK(File_iwrite)
IO_NONBLOCKING(iread_shared, AT_SHARED, 0, IO_NOCONST)
IVC_MPI_WEAK(File_iread_shared)
IO_NONBLOCKING(iwrite_shared, AT_SHARED, 1, const)
IVC_MPI_WEAK(File_iwrite_shared)

/* ---- positions ---- */

/* The etype position at the end of the file under the view. */
static int end_pos(MPI_File fh, MPI_Offset *pos)
{
    struct stat st;
    if (fstat(fh->fd, &st) != 0)
        return ivc_io_errno_class(errno);
    *pos = ivc_io_view_pos_of_byte(fh, st.st_size);
    return MPI_SUCCESS;
}

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    const char *fn = "MPI_File_seek";
    IO_CHECK(fh, fn);
    int rc = not_sequential(fh, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Offset base;
    if (whence == MPI_SEEK_SET)
        base = 0;
    else if (whence == MPI_SEEK_CUR)
        base = fh->fp;
    else if (whence == MPI_SEEK_END) {
        if ((rc = end_pos(fh, &base)) != MPI_SUCCESS)
            return ivc_io_raise(fh, rc, fn, "fstat failed");
    } else
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "invalid whence %d", whence);
    if (base + offset < 0)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "the position would be negative");
    fh->fp = base + offset;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_seek)

int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    const char *fn = "MPI_File_get_position";
    IO_CHECK(fh, fn);
    int rc = not_sequential(fh, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (offset == NULL)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "NULL offset");
    *offset = fh->fp;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_get_position)

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    const char *fn = "MPI_File_get_byte_offset";
    IO_CHECK(fh, fn);
    int rc = not_sequential(fh, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (disp == NULL)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "NULL disp");
    if (offset < 0)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "negative offset");
    *disp = ivc_io_view_byte(fh, offset);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_get_byte_offset)

int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    const char *fn = "MPI_File_seek_shared";
    IO_CHECK(fh, fn);
    if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "invalid whence %d", whence);
    ivc_io_coll_drain(fh);
    long long mine[4] = {offset, -offset, whence, -whence}, all[4];
    PMPI_Allreduce(mine, all, 4, MPI_LONG_LONG, MPI_MAX, fh->comm);
    if (all[0] != offset || all[1] != -offset || all[2] != whence || all[3] != -whence)
        return ivc_io_raise(fh, MPI_ERR_NOT_SAME, fn, "the ranks gave different positions");
    /* Every rank's earlier shared-pointer accesses are done before rank 0 moves it. */
    PMPI_Barrier(fh->comm);
    int err = MPI_SUCCESS;
    if (fh->rank == 0) {
        MPI_Offset base = 0;
        if (whence == MPI_SEEK_CUR)
            err = ivc_io_shared_fetch_add(fh, 0, &base);
        else if (whence == MPI_SEEK_END)
            err = end_pos(fh, &base);
        if (err == MPI_SUCCESS && base + offset < 0)
            err = MPI_ERR_ARG;
        if (err == MPI_SUCCESS)
            err = ivc_io_shared_set(fh, base + offset);
    }
    PMPI_Bcast(&err, 1, MPI_INT, 0, fh->comm);
    if (err != MPI_SUCCESS)
        return ivc_io_raise(fh, err, fn, "cannot move the shared file pointer");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_seek_shared)

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    const char *fn = "MPI_File_get_position_shared";
    IO_CHECK(fh, fn);
    if (offset == NULL)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "NULL offset");
    int rc = ivc_io_shared_fetch_add(fh, 0, offset);
    if (rc != MPI_SUCCESS)
        return ivc_io_raise(fh, rc, fn, "cannot read the shared file pointer");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_get_position_shared)
