/* The shared file pointer: unordered (write_shared, read_shared), ordered (write_ordered,
 * read_ordered and their split forms), seek_shared / get_position_shared, and its reset by
 * set_view.
 *
 * Records are 64 bytes: (rank, sequence number, check bytes). After every rank wrote R
 * records with write_shared, the file holds each (rank, seq) exactly once, each rank's in
 * increasing order, with no gap or overlap; read_shared hands every record to exactly one
 * rank; write_ordered lays the ranks' records in rank order right after. */
#include "mpi/io/t_io.h"

#define R   25
#define REC 64

typedef struct {
    int rank, seq;
    unsigned char b[REC - 8];
} rec_t;

static void rec_fill(rec_t *r, int rank, int seq)
{
    r->rank = rank;
    r->seq = seq;
    for (int i = 0; i < REC - 8; i++)
        r->b[i] = (unsigned char)(rank * 31 + seq * 7 + i);
}

static void rec_check(const rec_t *r, const char *what)
{
    for (int i = 0; i < REC - 8; i++)
        if (r->b[i] != (unsigned char)(r->rank * 31 + r->seq * 7 + i))
            t_fail("%s: record (%d, %d) byte %d: torn or corrupt", what, r->rank, r->seq, i);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    char name[256];
    t_io_name(name, sizeof(name), "shared");
    MPI_File fh;
    MPI_Status st;
    MPI_Offset pos;
    T_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    T_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(0, pos, "shared pointer at open");
    MPI_Barrier(MPI_COMM_WORLD);

    /* Unordered writes from every rank at once. */
    rec_t r;
    for (int s = 0; s < R; s++) {
        rec_fill(&r, t_rank, s);
        T_OK(MPI_File_write_shared(fh, &r, REC, MPI_BYTE, &st));
        CHECK_INT(REC, t_io_count(&st), "bytes of write_shared");
    }
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    T_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT((long long)t_size * R * REC, pos, "shared pointer after every write_shared");
    if (t_rank == 0) {
        rec_t *all = malloc(sizeof(rec_t) * R * t_size);
        int *last = malloc(sizeof(int) * t_size), *seen = calloc((size_t)t_size * R, sizeof(int));
        for (int k = 0; k < t_size; k++)
            last[k] = -1;
        T_OK(MPI_File_read_at(fh, 0, all, R * t_size * REC, MPI_BYTE, &st));
        CHECK_INT(R * t_size * REC, t_io_count(&st), "bytes of the shared-pointer file");
        for (int i = 0; i < R * t_size; i++) {
            rec_t *x = &all[i];
            if (x->rank < 0 || x->rank >= t_size || x->seq < 0 || x->seq >= R)
                t_fail("record %d: (%d, %d) is not one that was written", i, x->rank, x->seq);
            rec_check(x, "write_shared");
            if (seen[x->rank * R + x->seq]++)
                t_fail("record (%d, %d) appears twice", x->rank, x->seq);
            if (x->seq <= last[x->rank])
                t_fail("rank %d: record %d after record %d", x->rank, x->seq, last[x->rank]);
            last[x->rank] = x->seq;
        }
        free(all);
        free(last);
        free(seen);
    }

    /* read_shared: every record to exactly one rank. */
    T_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int *mine = calloc((size_t)t_size * R, sizeof(int)), *sum = calloc((size_t)t_size * R, sizeof(int));
    for (int s = 0; s < R; s++) {
        T_OK(MPI_File_read_shared(fh, &r, REC, MPI_BYTE, &st));
        CHECK_INT(REC, t_io_count(&st), "bytes of read_shared");
        rec_check(&r, "read_shared");
        mine[r.rank * R + r.seq]++;
    }
    MPI_Allreduce(mine, sum, t_size * R, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < t_size * R; i++)
        if (sum[i] != 1)
            t_fail("read_shared: record (%d, %d) was read %d times", i / R, i % R, sum[i]);
    /* At the end now: a read gets nothing. */
    MPI_Barrier(MPI_COMM_WORLD);
    T_OK(MPI_File_read_shared(fh, &r, REC, MPI_BYTE, &st));
    CHECK_INT(0, t_io_count(&st), "read_shared at the end of the file");

    /* Ordered: rank k writes k+1 records, in rank order after the end. */
    T_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    T_OK(MPI_File_get_position_shared(fh, &pos));
    MPI_Offset base = (MPI_Offset)t_size * R * REC;
    CHECK_INT(base, pos, "shared pointer after seek_shared(0, MPI_SEEK_END)");
    rec_t *ord = malloc(sizeof(rec_t) * (size_t)(t_size + 1));
    for (int i = 0; i <= t_rank; i++)
        rec_fill(&ord[i], t_rank, 1000 + i);
    T_OK(MPI_File_write_ordered(fh, ord, (t_rank + 1) * REC, MPI_BYTE, &st));
    CHECK_INT((t_rank + 1) * REC, t_io_count(&st), "bytes of write_ordered");
    long long nord = (long long)t_size * (t_size + 1) / 2;
    T_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(base + nord * REC, pos, "shared pointer after write_ordered");
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    if (t_rank == 0) {
        rec_t *all = malloc(sizeof(rec_t) * (size_t)nord);
        T_OK(MPI_File_read_at(fh, base, all, (int)(nord * REC), MPI_BYTE, &st));
        int i = 0;
        for (int k = 0; k < t_size; k++)
            for (int j = 0; j <= k; j++, i++) {
                if (all[i].rank != k || all[i].seq != 1000 + j)
                    t_fail("write_ordered: record %d: expected (%d, %d), got (%d, %d)", i, k,
                           1000 + j, all[i].rank, all[i].seq);
                rec_check(&all[i], "write_ordered");
            }
        free(all);
    }
    /* read_ordered from base: each rank gets its own records back; split form too. */
    T_OK(MPI_File_seek_shared(fh, base, MPI_SEEK_SET));
    memset(ord, 0, sizeof(rec_t) * (size_t)(t_size + 1));
    T_OK(MPI_File_read_ordered_begin(fh, ord, (t_rank + 1) * REC, MPI_BYTE));
    T_OK(MPI_File_read_ordered_end(fh, ord, &st));
    CHECK_INT((t_rank + 1) * REC, t_io_count(&st), "bytes of read_ordered");
    for (int i = 0; i <= t_rank; i++) {
        if (ord[i].rank != t_rank || ord[i].seq != 1000 + i)
            t_fail("read_ordered: record %d: expected (%d, %d), got (%d, %d)", i, t_rank,
                   1000 + i, ord[i].rank, ord[i].seq);
        rec_check(&ord[i], "read_ordered");
    }
    T_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(base + nord * REC, pos, "shared pointer after read_ordered");

    /* seek_shared relative to the current position, and a view resets the pointer. */
    T_OK(MPI_File_seek_shared(fh, -REC, MPI_SEEK_CUR));
    T_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(base + (nord - 1) * REC, pos, "shared pointer after seek_shared(-REC, CUR)");
    MPI_Datatype rt;
    MPI_Type_contiguous(REC, MPI_BYTE, &rt);
    MPI_Type_commit(&rt);
    T_OK(MPI_File_set_view(fh, base, rt, rt, "native", MPI_INFO_NULL));
    T_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(0, pos, "shared pointer after set_view");
    /* In etypes of records now. */
    T_OK(MPI_File_write_ordered_begin(fh, ord, t_rank == 0 ? 1 : 0, rt));
    T_OK(MPI_File_write_ordered_end(fh, ord, &st));
    T_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(1, pos, "shared pointer in etypes after one record written in order");
    MPI_Type_free(&rt);
    T_OK(MPI_File_close(&fh));
    if (t_rank == 0)
        T_OK(MPI_File_delete(name, MPI_INFO_NULL));
    free(ord);
    free(mine);
    free(sum);
    MPI_Finalize();
    return 0;
}
