/* MPI-IO basics at any number of ranks: open/close, amode, group, sizes, explicit offsets,
 * the individual file pointer, nonblocking independent calls, APPEND and DELETE_ON_CLOSE.
 * Every rank writes its own block of a seeded pattern; every rank then reads every block
 * and checks each byte. */
#include "mpi/io/t_io.h"

#include <sys/stat.h>

#define BLK 40000 /* not a multiple of a page */

static void check_block(const unsigned char *buf, long long off, int len, int seed,
                        const char *what)
{
    for (int i = 0; i < len; i++)
        if (buf[i] != t_io_byte(off + i, seed))
            t_fail("%s: byte at file offset %lld: expected %d, got %d", what, off + i,
                   t_io_byte(off + i, seed), buf[i]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    char name[256];
    t_io_name(name, sizeof(name), "basic");
    unsigned char *buf = malloc(BLK), *in = malloc(BLK);
    MPI_File fh;
    MPI_Status st;

    /* Open, create; amode and group come back. */
    int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
    T_OK(MPI_File_open(MPI_COMM_WORLD, name, amode, MPI_INFO_NULL, &fh));
    int got_amode = 0;
    T_OK(MPI_File_get_amode(fh, &got_amode));
    CHECK_INT(amode, got_amode, "MPI_File_get_amode");
    MPI_Group g, wg;
    int cmp = -1;
    T_OK(MPI_File_get_group(fh, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK_INT(MPI_IDENT, cmp, "MPI_File_get_group compared with WORLD's");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    int atom = -1;
    T_OK(MPI_File_get_atomicity(fh, &atom));
    CHECK_INT(0, atom, "atomic mode at open");

    /* Explicit offsets: each rank its block, then every rank reads every block. */
    long long mine = (long long)t_rank * BLK;
    for (int i = 0; i < BLK; i++)
        buf[i] = t_io_byte(mine + i, 1);
    T_OK(MPI_File_write_at(fh, mine, buf, BLK, MPI_BYTE, &st));
    CHECK_INT(BLK, t_io_count(&st), "bytes written by MPI_File_write_at");
    T_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    T_OK(MPI_File_sync(fh));
    MPI_Offset size = -1;
    T_OK(MPI_File_get_size(fh, &size));
    CHECK_INT((long long)t_size * BLK, size, "file size after every rank wrote its block");
    for (int r = 0; r < t_size; r++) {
        memset(in, 0, BLK);
        T_OK(MPI_File_read_at(fh, (long long)r * BLK, in, BLK, MPI_BYTE, &st));
        CHECK_INT(BLK, t_io_count(&st), "bytes read by MPI_File_read_at");
        check_block(in, (long long)r * BLK, BLK, 1, "read_at of another rank's block");
    }
    /* A read across the end of the file stops there. */
    T_OK(MPI_File_read_at(fh, size - 100, in, 1000, MPI_BYTE, &st));
    CHECK_INT(100, t_io_count(&st), "bytes read across the end of the file");

    /* The individual file pointer: seek, write in two halves, position, byte offset. */
    MPI_Barrier(MPI_COMM_WORLD);
    T_OK(MPI_File_seek(fh, mine, MPI_SEEK_SET));
    for (int i = 0; i < BLK; i++)
        buf[i] = t_io_byte(mine + i, 2);
    T_OK(MPI_File_write(fh, buf, BLK / 2, MPI_BYTE, &st));
    MPI_Offset pos = -1, byte = -1;
    T_OK(MPI_File_get_position(fh, &pos));
    CHECK_INT(mine + BLK / 2, pos, "position after writing half a block");
    T_OK(MPI_File_get_byte_offset(fh, pos, &byte));
    CHECK_INT(mine + BLK / 2, byte, "byte offset of the position (default view)");
    MPI_Request rq;
    T_OK(MPI_File_iwrite(fh, buf + BLK / 2, BLK - BLK / 2, MPI_BYTE, &rq));
    T_OK(MPI_Wait(&rq, &st));
    CHECK_INT(BLK - BLK / 2, t_io_count(&st), "bytes written by MPI_File_iwrite");
    T_OK(MPI_File_get_position(fh, &pos));
    CHECK_INT(mine + BLK, pos, "position after MPI_File_iwrite");
    T_OK(MPI_File_seek(fh, -BLK, MPI_SEEK_CUR));
    T_OK(MPI_File_read(fh, in, BLK, MPI_BYTE, &st));
    check_block(in, mine, BLK, 2, "read back through the individual pointer");
    T_OK(MPI_File_seek(fh, 0, MPI_SEEK_END));
    T_OK(MPI_File_get_position(fh, &pos));
    CHECK_INT((long long)t_size * BLK, pos, "position after MPI_SEEK_END");
    T_CLASS(MPI_ERR_ARG, MPI_File_seek(fh, -1, MPI_SEEK_SET));

    /* Nonblocking explicit offsets of the next rank's block. */
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    int next = (t_rank + 1) % t_size;
    memset(in, 0, BLK);
    T_OK(MPI_File_iread_at(fh, (long long)next * BLK, in, BLK, MPI_BYTE, &rq));
    int flag = 0;
    while (!flag)
        T_OK(MPI_Test(&rq, &flag, &st));
    CHECK_INT(BLK, t_io_count(&st), "bytes read by MPI_File_iread_at");
    check_block(in, (long long)next * BLK, BLK, 2, "iread_at of the next rank's block");
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < BLK; i++)
        buf[i] = t_io_byte(mine + i, 3);
    T_OK(MPI_File_iwrite_at(fh, mine, buf, BLK, MPI_BYTE, &rq));
    T_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));

    /* Collective access of contiguous blocks with the default hints ("automatic": spans that
     * do not interleave are accessed by each rank itself), reported by get_info. */
    MPI_Info used;
    char hv[32];
    int hflag = 0;
    T_OK(MPI_File_get_info(fh, &used));
    MPI_Info_get(used, "romio_cb_write", sizeof(hv) - 1, hv, &hflag);
    if (!hflag || strcmp(hv, "automatic") != 0)
        t_fail("romio_cb_write by default: expected automatic, got %s", hflag ? hv : "(none)");
    MPI_Info_free(&used);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < BLK; i++)
        buf[i] = t_io_byte(mine + i, 4);
    T_OK(MPI_File_write_at_all(fh, mine, buf, BLK, MPI_BYTE, &st));
    CHECK_INT(BLK, t_io_count(&st), "bytes of write_at_all");
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    memset(in, 0, BLK);
    T_OK(MPI_File_read_at_all(fh, (long long)next * BLK, in, BLK, MPI_BYTE, &st));
    CHECK_INT(BLK, t_io_count(&st), "bytes of read_at_all");
    check_block(in, (long long)next * BLK, BLK, 4, "read_at_all of the next rank's block");
    MPI_Barrier(MPI_COMM_WORLD);

    /* Sizes: set_size shrinks, preallocate grows and never shrinks. */
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    T_OK(MPI_File_set_size(fh, 1000));
    T_OK(MPI_File_get_size(fh, &size));
    CHECK_INT(1000, size, "size after MPI_File_set_size(1000)");
    T_OK(MPI_File_read_at(fh, 0, in, 1000, MPI_BYTE, &st));
    check_block(in, 0, 1000, 4, "bytes kept by set_size");
    T_OK(MPI_File_preallocate(fh, 50000));
    T_OK(MPI_File_get_size(fh, &size));
    CHECK_INT(50000, size, "size after MPI_File_preallocate(50000)");
    T_OK(MPI_File_preallocate(fh, 10));
    T_OK(MPI_File_get_size(fh, &size));
    CHECK_INT(50000, size, "size after MPI_File_preallocate(10)");
    T_OK(MPI_File_close(&fh));
    if (fh != MPI_FILE_NULL)
        t_fail("MPI_File_close: the handle is not MPI_FILE_NULL");

    /* APPEND: the pointers start at the end of the file. */
    T_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL,
                       &fh));
    T_OK(MPI_File_get_position(fh, &pos));
    CHECK_INT(50000, pos, "individual pointer at open with MPI_MODE_APPEND");
    T_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(50000, pos, "shared pointer at open with MPI_MODE_APPEND");
    T_OK(MPI_File_close(&fh));

    /* DELETE_ON_CLOSE: the file is gone after close; MPI_File_delete of it then fails. */
    T_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE,
                       MPI_INFO_NULL, &fh));
    T_OK(MPI_File_close(&fh));
    struct stat sb;
    if (stat(name, &sb) == 0)
        t_fail("%s still exists after close with MPI_MODE_DELETE_ON_CLOSE", name);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        T_CLASS(MPI_ERR_NO_SUCH_FILE, MPI_File_delete(name, MPI_INFO_NULL));

    /* MPI_COMM_SELF: a file of one rank, then MPI_File_delete. */
    char own[300];
    snprintf(own, sizeof(own), "%s.r%d", name, t_rank);
    T_OK(MPI_File_open(MPI_COMM_SELF, own, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    T_OK(MPI_File_write(fh, buf, 10, MPI_BYTE, &st));
    T_OK(MPI_File_close(&fh));
    T_OK(MPI_File_delete(own, MPI_INFO_NULL));

    free(buf);
    free(in);
    MPI_Finalize();
    return 0;
}
