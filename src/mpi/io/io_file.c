/* MPI_File objects: open, close, delete, sizes, the access mode, group, info hints, atomic
 * mode, sync, and the file error handlers.
 *
 * Open is collective: rank 0 opens (and creates) the file first and makes the sidecar of the
 * shared file pointer beside it under a random name (io_shared.c); every other rank must see
 * that sidecar, else the directory is not one file system for all ranks (a simulated VM's
 * own /tmp, a guest's local disk) and every rank gets MPI_ERR_NOT_SAME instead of writing
 * into files of its own. Only then do the others open the file, never creating it. */
#include "mpi_impl.h"

#include "base/ivc_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

MPI_Errhandler ivc_io_default_errh = MPI_ERRORS_RETURN;

int ivc_io_valid(MPI_File fh)
{
    return fh != MPI_FILE_NULL && fh->magic == FILE_MAGIC;
}

int ivc_io_raise(MPI_File fh, int cls, const char *fn, const char *fmt, ...)
{
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    MPI_File h = ivc_io_valid(fh) ? fh : MPI_FILE_NULL;
    MPI_Errhandler e = h != MPI_FILE_NULL ? h->errh : ivc_io_default_errh;
    return ivc_mpi_errh_invoke(e, ERRH_OBJ_FILE, &h, cls, fn, detail);
}

int ivc_io_errno_class(int err)
{
    switch (err) {
    case 0:
        return MPI_SUCCESS;
    case ENOENT:
        return MPI_ERR_NO_SUCH_FILE;
    case EEXIST:
        return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM:
        return MPI_ERR_ACCESS;
    case EROFS:
        return MPI_ERR_READ_ONLY;
    case ENOSPC:
    case EFBIG:
        return MPI_ERR_NO_SPACE;
    case EDQUOT:
        return MPI_ERR_QUOTA;
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ELOOP:
        return MPI_ERR_BAD_FILE;
    case ETXTBSY:
        return MPI_ERR_FILE_IN_USE;
    case ENOMEM:
        return MPI_ERR_NO_MEM;
    default:
        return MPI_ERR_IO;
    }
}

/* ---- hints ---- */

static int info_get(MPI_Info info, const char *key, char *val, int len)
{
    int flag = 0, n = len;
    if (info == MPI_INFO_NULL)
        return 0;
    if (PMPI_Info_get_string(info, key, &n, val, &flag) != MPI_SUCCESS || !flag)
        return 0;
    return 1;
}

static int cb_mode(const char *v, int dflt)
{
    if (!strcmp(v, "enable"))
        return IO_CB_ENABLE;
    if (!strcmp(v, "disable"))
        return IO_CB_DISABLE;
    if (!strcmp(v, "automatic"))
        return IO_CB_AUTO;
    return dflt;
}

static const char *cb_name(int m)
{
    return m == IO_CB_ENABLE ? "enable" : m == IO_CB_DISABLE ? "disable" : "automatic";
}

/* Takes the hints IVC acts on from info. Unknown or malformed values leave the current
 * setting. */
static void hints_apply(MPI_File fh, MPI_Info info)
{
    char v[MPI_MAX_INFO_VAL + 1];
    if (info == MPI_INFO_NULL)
        return;
    if (info_get(info, "cb_nodes", v, sizeof(v))) {
        long n = strtol(v, NULL, 10);
        if (n > 0)
            fh->cb_nodes = n > fh->size ? fh->size : (int)n;
    }
    if (info_get(info, "cb_buffer_size", v, sizeof(v))) {
        long long n = strtoll(v, NULL, 10);
        if (n >= 4096 && n <= (1LL << 30))
            fh->cb_buffer_size = n;
    }
    if (info_get(info, "romio_cb_read", v, sizeof(v)))
        fh->cb_read = cb_mode(v, fh->cb_read);
    if (info_get(info, "romio_cb_write", v, sizeof(v)))
        fh->cb_write = cb_mode(v, fh->cb_write);
    if (info_get(info, "striping_unit", v, sizeof(v))) {
        long long n = strtoll(v, NULL, 10);
        if (n > 0)
            fh->striping_unit = n;
    }
    /* Other hints (striping_factor, access_style, ...) are accepted and not acted on, so
     * MPI_File_get_info does not report them: it gives the hints in use. */
}

