/* MPI-IO through an ABI layer (MPICH's or the MPI-5 standard's): the file handle the program
 * holds, the access-mode bits, MPI_SEEK_*, MPI_DISPLACEMENT_CURRENT and the error classes
 * are the ABI's, and every datatype, status, info, group and error handler crossing the
 * boundary is converted. Collective and independent writes checked by the other rank,
 * a view with a derived filetype, seeks, the shared file pointer (ordered), nonblocking
 * I/O with its status, a file error handler that must receive the program's own file
 * handle, a data representation registered by the program whose functions must see the
 * program's datatype handle, Fortran integer round trips, and the errors a program sees
 * for a missing file and a closed one. The file lives in the working directory, which
 * every simulated VM shares. */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "abi_test.h"

#define N 256

static int rank, size;

/* ---- a file error handler: must get the program's handle and the ABI's error class ---- */
static MPI_File eh_file;
static int eh_calls, eh_class;
static void file_eh(MPI_File *fh, int *code, ...)
{
    eh_calls++;
    eh_file = *fh;
    MPI_Error_class(*code, &eh_class);
}

/* ---- a data representation "plus1": the file holds each int plus one ---- */
static int rep_extra = 77, rep_saw_int, rep_calls;
static int plus1_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    CHECK(extra == &rep_extra, "extent extra_state %p", extra);
    if (dt == MPI_INT)
        rep_saw_int++;
    MPI_Aint lb;
    return MPI_Type_get_extent(dt, &lb, extent);
}
static int plus1_write(void *user, MPI_Datatype dt, int count, void *file, MPI_Offset pos,
                       void *extra)
{
    (void)pos;
    rep_calls++;
    CHECK(extra == &rep_extra && dt == MPI_INT, "write conversion: wrong datatype or extra_state");
    for (int i = 0; i < count; i++)
        ((int *)file)[i] = ((int *)user)[i] + 1;
    return MPI_SUCCESS;
}
static int plus1_read(void *user, MPI_Datatype dt, int count, void *file, MPI_Offset pos,
                      void *extra)
{
    (void)pos;
    rep_calls++;
    CHECK(extra == &rep_extra && dt == MPI_INT, "read conversion: wrong datatype or extra_state");
    for (int i = 0; i < count; i++)
        ((int *)user)[i] = ((int *)file)[i] - 1;
    return MPI_SUCCESS;
}

/* Names no other job in this directory uses: a pid means little inside a simulated VM
 * (every VM has its pid 2), so rank 0 adds the time in nanoseconds; the ABI is in the name
 * too (abi.io and abi.std.io may run at once). */
static void names(char *path, char *path2, size_t len)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long id = (long long)getpid() * 1000000007LL + ts.tv_sec * 1000000000LL + ts.tv_nsec;
    MPI_Bcast(&id, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
#ifdef MPI_ABI_VERSION
    const char *abi = "std";
#else
    const char *abi = "mpich";
#endif
    snprintf(path, len, "abi_io.%s.%lld.dat", abi, id);
    snprintf(path2, len, "abi_io.%s.%lld.seq", abi, id);
}

