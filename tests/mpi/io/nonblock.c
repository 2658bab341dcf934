/* Nonblocking and split collective file access.
 *
 * 1. Overlap with communication: rank 0 starts MPI_File_iwrite_at_all and then receives a
 *    synchronous send from the last rank, which starts its own iwrite_at_all only after that
 *    send. An implementation whose nonblocking collective waited at start for every rank
 *    would deadlock here (ctest's timeout fails it); a blocking one that completes at start
 *    too. Then the same with iread_at_all.
 * 2. Several collective operations in flight on one file (three iwrite_at_all, then three
 *    iread_at_all completed by Waitany), with a small cb_buffer_size (many rounds each) and
 *    two aggregators: data checked byte for byte.
 * 3. Split collectives: write_at_all_begin/end, write_all_begin/end, read_all_begin/end.
 * 4. A request freed with MPI_Request_free still writes its data (seen after close).
 * 5. romio_cb_write=disable (every rank writes itself) gives the same bytes. */
#include "mpi/io/t_io.h"

#define N 30000

static void fill(unsigned char *b, long long off, int n, int seed)
{
    for (int i = 0; i < n; i++)
        b[i] = t_io_byte(off + i, seed);
}

static void check(const unsigned char *b, long long off, int n, int seed, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != t_io_byte(off + i, seed))
            t_fail("%s: byte at file offset %lld: expected %d, got %d", what, off + i,
                   t_io_byte(off + i, seed), b[i]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    char name[256];
    t_io_name(name, sizeof(name), "nonblock");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "4096");
    MPI_Info_set(info, "cb_nodes", t_size > 1 ? "2" : "1");
    /* contiguous blocks per rank: aggregated only when asked (automatic would not) */
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_File fh;
    MPI_Status st;
    T_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    unsigned char *a = malloc(3 * N), *b = malloc(3 * N);
    int last = t_size - 1;
    long long mine = (long long)t_rank * N;

    /* 1. overlap */
    MPI_Request rq;
    int token = 0;
    fill(a, mine, N, 1);
    if (t_rank == 0) {
        T_OK(MPI_File_iwrite_at_all(fh, mine, a, N, MPI_BYTE, &rq));
        if (last != 0)
            MPI_Recv(&token, 1, MPI_INT, last, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        T_OK(MPI_Wait(&rq, &st));
    } else {
        if (t_rank == last) {
            token = 42;
            MPI_Ssend(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
        }
        T_OK(MPI_File_iwrite_at_all(fh, mine, a, N, MPI_BYTE, &rq));
        T_OK(MPI_Wait(&rq, &st));
    }
    CHECK_INT(N, t_io_count(&st), "bytes of iwrite_at_all");
    if (t_rank == 0 && last != 0)
        CHECK_INT(42, token, "token received while iwrite_at_all was in flight");
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    int other = (t_rank + 1) % t_size;
    memset(b, 0, N);
    if (t_rank == 0) {
        T_OK(MPI_File_iread_at_all(fh, (long long)other * N, b, N, MPI_BYTE, &rq));
        if (last != 0)
            MPI_Recv(&token, 1, MPI_INT, last, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        T_OK(MPI_Wait(&rq, &st));
    } else {
        if (t_rank == last)
            MPI_Ssend(&token, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
        T_OK(MPI_File_iread_at_all(fh, (long long)other * N, b, N, MPI_BYTE, &rq));
        T_OK(MPI_Wait(&rq, &st));
    }
    CHECK_INT(N, t_io_count(&st), "bytes of iread_at_all");
    check(b, (long long)other * N, N, 1, "iread_at_all of the next rank's block");

    /* 2. three writes, three reads in flight; the file is size*3N long */
    MPI_Request w[3], r[3];
    for (int k = 0; k < 3; k++) {
        long long off = (long long)k * t_size * N + mine;
        fill(a + k * N, off, N, 2);
        T_OK(MPI_File_iwrite_at_all(fh, off, a + k * N, N, MPI_BYTE, &w[k]));
    }
    T_OK(MPI_Waitall(3, w, MPI_STATUSES_IGNORE));
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    memset(b, 0, 3 * N);
    for (int k = 0; k < 3; k++) {
        long long off = (long long)k * t_size * N + (long long)other * N;
        T_OK(MPI_File_iread_at_all(fh, off, b + k * N, N, MPI_BYTE, &r[k]));
    }
    for (int done = 0; done < 3; done++) {
        int idx = -1;
        T_OK(MPI_Waitany(3, r, &idx, &st));
        if (idx < 0 || idx > 2)
            t_fail("MPI_Waitany: index %d", idx);
        CHECK_INT(N, t_io_count(&st), "bytes of one of three iread_at_all");
    }
    for (int k = 0; k < 3; k++)
        check(b + k * N, (long long)k * t_size * N + (long long)other * N, N, 2,
              "three iread_at_all in flight");

    /* 3. split collectives */
    MPI_Barrier(MPI_COMM_WORLD);
    fill(a, mine, N, 3);
    T_OK(MPI_File_write_at_all_begin(fh, mine, a, N, MPI_BYTE));
    T_CLASS(MPI_ERR_OTHER, MPI_File_write_all_begin(fh, a, N, MPI_BYTE));
    T_OK(MPI_File_write_at_all_end(fh, a, &st));
    CHECK_INT(N, t_io_count(&st), "bytes of write_at_all_begin/end");
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    T_OK(MPI_File_seek(fh, (long long)other * N, MPI_SEEK_SET));
    memset(b, 0, N);
    T_OK(MPI_File_read_all_begin(fh, b, N, MPI_BYTE));
    T_OK(MPI_File_read_all_end(fh, b, &st));
    check(b, (long long)other * N, N, 3, "read_all_begin/end");
    MPI_Offset pos;
    T_OK(MPI_File_get_position(fh, &pos));
    CHECK_INT((long long)other * N + N, pos, "individual pointer after read_all_begin/end");

    /* 4. a freed request still writes */
    MPI_Barrier(MPI_COMM_WORLD);
    long long off4 = 3LL * t_size * N + mine;
    fill(a, off4, N, 4);
    T_OK(MPI_File_iwrite_at_all(fh, off4, a, N, MPI_BYTE, &rq));
    T_OK(MPI_Request_free(&rq));
    T_OK(MPI_File_close(&fh)); /* completes it */
    MPI_Barrier(MPI_COMM_WORLD);

    /* 5. collective buffering off */
    MPI_Info_set(info, "romio_cb_write", "disable");
    T_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR, info, &fh));
    MPI_Info used;
    char v[32];
    int flag = 0;
    T_OK(MPI_File_get_info(fh, &used));
    MPI_Info_get(used, "romio_cb_write", sizeof(v) - 1, v, &flag);
    if (!flag || strcmp(v, "disable") != 0)
        t_fail("romio_cb_write: expected disable, got %s", flag ? v : "(not set)");
    MPI_Info_free(&used);
    memset(b, 0, N);
    T_OK(MPI_File_read_at_all(fh, 3LL * t_size * N + (long long)other * N, b, N, MPI_BYTE, &st));
    check(b, 3LL * t_size * N + (long long)other * N, N, 4, "data of a freed iwrite_at_all");
    fill(a, mine, N, 5);
    T_OK(MPI_File_write_at_all(fh, mine, a, N, MPI_BYTE, &st));
    CHECK_INT(N, t_io_count(&st), "bytes of write_at_all without collective buffering");
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    memset(b, 0, N);
    T_OK(MPI_File_read_at_all(fh, (long long)other * N, b, N, MPI_BYTE, &st));
    check(b, (long long)other * N, N, 5, "write_at_all without collective buffering");
    T_OK(MPI_File_close(&fh));
    if (t_rank == 0)
        T_OK(MPI_File_delete(name, MPI_INFO_NULL));
    MPI_Info_free(&info);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
