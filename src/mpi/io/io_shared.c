/* The shared file pointer: one 8-byte counter (in etypes of the view) in a sidecar file
 * beside the data file, `.<name>.ivc-shfp-<random>`, read and written under an exclusive
 * fcntl lock, so every rank of the file moves it atomically whatever VM or host it runs in,
 * as long as they share the file system (which open checks with this very file).
 *
 * Why not the region: a pointer that every rank moves has many writers, and the region gives
 * every section one writer (DESIGN.md, rule 3). The file system the data lives on is shared
 * by definition, and its byte-range locks are what file systems offer for this. Rank 0
 * creates the sidecar at open (under a name no earlier job can have left) and removes it at
 * close; a job that dies leaves it behind, a hidden file of 8 bytes. */
#include "mpi_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#ifndef F_OFD_SETLKW
#define IO_SETLKW F_SETLKW
#else
#define IO_SETLKW F_OFD_SETLKW
#endif

static int lock(int fd, int type)
{
    struct flock fl;
    memset(&fl, 0, sizeof(fl));
    fl.l_type = (short)type;
    fl.l_whence = SEEK_SET;
    fl.l_start = 0;
    fl.l_len = 8;
    while (fcntl(fd, IO_SETLKW, &fl) != 0)
        if (errno != EINTR)
            return -errno;
    return 0;
}

/* The sidecar's name for data file `path`: same directory, a random suffix. */
static char *sidecar_name(const char *path)
{
    char *d = strdup(path), *b = strdup(path);
    char *out = NULL;
    uint64_t rnd = 0;
    if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
        rnd = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid() << 32;
    if (d != NULL && b != NULL) {
        size_t len = strlen(path) + 64;
        out = malloc(len);
        if (out != NULL)
            snprintf(out, len, "%s/.%s.ivc-shfp-%016llx", dirname(d), basename(b),
                     (unsigned long long)rnd);
    }
    free(d);
    free(b);
    return out;
}

int ivc_io_shared_open(MPI_File fh, const char *fn)
{
    (void)fn;
    int len = 0;
    if (fh->rank == 0) {
        fh->spath = sidecar_name(fh->path);
        if (fh->spath != NULL) {
            fh->sfd = open(fh->spath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            uint64_t zero = 0;
            if (fh->sfd >= 0 && pwrite(fh->sfd, &zero, 8, 0) != 8) {
                close(fh->sfd);
                fh->sfd = -1;
                unlink(fh->spath);
            }
        }
        if (fh->sfd < 0) {
            /* A directory we may not write into (a read-only file's): no shared pointer. */
            free(fh->spath);
            fh->spath = NULL;
        } else {
            len = (int)strlen(fh->spath) + 1;
        }
    }
    PMPI_Bcast(&len, 1, MPI_INT, 0, fh->comm);
    if (len == 0)
        return MPI_SUCCESS;
    if (fh->rank != 0) {
        fh->spath = malloc((size_t)len);
        if (fh->spath == NULL)
            return MPI_ERR_NO_MEM; /* the Bcast below still has to happen */
    }
    PMPI_Bcast(fh->spath, len, MPI_CHAR, 0, fh->comm);
    if (fh->rank == 0)
        return MPI_SUCCESS;
    fh->sfd = open(fh->spath, O_RDWR | O_CLOEXEC);
    if (fh->sfd < 0)
        return errno == ENOENT ? MPI_ERR_NOT_SAME : ivc_io_errno_class(errno);
    return MPI_SUCCESS;
}

void ivc_io_shared_close(MPI_File fh)
{
    if (fh->sfd >= 0)
        close(fh->sfd);
    fh->sfd = -1;
    if (fh->rank == 0 && fh->spath != NULL)
        unlink(fh->spath);
    free(fh->spath);
    fh->spath = NULL;
}

int ivc_io_shared_fetch_add(MPI_File fh, MPI_Offset delta, MPI_Offset *old)
{
    if (fh->sfd < 0)
        return MPI_ERR_UNSUPPORTED_OPERATION;
    int err = lock(fh->sfd, F_WRLCK);
    if (err != 0)
        return ivc_io_errno_class(-err);
    int64_t v = 0;
    if (pread(fh->sfd, &v, 8, 0) != 8)
        err = errno ? -errno : -EIO;
    else if (delta != 0 && pwrite(fh->sfd, &(int64_t){v + delta}, 8, 0) != 8)
        err = errno ? -errno : -EIO;
    lock(fh->sfd, F_UNLCK);
    if (err != 0)
        return ivc_io_errno_class(-err);
    if (v < 0)
        return MPI_ERR_IO; /* not a pointer IVC wrote */
    *old = v;
    return MPI_SUCCESS;
}

int ivc_io_shared_set(MPI_File fh, MPI_Offset v)
{
    if (fh->sfd < 0)
        return v == 0 ? MPI_SUCCESS : MPI_ERR_UNSUPPORTED_OPERATION;
    int err = lock(fh->sfd, F_WRLCK);
    if (err != 0)
        return ivc_io_errno_class(-err);
    int64_t w = v;
    if (pwrite(fh->sfd, &w, 8, 0) != 8)
        err = errno ? -errno : -EIO;
    lock(fh->sfd, F_UNLCK);
    return err == 0 ? MPI_SUCCESS : ivc_io_errno_class(-err);
}