int main(int argc, char **argv)
{
    abi_test_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[256], path2[256];
    names(path, path2, sizeof(path));
    int peer = (rank + 1) % size, cls = 0;

    /* A missing file: MPI_ERR_NO_SUCH_FILE returned (the default handler of files). */
    MPI_File fh = MPI_FILE_NULL;
    MPI_Errhandler eh0;
    OK(MPI_File_get_errhandler(MPI_FILE_NULL, &eh0));
    CHECK(eh0 == MPI_ERRORS_RETURN, "MPI_FILE_NULL's handler is not MPI_ERRORS_RETURN");
    int rc = MPI_File_open(MPI_COMM_WORLD, "abi_io.no-such-dir/x", MPI_MODE_RDONLY, MPI_INFO_NULL,
                           &fh);
    CHECK(rc != MPI_SUCCESS, "opening a missing file succeeded");
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_NO_SUCH_FILE || cls == MPI_ERR_FILE || cls == MPI_ERR_NOT_SAME,
          "missing file: class %d", cls);
    CHECK(fh == MPI_FILE_NULL, "a failed open set the handle");

    int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
    OK(MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh));
    CHECK(fh != MPI_FILE_NULL, "open gave MPI_FILE_NULL");
    int got = 0;
    OK(MPI_File_get_amode(fh, &got));
    CHECK_INT(got, amode);
    MPI_Group g, wg;
    int cmp = -1;
    OK(MPI_File_get_group(fh, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK_INT(cmp, MPI_IDENT);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Info info = MPI_INFO_NULL;
    OK(MPI_File_get_info(fh, &info));
    CHECK(info != MPI_INFO_NULL, "MPI_File_get_info gave MPI_INFO_NULL");
    MPI_Info_free(&info);

    /* Collective write at explicit offsets; the next rank reads each block. */
    int buf[N], in[N];
    for (int i = 0; i < N; i++)
        buf[i] = rank * 100000 + i;
    MPI_Status st;
    OK(MPI_File_write_at_all(fh, (MPI_Offset)rank * N * 4, buf, N, MPI_INT, &st));
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_INT(count, N);
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_sync(fh));
    memset(in, 0, sizeof(in));
    OK(MPI_File_read_at(fh, (MPI_Offset)peer * N * 4, in, N, MPI_INT, &st));
    for (int i = 0; i < N; i++)
        CHECK_INT(in[i], peer * 100000 + i);
    MPI_Offset fsize = 0;
    OK(MPI_File_get_size(fh, &fsize));
    CHECK_INT(fsize, (MPI_Offset)size * N * 4);

    /* Seeks through the individual file pointer (MPI_SEEK_* are the ABI's values). */
    MPI_Offset pos = -1;
    OK(MPI_File_seek(fh, (MPI_Offset)peer * N, MPI_SEEK_SET));
    OK(MPI_File_seek(fh, 3, MPI_SEEK_CUR)); /* 3 bytes on: a byte view */
    OK(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, (MPI_Offset)peer * N + 3);
    OK(MPI_File_seek(fh, -4, MPI_SEEK_END));
    OK(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, fsize - 4);
    OK(MPI_File_read(fh, in, 1, MPI_INT, &st));
    CHECK_INT(in[0], (size - 1) * 100000 + N - 1);
    MPI_Barrier(MPI_COMM_WORLD);

    /* A view: rank r owns every size-th int (a resized vector filetype), at a displacement. */
    MPI_Datatype ft, vec;
    MPI_Type_vector(1, 1, size, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)size * 4, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&vec);
    MPI_Offset disp = 4096 + (MPI_Offset)rank * 4;
    OK(MPI_File_set_view(fh, disp, MPI_INT, ft, "native", MPI_INFO_NULL));
    MPI_Offset d2 = 0;
    MPI_Datatype et2, ft2;
    char rep[MPI_MAX_DATAREP_STRING];
    OK(MPI_File_get_view(fh, &d2, &et2, &ft2, rep));
    CHECK_INT(d2, disp);
    CHECK(et2 == MPI_INT, "get_view's etype is not the program's MPI_INT");
    CHECK(strcmp(rep, "native") == 0, "datarep %s", rep);
    MPI_Type_free(&ft2);
    MPI_Aint ext = 0;
    OK(MPI_File_get_type_extent(fh, MPI_INT, &ext));
    CHECK_INT(ext, 4);
    MPI_Offset boff = 0;
    OK(MPI_File_get_byte_offset(fh, 2, &boff));
    CHECK_INT(boff, disp + 2 * size * 4);
    for (int i = 0; i < N; i++)
        buf[i] = -(rank * 1000 + i);
    OK(MPI_File_write_all(fh, buf, N, MPI_INT, &st));
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_sync(fh));
    OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    int all[4 * N];
    CHECK(size <= 4, "at most 4 ranks");
    OK(MPI_File_read_at(fh, 4096, all, size * N, MPI_INT, &st));
    for (int i = 0; i < size * N; i++)
        CHECK_INT(all[i], -((i % size) * 1000 + i / size));

    /* Nonblocking, with the status through MPI_Wait. */
    MPI_Request rq;
    int one = 4242 + rank;
    OK(MPI_File_iwrite_at(fh, 65536 + rank * 4, &one, 1, MPI_INT, &rq));
    OK(MPI_Wait(&rq, &st));
    CHECK(rq == MPI_REQUEST_NULL, "MPI_Wait left the request");
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_INT(count, 4);
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_sync(fh));
    OK(MPI_File_iread_at_all(fh, 65536 + peer * 4, &one, 1, MPI_INT, &rq));
    OK(MPI_Wait(&rq, &st));
    CHECK_INT(one, 4242 + peer);

    /* The shared file pointer: ordered writes land in rank order. */
    OK(MPI_File_seek_shared(fh, 131072, MPI_SEEK_SET));
    int mine[2] = {rank, rank * 7};
    OK(MPI_File_write_ordered(fh, mine, 2, MPI_INT, &st));
    OK(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(pos, 131072 + (MPI_Offset)size * 8);
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_sync(fh));
    OK(MPI_File_read_at(fh, 131072, all, 2 * size, MPI_INT, &st));
    for (int r = 0; r < size; r++) {
        CHECK_INT(all[2 * r], r);
        CHECK_INT(all[2 * r + 1], r * 7);
    }

    /* A file error handler gets this program's handle and the ABI's class. */
    MPI_Errhandler feh, back;
    OK(MPI_File_create_errhandler(file_eh, &feh));
    OK(MPI_File_set_errhandler(fh, feh));
    OK(MPI_File_get_errhandler(fh, &back));
    CHECK(back == feh, "get_errhandler gave another handle");
    MPI_Errhandler_free(&back);
    rc = MPI_File_read_at(fh, -8, in, 1, MPI_INT, &st);
    CHECK(rc != MPI_SUCCESS, "a negative offset was accepted");
    CHECK_INT(eh_calls, 1);
    CHECK(eh_file == fh, "the handler got another file handle");
    CHECK(eh_class == MPI_ERR_ARG || eh_class == MPI_ERR_IO, "class %d", eh_class);
    OK(MPI_File_call_errhandler(fh, MPI_ERR_DUP_DATAREP));
    CHECK_INT(eh_calls, 2);
    CHECK_INT(eh_class, MPI_ERR_DUP_DATAREP);
    OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    MPI_Errhandler_free(&feh);

    /* Fortran integers of the file handle round-trip; the null file's too. */
    MPI_Fint f = MPI_File_c2f(fh);
    CHECK(MPI_File_f2c(f) == fh, "c2f/f2c round trip");
    CHECK(MPI_File_f2c(MPI_File_c2f(MPI_FILE_NULL)) == MPI_FILE_NULL, "null file round trip");
