/* coll: Bcast, Alltoall, Allgather, Gather and Reduce_scatter(_block) whose operands lie in the
 * shared heap are read where they lie (src/mpi/coll/coll_shm.c, "operands in the shared heap"),
 * next to ranks whose operands do not: every mix of heap (MPI_Alloc_mem) and private (mmap)
 * send buffers across the ranks, sizes from one element to several collective areas,
 * MPI_IN_PLACE, uneven Reduce_scatter counts (one rank none), and send buffers reused at once
 * after the call (a direct publisher must not return before its readers are done). Every
 * element is checked on every rank. */
#include "t_util.h"

#include <sys/mman.h>

#define MAXB ((size_t)3 << 20) /* bytes of the largest operand */

static unsigned char *heap_s, *priv_s, *heap_r, *priv_r;

static unsigned char *sbuf(int mode)
{
    /* mode bit r: rank r's send buffer lies in the heap */
    return (mode >> t_rank) & 1 ? heap_s : priv_s;
}

static void alltoall(int mode, size_t blk, uint64_t seed)
{
    char what[128];
    unsigned char *s = sbuf(mode), *r = (mode & 8) ? heap_r : priv_r;
    for (int q = 0; q < t_size; q++)
        t_fill(s + (size_t)q * blk, blk, seed + (uint64_t)(t_rank * 64 + q));
    memset(r, 0xa5, (size_t)t_size * blk);
    CHECK_INT(MPI_SUCCESS,
              MPI_Alltoall(s, (int)blk, MPI_BYTE, r, (int)blk, MPI_BYTE, MPI_COMM_WORLD),
              "MPI_Alltoall");
    /* The send buffer is ours again: a reader still copying would see this. */
    memset(s, 0x5a, (size_t)t_size * blk);
    for (int q = 0; q < t_size; q++) {
        t_fmt(what, sizeof what, "alltoall mode %d, %zu bytes, block from rank %d", mode, blk, q);
        t_check_fill(r + (size_t)q * blk, blk, seed + (uint64_t)(q * 64 + t_rank), what);
    }
    /* In place, from the receive buffer. */
    for (int q = 0; q < t_size; q++)
        t_fill(s + (size_t)q * blk, blk, seed + 7 + (uint64_t)(t_rank * 64 + q));
    CHECK_INT(MPI_SUCCESS,
              MPI_Alltoall(MPI_IN_PLACE, 0, MPI_BYTE, s, (int)blk, MPI_BYTE, MPI_COMM_WORLD),
              "MPI_Alltoall in place");
    for (int q = 0; q < t_size; q++) {
        t_fmt(what, sizeof what, "alltoall in place mode %d, %zu bytes, from rank %d", mode, blk, q);
        t_check_fill(s + (size_t)q * blk, blk, seed + 7 + (uint64_t)(q * 64 + t_rank), what);
    }
}

/* Allgather and Gather (root: the last rank) of blk bytes per rank; send buffer reused at
 * once after the call; then Allgather in place from block t_rank of the receive buffer. */
static void allgather(int mode, size_t blk, uint64_t seed)
{
    char what[128];
    unsigned char *s = sbuf(mode), *r = (mode & 8) ? heap_r : priv_r;
    for (int root = -1; root < 1; root++) {
        int rt = t_size - 1;
        t_fill(s, blk, seed + (uint64_t)t_rank);
        memset(r, 0xa5, (size_t)t_size * blk);
        if (root < 0)
            CHECK_INT(MPI_SUCCESS,
                      MPI_Allgather(s, (int)blk, MPI_BYTE, r, (int)blk, MPI_BYTE, MPI_COMM_WORLD),
                      "MPI_Allgather");
        else
            CHECK_INT(MPI_SUCCESS,
                      MPI_Gather(s, (int)blk, MPI_BYTE, r, (int)blk, MPI_BYTE, rt, MPI_COMM_WORLD),
                      "MPI_Gather");
        memset(s, 0x5a, blk); /* ours again: a reader still copying would see this */
        for (int q = 0; q < t_size && (root < 0 || t_rank == rt); q++) {
            t_fmt(what, sizeof what, "%s mode %d, %zu bytes, block of rank %d",
                  root < 0 ? "allgather" : "gather", mode, blk, q);
            t_check_fill(r + (size_t)q * blk, blk, seed + (uint64_t)q, what);
        }
        seed += 16;
    }
    /* in place: our block is already in the receive buffer (here the "send" buffer) */
    memset(s, 0xa5, (size_t)t_size * blk);
    t_fill(s + (size_t)t_rank * blk, blk, seed + (uint64_t)t_rank);
    CHECK_INT(MPI_SUCCESS,
              MPI_Allgather(MPI_IN_PLACE, 0, MPI_BYTE, s, (int)blk, MPI_BYTE, MPI_COMM_WORLD),
              "MPI_Allgather in place");
    for (int q = 0; q < t_size; q++) {
        t_fmt(what, sizeof what, "allgather in place mode %d, %zu bytes, block of rank %d", mode,
              blk, q);
        t_check_fill(s + (size_t)q * blk, blk, seed + (uint64_t)q, what);
    }
}

