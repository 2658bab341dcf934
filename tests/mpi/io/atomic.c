/* Atomic mode (MPI_File_set_atomicity): concurrent conflicting accesses behave as if they
 * ran one after another.
 *
 * Every rank repeatedly writes the same 64 KiB of view data (a filetype of 64-byte blocks
 * with 64-byte holes, so one access is a thousand separate file writes) filled with its own
 * byte value, and reads it back right after: in atomic mode every read must see the bytes of
 * exactly one write (one value throughout), never a mix. Then all ranks write the region at
 * once with write_at_all: the result must again be one rank's value throughout. Argument
 * "nonatomic" runs the same without atomic mode and reports mixtures instead of failing
 * (to show that the test can see them: on this machine they appear within a few rounds). */
#include "mpi/io/t_io.h"

#define L     65536 /* data bytes of one access */
#define ITERS 40

static int uniform(const unsigned char *b, int n, int *first_bad)
{
    for (int i = 1; i < n; i++)
        if (b[i] != b[0]) {
            *first_bad = i;
            return 0;
        }
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    int atomic = !(argc > 1 && !strcmp(argv[1], "nonatomic"));
    char name[256];
    t_io_name(name, sizeof(name), "atomic");
    MPI_File fh;
    MPI_Status st;
    T_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    T_OK(MPI_File_set_atomicity(fh, atomic));
    int flag = -1;
    T_OK(MPI_File_get_atomicity(fh, &flag));
    CHECK_INT(atomic, flag, "MPI_File_get_atomicity");
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(64, MPI_BYTE, &blk);
    MPI_Type_create_resized(blk, 0, 128, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&blk);
    T_OK(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    unsigned char *w = malloc(L), *r = malloc(L);
    memset(w, 'A' + t_rank, L);
    long mixed = 0;
    for (int it = 0; it < ITERS; it++) {
        T_OK(MPI_File_write_at(fh, 0, w, L, MPI_BYTE, &st));
        CHECK_INT(L, t_io_count(&st), "bytes of write_at");
        T_OK(MPI_File_read_at(fh, 0, r, L, MPI_BYTE, &st));
        CHECK_INT(L, t_io_count(&st), "bytes of read_at");
        int bad = -1;
        if (!uniform(r, L, &bad)) {
            if (atomic)
                t_fail("round %d: a read in atomic mode saw two writes: byte 0 is '%c', byte %d "
                       "is '%c'",
                       it, r[0], bad, r[bad]);
            mixed++;
        }
        if (r[0] < 'A' || r[0] >= 'A' + t_size)
            t_fail("round %d: byte 0 is %d, no rank's value", it, r[0]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Collective: everyone writes the region at once. */
    T_OK(MPI_File_write_at_all(fh, 0, w, L, MPI_BYTE, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    T_OK(MPI_File_read_at(fh, 0, r, L, MPI_BYTE, &st));
    int bad = -1;
    if (!uniform(r, L, &bad))
        t_fail("write_at_all of one region by every rank: byte 0 is '%c', byte %d is '%c'",
               r[0], bad, r[bad]);
    long all = 0;
    MPI_Reduce(&mixed, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (!atomic && t_rank == 0)
        printf("non-atomic mode: %ld of %d reads saw a mix of writes\n", all, ITERS * t_size);
    T_OK(MPI_File_close(&fh));
    if (t_rank == 0)
        T_OK(MPI_File_delete(name, MPI_INFO_NULL));
    MPI_Type_free(&ft);
    free(w);
    free(r);
    MPI_Finalize();
    return 0;
}
