/* Error classes of the I/O chapter and file error handlers.
 *
 * With the default handler (MPI_ERRORS_RETURN for files): a missing file, invalid access
 * modes, MPI_MODE_EXCL on an existing file, reading a write-only file, writing a read-only
 * one, an unknown data representation, a filetype that is no multiple of the etype, a
 * negative count, the null handle, deleting a missing file, registering a representation
 * twice. A user handler on a file gets the file and the code; one set on MPI_FILE_NULL
 * serves opens.
 *
 * Argument "private" (simulated VMs, each with its own /tmp): a file under /tmp, where every
 * rank made the same directory in its own /tmp, must fail to open with MPI_ERR_NOT_SAME on
 * every rank, and leave no file behind. "shared" (plain processes): the same open works. */
#include "mpi/io/t_io.h"

#include <sys/stat.h>

static int handler_calls;
static MPI_File handler_file;
static int handler_code;

static void file_handler(MPI_File *fh, int *code, ...)
{
    handler_calls++;
    handler_file = *fh;
    handler_code = *code;
}

static int conv(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset pos,
                void *extra)
{
    (void)userbuf, (void)dt, (void)count, (void)filebuf, (void)pos, (void)extra;
    return MPI_SUCCESS;
}

static int extent_fn(MPI_Datatype dt, MPI_Aint *ext, void *extra)
{
    (void)extra;
    MPI_Aint lb;
    return MPI_Type_get_extent(dt, &lb, ext);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    const char *mode = argc > 1 ? argv[1] : "";
    char name[256];
    t_io_name(name, sizeof(name), "errors");
    MPI_File fh = MPI_FILE_NULL;
    MPI_Status st;
    char buf[64] = {0};

    MPI_Errhandler eh;
    T_OK(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    if (eh != MPI_ERRORS_RETURN)
        t_fail("the default file error handler is not MPI_ERRORS_RETURN");
    MPI_Errhandler_free(&eh);

    T_CLASS(MPI_ERR_NO_SUCH_FILE,
            MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    T_CLASS(MPI_ERR_AMODE, MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY | MPI_MODE_CREATE,
                                         MPI_INFO_NULL, &fh));
    T_CLASS(MPI_ERR_AMODE, MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_WRONLY,
                                         MPI_INFO_NULL, &fh));
    T_CLASS(MPI_ERR_AMODE,
            MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL,
                          MPI_INFO_NULL, &fh));
    T_CLASS(MPI_ERR_AMODE, MPI_File_open(MPI_COMM_WORLD, name, 0, MPI_INFO_NULL, &fh));
    T_CLASS(MPI_ERR_BAD_FILE, MPI_File_open(MPI_COMM_WORLD, ".", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    if (fh != MPI_FILE_NULL)
        t_fail("a failed open changed the handle");

    /* Write-only: reading is refused, and so is EXCL on the file that exists now. */
    T_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL,
                       MPI_INFO_NULL, &fh));
    T_CLASS(MPI_ERR_ACCESS, MPI_File_read_at(fh, 0, buf, 1, MPI_BYTE, &st));
    T_CLASS(MPI_ERR_COUNT, MPI_File_write_at(fh, 0, buf, -1, MPI_BYTE, &st));
    T_CLASS(MPI_ERR_UNSUPPORTED_DATAREP,
            MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "no-such-rep", MPI_INFO_NULL));
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_BYTE, &three);
    MPI_Type_commit(&three);
    T_CLASS(MPI_ERR_TYPE, MPI_File_set_view(fh, 0, MPI_INT, three, "native", MPI_INFO_NULL));
    MPI_Type_free(&three);
    T_CLASS(MPI_ERR_ARG, MPI_File_write_at(fh, -5, buf, 1, MPI_BYTE, &st));
    T_OK(MPI_File_write_at(fh, (MPI_Offset)t_rank * 8, "abcdefgh", 8, MPI_BYTE, &st));
    T_OK(MPI_File_close(&fh));
    T_CLASS(MPI_ERR_FILE_EXISTS,
            MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL,
                          MPI_INFO_NULL, &fh));

    /* Read-only: writes, set_size and preallocate are refused. */
    T_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    T_CLASS(MPI_ERR_READ_ONLY, MPI_File_write_at(fh, 0, buf, 1, MPI_BYTE, &st));
    T_CLASS(MPI_ERR_READ_ONLY, MPI_File_write_all(fh, buf, 1, MPI_BYTE, &st));
    T_CLASS(MPI_ERR_ACCESS, MPI_File_set_size(fh, 0));
    T_OK(MPI_File_read_at(fh, 0, buf, 8, MPI_BYTE, &st));
    if (memcmp(buf, "abcdefgh", 8) != 0)
        t_fail("read-only file: expected abcdefgh, got %.8s", buf);

    /* A user handler on the file. */
    MPI_Errhandler mine;
    T_OK(MPI_File_create_errhandler(file_handler, &mine));
    T_OK(MPI_File_set_errhandler(fh, mine));
    T_OK(MPI_File_get_errhandler(fh, &eh));
    if (eh != mine)
        t_fail("MPI_File_get_errhandler does not give the handler set");
    MPI_Errhandler_free(&eh);
    int rc = MPI_File_write_at(fh, 0, buf, 1, MPI_BYTE, &st);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK_INT(MPI_ERR_READ_ONLY, cls, "class returned after the user handler ran");
    CHECK_INT(1, handler_calls, "calls of the file's handler");
    if (handler_file != fh)
        t_fail("the handler got another file handle");
    MPI_Error_class(handler_code, &cls);
    CHECK_INT(MPI_ERR_READ_ONLY, cls, "class the handler got");
    T_OK(MPI_File_call_errhandler(fh, MPI_ERR_OTHER));
    CHECK_INT(2, handler_calls, "calls after MPI_File_call_errhandler");
    CHECK_INT(MPI_ERR_OTHER, handler_code, "code of MPI_File_call_errhandler");
    T_OK(MPI_File_close(&fh));
    T_CLASS(MPI_ERR_FILE, MPI_File_get_amode(MPI_FILE_NULL, &rc));

    /* The handler of MPI_FILE_NULL serves opens. */
    T_OK(MPI_File_set_errhandler(MPI_FILE_NULL, mine));
    handler_calls = 0;
    char missing[300];
    snprintf(missing, sizeof(missing), "%s.missing", name);
    rc = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK_INT(1, handler_calls, "calls of MPI_FILE_NULL's handler for a failed open");
    if (handler_file != MPI_FILE_NULL)
        t_fail("MPI_FILE_NULL's handler got a handle that is not MPI_FILE_NULL");
    T_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MPI_Errhandler_free(&mine);

    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        T_OK(MPI_File_delete(name, MPI_INFO_NULL));
        T_CLASS(MPI_ERR_NO_SUCH_FILE, MPI_File_delete(name, MPI_INFO_NULL));
    }

    /* Representations: a second registration of one name. */
    T_OK(MPI_Register_datarep("ivc-test-rep", conv, conv, extent_fn, NULL));
    T_CLASS(MPI_ERR_DUP_DATAREP, MPI_Register_datarep("ivc-test-rep", conv, conv, extent_fn, NULL));
    T_CLASS(MPI_ERR_DUP_DATAREP, MPI_Register_datarep("external32", conv, conv, extent_fn, NULL));

    /* A directory that is not one file system for all ranks. */
    if (!strcmp(mode, "private") || !strcmp(mode, "shared")) {
        unsigned long tag = 0;
        if (getrandom(&tag, sizeof(tag), 0) != (ssize_t)sizeof(tag))
            tag = (unsigned long)getpid();
        MPI_Bcast(&tag, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
        char dir[128], path[160];
        snprintf(dir, sizeof(dir), "/tmp/ivc-io-test-%lx", tag);
        snprintf(path, sizeof(path), "%s/data", dir);
        mkdir(dir, 0700); /* every rank, in its own /tmp (or the one /tmp) */
        MPI_Barrier(MPI_COMM_WORLD);
        rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                           &fh);
        if (!strcmp(mode, "private")) {
            cls = -1;
            if (rc != MPI_SUCCESS)
                MPI_Error_class(rc, &cls);
            CHECK_INT(MPI_ERR_NOT_SAME, cls, "open in a directory each VM has its own of");
            struct stat sb;
            if (stat(path, &sb) == 0)
                t_fail("%s was left behind by the failed open", path);
        } else {
            T_OK(rc);
            T_OK(MPI_File_close(&fh));
            MPI_Barrier(MPI_COMM_WORLD);
            if (t_rank == 0)
                unlink(path);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        rmdir(dir);
    }
    MPI_Finalize();
    return 0;
}
