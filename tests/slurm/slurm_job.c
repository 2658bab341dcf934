/* An MPI job for tests/slurm/slurm.sh, started by srun --mpi=pmi2:
 *
 *   slurm_job ring SIZE NODES   checks that MPI_COMM_WORLD has SIZE ranks (not SIZE
 *                               singletons) on NODES distinct Slurm nodes, passes a token
 *                               around the ring, sums the ranks with MPI_Allreduce and
 *                               sends 1 MiB from every rank to the next, checking every
 *                               byte; rank 0 prints "slurm_job: PASS ..."
 *   slurm_job kill SIZE         rank 1 kills itself with SIGKILL after a barrier;
 *   slurm_job exit SIZE         rank 1 exits with status 3 without MPI_Finalize;
 *                               the others wait for it in MPI_Allreduce under
 *                               MPI_ERRORS_RETURN and must get an error: each prints
 *                               "slurm_job: survivor R: ...", finalizes and exits 0
 * Output goes to stdout, unbuffered. Exit 0 pass, 1 fail (expected against got). */
#include <mpi.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NODE_LEN 64
#define BIG      (1 << 20)

static int rank, size;

static void fail(const char *what, long expected, long got)
{
    printf("slurm_job: FAIL rank %d: %s: expected %ld, got %ld\n", rank, what, expected, got);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int ring(int nodes)
{
    /* Token: each rank adds its rank, so rank 0 gets back sum(0..size-1). */
    long token = 0, sum = (long)size * (size - 1) / 2;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (rank == 0) {
        MPI_Send(&token, 1, MPI_LONG, next, 1, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_LONG, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (token != sum)
            fail("token after one round", sum, token);
    } else {
        MPI_Recv(&token, 1, MPI_LONG, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token += rank;
        MPI_Send(&token, 1, MPI_LONG, next, 1, MPI_COMM_WORLD);
    }
    long mine = rank + 1, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (total != (long)size * (size + 1) / 2)
        fail("MPI_Allreduce sum of rank+1", (long)size * (size + 1) / 2, total);

    /* 1 MiB to the next rank (large enough for the rendezvous path of either channel). */
    unsigned char *out = malloc(BIG), *in = malloc(BIG);
    for (int i = 0; i < BIG; i++)
        out[i] = (unsigned char)(i * 7 + rank);
    MPI_Sendrecv(out, BIG, MPI_BYTE, next, 2, in, BIG, MPI_BYTE, prev, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < BIG; i++)
        if (in[i] != (unsigned char)(i * 7 + prev))
            fail("byte of the 1 MiB message from the previous rank", (unsigned char)(i * 7 + prev),
                 in[i]);
    free(out);
    free(in);

    /* Which Slurm node each rank runs on: the job must span the nodes asked for. */
    char node[NODE_LEN] = {0}, *all = NULL;
    const char *n = getenv("SLURMD_NODENAME");
    snprintf(node, sizeof(node), "%s", n ? n : "?");
    if (rank == 0)
        all = calloc((size_t)size, NODE_LEN);
    MPI_Gather(node, NODE_LEN, MPI_CHAR, all, NODE_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int distinct = 0;
        for (int r = 0; r < size; r++) {
            int seen = 0;
            for (int q = 0; q < r; q++)
                seen |= strcmp(all + r * NODE_LEN, all + q * NODE_LEN) == 0;
            distinct += !seen;
        }
        if (distinct != nodes)
            fail("distinct Slurm nodes (SLURMD_NODENAME) among the ranks", nodes, distinct);
        printf("slurm_job: PASS %d ranks on %d nodes:", size, distinct);
        for (int r = 0; r < size; r++)
            printf(" %s", all + r * NODE_LEN);
        printf("\n");
        free(all);
    }
    return 0;
}

static int victim(const char *mode)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        if (strcmp(mode, "kill") == 0)
            raise(SIGKILL);
        _exit(3);
    }
    long one = 1, total = 0;
    int rc = MPI_Allreduce(&one, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        fail("MPI_Allreduce with rank 1 gone: an error class (non-zero)", 1, 0);
    char text[MPI_MAX_ERROR_STRING];
    int len = 0, cls = 0;
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, text, &len);
    printf("slurm_job: survivor %d: MPI_Allreduce -> class %d (%s)\n", rank, cls, text);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        fprintf(stderr, "usage: slurm_job ring SIZE NODES | kill SIZE | exit SIZE\n");
        return 1;
    }
    int want = atoi(argv[2]);
    if (size != want)
        fail("MPI_COMM_WORLD size (a singleton when 1: PMI not seen)", want, size);
    int rc;
    if (strcmp(argv[1], "ring") == 0) {
        rc = ring(argc > 3 ? atoi(argv[3]) : 1);
    } else if (strcmp(argv[1], "kill") == 0 || strcmp(argv[1], "exit") == 0) {
        rc = victim(argv[1]);
    } else {
        fprintf(stderr, "slurm_job: unknown mode %s\n", argv[1]);
        return 1;
    }
    MPI_Finalize();
    return rc;
}