/* The hints that shape collective access must be the same at every rank (each computes the
 * rounds and aggregators itself): rank 0's values are taken. Collective. */
static void hints_agree(MPI_File fh)
{
    long long v[5] = {fh->cb_nodes, fh->cb_buffer_size, fh->cb_read, fh->cb_write,
                      fh->striping_unit};
    PMPI_Bcast(v, 5, MPI_LONG_LONG, 0, fh->comm);
    fh->cb_nodes = (int)v[0];
    fh->cb_buffer_size = v[1];
    fh->cb_read = (int)v[2];
    fh->cb_write = (int)v[3];
    fh->striping_unit = v[4];
}

/* The aggregators: cb_nodes ranks, taken round robin over the hosts (the ranks that share a
 * region), so that the default, one per host, is each host's lowest rank. */
static int aggr_choose(MPI_File fh)
{
    int *host = malloc(sizeof(int) * (size_t)fh->size);
    int *aggr = malloc(sizeof(int) * (size_t)fh->size);
    int *taken = calloc((size_t)fh->size, sizeof(int));
    if (host == NULL || aggr == NULL || taken == NULL) {
        free(host), free(aggr), free(taken);
        return MPI_ERR_NO_MEM;
    }
    if (fh->size == 1) {
        host[0] = 0;
    } else {
        MPI_Comm node;
        int leader = fh->rank;
        if (PMPI_Comm_split_type(fh->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
            MPI_SUCCESS) {
            PMPI_Bcast(&leader, 1, MPI_INT, 0, node);
            PMPI_Comm_free(&node);
        }
        PMPI_Allgather(&leader, 1, MPI_INT, host, 1, MPI_INT, fh->comm);
    }
    int nhosts = 0;
    for (int r = 0; r < fh->size; r++)
        if (host[r] == r)
            nhosts++;
    if (fh->cb_nodes <= 0)
        fh->cb_nodes = nhosts;
    int n = 0;
    while (n < fh->cb_nodes) {
        /* one more rank of every host, in host order */
        for (int h = 0; h < fh->size && n < fh->cb_nodes; h++) {
            if (host[h] != h)
                continue;
            for (int r = h; r < fh->size; r++) {
                if (host[r] == h && !taken[r]) {
                    taken[r] = 1;
                    n++;
                    break;
                }
            }
        }
    }
    n = 0;
    for (int r = 0; r < fh->size; r++)
        if (taken[r])
            aggr[n++] = r;
    free(host);
    free(taken);
    free(fh->aggr);
    fh->aggr = aggr;
    return MPI_SUCCESS;
}

/* ---- open, close, delete ---- */

static int amode_check(int amode)
{
    int acc = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
    if (acc != MPI_MODE_RDONLY && acc != MPI_MODE_WRONLY && acc != MPI_MODE_RDWR)
        return 0;
    if (acc == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return 0;
    if (acc == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL))
        return 0;
    int all = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
              MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL |
              MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
    return (amode & ~all) == 0;
}

static void file_free(MPI_File fh)
{
    if (fh->fd >= 0)
        close(fh->fd);
    ivc_io_shared_close(fh);
    ivc_io_view_free(fh);
    if (fh->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&fh->comm);
    if (fh->ccomm != MPI_COMM_NULL)
        PMPI_Comm_free(&fh->ccomm);
    ivc_mpi_errh_release(fh->errh);
    free(fh->aggr);
    free(fh->path);
    free(fh->spath);
    fh->magic = 0;
    free(fh);
}

int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    const char *fn = "MPI_File_open";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ivc_mpi_comm_valid(comm))
        return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_COMM, fn, "invalid communicator");
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_COMM, fn, "an intercommunicator");
    if (filename == NULL || fh == NULL)
        return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_ARG, fn, "NULL file name or handle");
    if (!amode_check(amode))
        return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_AMODE, fn, "invalid access mode 0x%x", amode);
    /* ROMIO's file-system prefixes ("ufs:", "nfs:") name the same paths. */
    const char *colon = strchr(filename, ':');
    if (colon != NULL && colon - filename > 1 && colon - filename < 8 && strchr(filename, '/') > colon)
        filename = colon + 1;

    MPI_File f = calloc(1, sizeof(*f));
    if (f == NULL)
        return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    f->magic = FILE_MAGIC;
    f->fd = f->sfd = -1;
    f->comm = f->ccomm = MPI_COMM_NULL;
    f->amode = amode;
    f->errh = ivc_io_default_errh;
    ivc_mpi_errh_retain(f->errh);
    f->cb_buffer_size = 16 << 20;
    f->cb_read = f->cb_write = IO_CB_AUTO; /* ROMIO's default */
    f->path = strdup(filename);
    ivc_io_view_default(f);
    if (f->path == NULL || PMPI_Comm_dup(comm, &f->comm) != MPI_SUCCESS ||
        PMPI_Comm_dup(comm, &f->ccomm) != MPI_SUCCESS) {
        file_free(f);
        return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    PMPI_Comm_rank(f->comm, &f->rank);
    PMPI_Comm_size(f->comm, &f->size);
    hints_apply(f, info);
    hints_agree(f);

    int acc = amode & MPI_MODE_RDONLY ? O_RDONLY : amode & MPI_MODE_WRONLY ? O_WRONLY : O_RDWR;
    int flags = acc | O_CLOEXEC;
    int created = 0, err = 0;
    /* Rank 0 first: only it creates the file. */
    if (f->rank == 0) {
        f->fd = (amode & MPI_MODE_EXCL) ? -1 : open(filename, flags);
        if (f->fd < 0 && (amode & MPI_MODE_CREATE) && ((amode & MPI_MODE_EXCL) || errno == ENOENT)) {
            f->fd = open(filename, flags | O_CREAT | O_EXCL, 0666);
            created = f->fd >= 0;
        }
        struct stat st;
        if (f->fd >= 0 && fstat(f->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
            close(f->fd); /* a directory opens read-only; it is no file to access */
            f->fd = -1;
            errno = EISDIR;
        }
        err = f->fd < 0 ? ivc_io_errno_class(errno) : MPI_SUCCESS;
        if (err != MPI_SUCCESS)
            ivc_debug("%s: %s: %s", fn, filename, strerror(errno));
    }
    PMPI_Bcast(&err, 1, MPI_INT, 0, f->comm);
    if (err != MPI_SUCCESS) {
        file_free(f);
        return ivc_io_raise(MPI_FILE_NULL, err, fn, "cannot open %s", filename);
    }
    err = ivc_io_shared_open(f, fn); /* collective; MPI_ERR_NOT_SAME if not one directory */
    if (err == MPI_SUCCESS && f->rank != 0) {
        f->fd = open(filename, flags);
        if (f->fd < 0)
            err = ivc_io_errno_class(errno);
    }
    int all = err;
    PMPI_Allreduce(&err, &all, 1, MPI_INT, MPI_MAX, f->comm);
    if (all == MPI_SUCCESS)
        all = aggr_choose(f);
    if (all != MPI_SUCCESS) {
        /* Nothing of the failed open is left when any rank returns. */
        if (created)
            unlink(filename);
        ivc_io_shared_close(f);
        PMPI_Barrier(f->comm);
        file_free(f);
        if (all == MPI_ERR_NOT_SAME)
            return ivc_io_raise(MPI_FILE_NULL, all, fn,
                                "%s: the directory is not shared by every rank of the "
                                "communicator (each sees a file system of its own; see "
                                "ivcrun --share)",
                                filename);
        return ivc_io_raise(MPI_FILE_NULL, all, fn, "cannot open %s on every rank", filename);
    }
    if (amode & MPI_MODE_APPEND) {
        struct stat st;
        if (fstat(f->fd, &st) == 0)
            f->fp = ivc_io_view_pos_of_byte(f, st.st_size);
        if (f->rank == 0)
            ivc_io_shared_set(f, f->fp);
        PMPI_Barrier(f->comm);
    }
    *fh = f;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_open)

int PMPI_File_close(MPI_File *fh)
{
    const char *fn = "MPI_File_close";
    if (fh == NULL)
        return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_ARG, fn, "NULL handle pointer");
    MPI_File f = *fh;
    IO_CHECK(f, fn);
    if (f->split != MPI_REQUEST_NULL)
        PMPI_Wait(&f->split, MPI_STATUS_IGNORE);
    ivc_io_coll_drain(f);
    /* Every rank is done with the file and the sidecar before rank 0 removes them. */
    PMPI_Barrier(f->comm);
    int rc = MPI_SUCCESS;
    if (close(f->fd) != 0)
        rc = ivc_io_errno_class(errno);
    f->fd = -1;
    if (f->amode & MPI_MODE_DELETE_ON_CLOSE) {
        /* Gone for every rank when close returns. */
        if (f->rank == 0)
            unlink(f->path);
        PMPI_Barrier(f->comm);
    }
    file_free(f);
    *fh = MPI_FILE_NULL;
    if (rc != MPI_SUCCESS)
        return ivc_io_raise(MPI_FILE_NULL, rc, fn, "close failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_close)

int PMPI_File_delete(const char *filename, MPI_Info info)
{
    const char *fn = "MPI_File_delete";
    (void)info;
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (filename == NULL)
        return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_ARG, fn, "NULL file name");
    const char *colon = strchr(filename, ':');
    if (colon != NULL && colon - filename > 1 && colon - filename < 8 && strchr(filename, '/') > colon)
        filename = colon + 1;
    if (unlink(filename) != 0)
        return ivc_io_raise(MPI_FILE_NULL, ivc_io_errno_class(errno), fn, "%s: %s", filename,
                            strerror(errno));
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_delete)

/* ---- sizes ---- */

/* Collective calls whose argument must be the same everywhere: MPI_ERR_NOT_SAME if not. */
static int same_everywhere(MPI_File fh, MPI_Offset v)
{
    long long mm[2] = {v, -v}, out[2];
    PMPI_Allreduce(mm, out, 2, MPI_LONG_LONG, MPI_MAX, fh->comm);
    return out[0] == v && out[1] == -v;
}

int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    const char *fn = "MPI_File_set_size";
    IO_CHECK(fh, fn);
    if (fh->amode & MPI_MODE_RDONLY)
        return ivc_io_raise(fh, MPI_ERR_ACCESS, fn, "the file is open read-only");
    if (size < 0)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "negative size");
    ivc_io_coll_drain(fh);
    if (!same_everywhere(fh, size))
        return ivc_io_raise(fh, MPI_ERR_NOT_SAME, fn, "the ranks gave different sizes");
    int err = MPI_SUCCESS;
    if (fh->rank == 0 && ftruncate(fh->fd, size) != 0)
        err = ivc_io_errno_class(errno);
    PMPI_Bcast(&err, 1, MPI_INT, 0, fh->comm);
    if (err != MPI_SUCCESS)
        return ivc_io_raise(fh, err, fn, "ftruncate failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_set_size)

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    const char *fn = "MPI_File_preallocate";
    IO_CHECK(fh, fn);
    if (fh->amode & MPI_MODE_RDONLY)
        return ivc_io_raise(fh, MPI_ERR_ACCESS, fn, "the file is open read-only");
    if (fh->amode & MPI_MODE_SEQUENTIAL)
        return ivc_io_raise(fh, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                            "not allowed on a file opened with MPI_MODE_SEQUENTIAL");
    if (size < 0)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "negative size");
    ivc_io_coll_drain(fh);
    if (!same_everywhere(fh, size))
        return ivc_io_raise(fh, MPI_ERR_NOT_SAME, fn, "the ranks gave different sizes");
    int err = MPI_SUCCESS;
    if (fh->rank == 0 && size > 0) {
        /* Grows the file, never shrinks it; a file system without fallocate gets the size. */
        struct stat st;
        int e = posix_fallocate(fh->fd, 0, size);
        if (e == EOPNOTSUPP || e == EINVAL) {
            e = 0;
            if (fstat(fh->fd, &st) == 0 && st.st_size < size && ftruncate(fh->fd, size) != 0)
                e = errno;
        }
        err = ivc_io_errno_class(e);
    }
    PMPI_Bcast(&err, 1, MPI_INT, 0, fh->comm);
    if (err != MPI_SUCCESS)
        return ivc_io_raise(fh, err, fn, "preallocation failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_preallocate)

int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    const char *fn = "MPI_File_get_size";
    IO_CHECK(fh, fn);
    if (size == NULL)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "NULL size");
    struct stat st;
    if (fstat(fh->fd, &st) != 0)
        return ivc_io_raise(fh, ivc_io_errno_class(errno), fn, "fstat: %s", strerror(errno));
    *size = st.st_size;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_get_size)