/* Bcast of blk bytes from every root in turn (the root's buffer: its send buffer of this
 * mode), the root's buffer overwritten at once after the call. */
static void bcast(int mode, size_t blk, uint64_t seed)
{
    char what[128];
    for (int root = 0; root < t_size; root++) {
        unsigned char *b = t_rank == root ? sbuf(mode) : ((mode & 8) ? heap_r : priv_r);
        if (t_rank == root)
            t_fill(b, blk, seed + (uint64_t)root);
        else
            memset(b, 0xa5, blk);
        CHECK_INT(MPI_SUCCESS, MPI_Bcast(b, (int)blk, MPI_BYTE, root, MPI_COMM_WORLD),
                  "MPI_Bcast");
        t_fmt(what, sizeof what, "bcast mode %d, %zu bytes, from rank %d", mode, blk, root);
        t_check_fill(b, blk, seed + (uint64_t)root, what);
        if (t_rank == root)
            memset(b, 0x5a, blk); /* ours again: a reader still copying would see this */
    }
}

/* Element i of rank q's input: small integers, so that float sums are exact. */
static int elem(int q, size_t i, uint64_t seed)
{
    return (int)((q * 7 + i + seed) % 13);
}

static void reduce_scatter(int mode, size_t per, int uneven, int inplace, uint64_t seed)
{
    int *counts = malloc(sizeof(int) * (size_t)t_size);
    size_t total = 0, first = 0;
    for (int q = 0; q < t_size; q++) {
        counts[q] = uneven ? (q == 1 ? 0 : (int)(per + (size_t)q * 3)) : (int)per;
        if (q == t_rank)
            first = total;
        total += (size_t)counts[q];
    }
    float *s = (float *)sbuf(mode), *r = (float *)((mode & 8) ? heap_r : priv_r);
    for (size_t i = 0; i < total; i++)
        s[i] = (float)elem(t_rank, i, seed);
    float *out = inplace ? s : r;
    if (!inplace)
        memset(r, 0xa5, (size_t)counts[t_rank] * sizeof(float) + 64);
    int rc = uneven ? MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : s, out, counts, MPI_FLOAT,
                                         MPI_SUM, MPI_COMM_WORLD)
                    : MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : s, out, (int)per,
                                               MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_INT(MPI_SUCCESS, rc, "MPI_Reduce_scatter");
    if (!inplace)
        memset(s, 0x5a, total * sizeof(float)); /* ours again */
    for (size_t j = 0; j < (size_t)counts[t_rank]; j++) {
        float want = 0;
        for (int q = 0; q < t_size; q++)
            want += (float)elem(q, first + j, seed);
        if (out[j] != want)
            t_fail("reduce_scatter mode %d, %zu per rank%s%s: element %zu: expected %g, got %g",
                   mode, per, uneven ? ", uneven" : "", inplace ? ", in place" : "", j,
                   (double)want, (double)out[j]);
    }
    if (!inplace)
        t_check_bytes(r + counts[t_rank], 64, 0xa5, "after the reduce_scatter result");
    free(counts);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    size_t bytes = MAXB + 4096;
    if (MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &heap_s) != MPI_SUCCESS ||
        MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &heap_r) != MPI_SUCCESS)
        t_fail("MPI_Alloc_mem failed");
    priv_s = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    priv_r = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (priv_s == MAP_FAILED || priv_r == MAP_FAILED)
        t_fail("mmap failed");
    /* 131072 and 262144: a block exactly as large as an Alltoall piece at 2 ranks and an
     * Allgather piece (the area; coll_shm.c piece_bytes()). */
    static const size_t sizes[] = {1, 63, 4096, 65537, 131072, 200000, 262144, 1000003};
    uint64_t seed = 1;
    int nmodes = 1 << (t_size < 3 ? t_size : 3);
    for (int mode = 0; mode < nmodes; mode++)
        for (int rh = 0; rh < 2; rh++)
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                size_t blk = sizes[k];
                if (blk * (size_t)t_size <= MAXB) {
                    alltoall(mode | rh * 8, blk, seed += 100);
                    allgather(mode | rh * 8, blk, seed += 100);
                    bcast(mode | rh * 8, blk, seed += 100);
                }
                size_t per = blk / sizeof(float) + 1;
                if (per * sizeof(float) * (size_t)t_size + 64 * (size_t)t_size <= MAXB) {
                    reduce_scatter(mode | rh * 8, per, 0, 0, seed += 3);
                    reduce_scatter(mode | rh * 8, per, 1, 0, seed += 3);
                    reduce_scatter(mode | rh * 8, per, 0, 1, seed += 3);
                }
            }
    MPI_Free_mem(heap_s);
    MPI_Free_mem(heap_r);
    MPI_Finalize();
    if (t_rank == 0)
        printf("bcast, alltoall, allgather, gather and reduce_scatter: every mix of heap and "
               "private operands checked\n");
    return 0;
}