#ifdef MPI_ABI_VERSION
    CHECK(MPI_File_fromint(MPI_File_toint(fh)) == fh, "toint/fromint round trip");
    CHECK_INT(MPI_File_toint(MPI_FILE_NULL), (int)(intptr_t)MPI_FILE_NULL);
#endif

    /* A representation of the program's: its functions see the program's MPI_INT. */
    OK(MPI_Register_datarep("abi_plus1", plus1_read, plus1_write, plus1_extent, &rep_extra));
    rc = MPI_Register_datarep("abi_plus1", plus1_read, plus1_write, plus1_extent, &rep_extra);
    MPI_Error_class(rc, &cls);
    CHECK_INT(cls, MPI_ERR_DUP_DATAREP);
    OK(MPI_File_set_view(fh, 262144, MPI_INT, MPI_INT, "abi_plus1", MPI_INFO_NULL));
    CHECK(rep_saw_int > 0, "the extent function never saw MPI_INT");
    for (int i = 0; i < 8; i++)
        buf[i] = rank * 10 + i;
    OK(MPI_File_write_at(fh, rank * 8, buf, 8, MPI_INT, &st));
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_sync(fh));
    OK(MPI_File_read_at(fh, peer * 8, in, 8, MPI_INT, &st));
    for (int i = 0; i < 8; i++)
        CHECK_INT(in[i], peer * 10 + i);
    OK(MPI_File_set_view(fh, 262144, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    OK(MPI_File_read_at(fh, peer * 8, in, 8, MPI_INT, &st));
    for (int i = 0; i < 8; i++)
        CHECK_INT(in[i], peer * 10 + i + 1);
    CHECK(rep_calls >= 2, "conversion functions called %d times", rep_calls);
    MPI_Type_free(&ft);

    OK(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "close did not set MPI_FILE_NULL");
    rc = MPI_File_get_size(fh, &fsize);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_FILE, "a closed file: class %d", cls);

    /* A sequential file: MPI_DISPLACEMENT_CURRENT is the ABI's value. */
    OK(MPI_File_open(MPI_COMM_WORLD, path2,
                     MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL | MPI_MODE_DELETE_ON_CLOSE,
                     MPI_INFO_NULL, &fh));
    OK(MPI_File_get_amode(fh, &got));
    CHECK_INT(got, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL | MPI_MODE_DELETE_ON_CLOSE);
    OK(MPI_File_write_ordered(fh, mine, 2, MPI_INT, &st));
    OK(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    OK(MPI_File_get_view(fh, &d2, &et2, &ft2, rep));
    CHECK_INT(d2, (MPI_Offset)size * 8);
    OK(MPI_File_close(&fh));

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        OK(MPI_File_delete(path, MPI_INFO_NULL));
        rc = MPI_File_delete(path, MPI_INFO_NULL);
        MPI_Error_class(rc, &cls);
        CHECK_INT(cls, MPI_ERR_NO_SUCH_FILE);
        CHECK(access(path2, F_OK) != 0, "MPI_MODE_DELETE_ON_CLOSE left %s", path2);
    }
    abi_test_done("io");
    return 0;
}