/* ---- queries ---- */

int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    const char *fn = "MPI_File_get_amode";
    IO_CHECK(fh, fn);
    if (amode == NULL)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "NULL amode");
    *amode = fh->amode;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_get_amode)

int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    const char *fn = "MPI_File_get_group";
    IO_CHECK(fh, fn);
    if (group == NULL)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "NULL group");
    return PMPI_Comm_group(fh->comm, group);
}
IVC_MPI_WEAK(File_get_group)

int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    const char *fn = "MPI_File_get_info";
    IO_CHECK(fh, fn);
    if (info_used == NULL)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "NULL info");
    MPI_Info info;
    int rc = PMPI_Info_create(&info);
    if (rc != MPI_SUCCESS)
        return ivc_io_raise(fh, MPI_ERR_NO_MEM, fn, "out of memory");
    char v[64];
    snprintf(v, sizeof(v), "%d", fh->cb_nodes);
    PMPI_Info_set(info, "cb_nodes", v);
    snprintf(v, sizeof(v), "%lld", (long long)fh->cb_buffer_size);
    PMPI_Info_set(info, "cb_buffer_size", v);
    PMPI_Info_set(info, "romio_cb_read", cb_name(fh->cb_read));
    PMPI_Info_set(info, "romio_cb_write", cb_name(fh->cb_write));
    if (fh->striping_unit > 0) {
        snprintf(v, sizeof(v), "%lld", (long long)fh->striping_unit);
        PMPI_Info_set(info, "striping_unit", v);
    }
    /* The aggregators, as ROMIO names them (a list of ranks is IVC's own form). */
    char list[1024];
    size_t n = 0;
    list[0] = '\0';
    for (int i = 0; i < fh->cb_nodes && n + 16 < sizeof(list); i++)
        n += (size_t)snprintf(list + n, sizeof(list) - n, i ? " %d" : "%d", fh->aggr[i]);
    PMPI_Info_set(info, "ivc_cb_aggregators", list);
    *info_used = info;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_get_info)

int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    const char *fn = "MPI_File_set_info";
    IO_CHECK(fh, fn);
    ivc_io_coll_drain(fh);
    int old_nodes = fh->cb_nodes;
    hints_apply(fh, info);
    hints_agree(fh);
    if (fh->cb_nodes != old_nodes) {
        int rc = aggr_choose(fh);
        if (rc != MPI_SUCCESS)
            return ivc_io_raise(fh, rc, fn, "out of memory");
    }
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_set_info)

/* ---- consistency ---- */

int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    const char *fn = "MPI_File_set_atomicity";
    IO_CHECK(fh, fn);
    ivc_io_coll_drain(fh);
    if (!same_everywhere(fh, flag != 0))
        return ivc_io_raise(fh, MPI_ERR_NOT_SAME, fn, "the ranks gave different flags");
    fh->atomic = flag != 0;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_set_atomicity)

int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    const char *fn = "MPI_File_get_atomicity";
    IO_CHECK(fh, fn);
    if (flag == NULL)
        return ivc_io_raise(fh, MPI_ERR_ARG, fn, "NULL flag");
    *flag = fh->atomic;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_get_atomicity)

/* Every rank's writes reach the storage device (fsync) and, through the barrier, are seen by
 * every rank's reads after its sync: the sync-barrier-sync rule of the standard. */
int PMPI_File_sync(MPI_File fh)
{
    const char *fn = "MPI_File_sync";
    IO_CHECK(fh, fn);
    if (fh->amode & MPI_MODE_RDONLY)
        return ivc_io_raise(fh, MPI_ERR_ACCESS, fn, "the file is open read-only");
    ivc_io_coll_drain(fh);
    int err = fsync(fh->fd) != 0 && errno != EINVAL && errno != EROFS
                  ? ivc_io_errno_class(errno)
                  : MPI_SUCCESS;
    int all = err;
    PMPI_Allreduce(&err, &all, 1, MPI_INT, MPI_MAX, fh->comm);
    if (all != MPI_SUCCESS)
        return ivc_io_raise(fh, all, fn, "fsync failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_sync)

/* ---- error handlers ---- */

int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                                MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_File_create_errhandler";
    if (file_errhandler_fn == NULL || errhandler == NULL)
        return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_ARG, fn, "NULL argument");
    MPI_Errhandler h = calloc(1, sizeof(*h));
    if (h == NULL)
        return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    h->magic = ERRH_MAGIC;
    h->kind = ERRH_USER;
    h->obj = ERRH_OBJ_FILE;
    h->fn = (MPI_Comm_errhandler_function *)(void *)file_errhandler_fn;
    h->refcount = 1;
    *errhandler = h;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_create_errhandler)

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    const char *fn = "MPI_File_set_errhandler";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (file != MPI_FILE_NULL && !ivc_io_valid(file))
        return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_FILE, fn, "invalid file handle");
    if (!ivc_mpi_errh_usable(errhandler, ERRH_OBJ_FILE))
        return ivc_io_raise(file, MPI_ERR_ARG, fn, "not an error handler for files");
    MPI_Errhandler *slot = file == MPI_FILE_NULL ? &ivc_io_default_errh : &file->errh;
    ivc_mpi_errh_retain(errhandler);
    ivc_mpi_errh_release(*slot);
    *slot = errhandler;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_set_errhandler)

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_File_get_errhandler";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (file != MPI_FILE_NULL && !ivc_io_valid(file))
        return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_FILE, fn, "invalid file handle");
    if (errhandler == NULL)
        return ivc_io_raise(file, MPI_ERR_ARG, fn, "NULL errhandler");
    MPI_Errhandler h = file == MPI_FILE_NULL ? ivc_io_default_errh : file->errh;
    ivc_mpi_errh_retain(h);
    *errhandler = h;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_get_errhandler)

int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    const char *fn = "MPI_File_call_errhandler";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (fh != MPI_FILE_NULL && !ivc_io_valid(fh))
        return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_FILE, fn, "invalid file handle");
    ivc_io_raise(fh, errorcode, fn, "error raised by the program");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(File_call_errhandler)
