/* A VM that dies while it moves: rank 1 (the VM ivcrun --migrate moves, which
 * IVC_MOVE_TEST_DIE makes kill itself at one point of its switch) exchanges numbered,
 * checked messages with every other rank, eager and rendezvous sizes in turn, until it is
 * gone. Each other rank exchanges with rank 1 only, so that no survivor waits for another.
 *   die return   MPI_ERRORS_RETURN: each survivor must get MPI_ERR_PROC_FAILED from its
 *                exchange with rank 1, find rank 1 in MPIX_Comm_get_failed, and go on with
 *                the other survivors (MPIX_Comm_shrink, then an Allreduce, checked)
 *   die fatal    MPI_ERRORS_ARE_FATAL: the survivors end the job (the launcher's message
 *                names the rank; tests/migrate/migrate.sh checks it)
 * A rank 1 still alive after 60 s fails the test (the hook did not fire). Run by
 * tests/migrate/migrate.sh die-*. */
#include <mpi-ext.h>
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOVER     1
#define BIG       (256 << 10) /* rendezvous */
#define SMALL     64          /* eager */
#define LIMIT_SEC 60.0

static void fill(unsigned char *b, int n, int src, long seq)
{
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(src * 31 + seq * 7 + i);
}

static int size_of(long seq)
{
    return seq % 3 == 2 ? BIG : SMALL;
}

/* One exchange with `peer`; returns the MPI error code. Wrong bytes count in *errors. */
static int exchange(int rank, int peer, long seq, unsigned char *s, unsigned char *r,
                    unsigned char *want, long *errors)
{
    int n = size_of(seq);
    fill(s, n, rank, seq);
    MPI_Status st;
    int rc = MPI_Sendrecv(s, n, MPI_BYTE, peer, (int)(seq & 0xffff), r, n, MPI_BYTE, peer,
                          (int)(seq & 0xffff), MPI_COMM_WORLD, &st);
    if (rc != MPI_SUCCESS)
        return rc;
    fill(want, n, peer, seq);
    if (memcmp(want, r, (size_t)n) != 0 && (*errors)++ < 5)
        fprintf(stderr, "rank %d: exchange %ld with rank %d has wrong bytes\n", rank, seq, peer);
    return MPI_SUCCESS;
}

/* After the failure: rank 1 must be the one failed, and the survivors go on together. */
static void survive(int rank, int size, int rc, long seq, long *errors)
{
    int cls;
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, text, &len);
    if (cls != MPI_ERR_PROC_FAILED) {
        fprintf(stderr, "rank %d: expected MPI_ERR_PROC_FAILED, got class %d (%s)\n", rank, cls,
                text);
        (*errors)++;
    }
    MPI_Group failed, world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPIX_Comm_get_failed(MPI_COMM_WORLD, &failed);
    int nfailed, one = 0, in_world;
    MPI_Group_size(failed, &nfailed);
    if (nfailed == 1)
        MPI_Group_translate_ranks(failed, 1, &one, world, &in_world);
    if (nfailed != 1 || in_world != MOVER) {
        fprintf(stderr, "rank %d: expected rank %d alone to have failed, got %d failed\n", rank,
                MOVER, nfailed);
        (*errors)++;
    }
    MPI_Group_free(&failed);
    MPI_Group_free(&world);
    MPI_Comm alive;
    MPIX_Comm_shrink(MPI_COMM_WORLD, &alive);
    MPI_Comm_set_errhandler(alive, MPI_ERRORS_RETURN);
    int n, sum = 0, want = size * (size - 1) / 2 - MOVER;
    MPI_Comm_size(alive, &n);
    int arc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, alive);
    if (n != size - 1 || arc != MPI_SUCCESS || sum != want) {
        fprintf(stderr,
                "rank %d: survivors: expected %d ranks summing to %d, got %d (rc %d) "
                "summing to %d\n",
                rank, size - 1, want, n, arc, sum);
        (*errors)++;
    }
    MPI_Comm_free(&alive);
    printf("rank %d: rank %d failed (%s) after %ld checked exchanges; %d survivors went on\n", rank,
           MOVER, text, seq, n);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ret = argc > 1 && strcmp(argv[1], "return") == 0;
    if (size < 3) {
        if (rank == 0)
            fprintf(stderr, "die: needs 3 ranks or more\n");
        MPI_Finalize();
        return 1;
    }
    if (ret)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned char *s = malloc(BIG), *r = malloc(BIG), *want = malloc(BIG);
    long errors = 0, seq = 0;
    double t0 = MPI_Wtime();
    int rc = MPI_SUCCESS;
    while (MPI_Wtime() - t0 < LIMIT_SEC) {
        if (rank == MOVER) {
            for (int p = 0; p < size; p++)
                if (p != MOVER)
                    exchange(rank, p, seq, s, r, want, &errors);
        } else if ((rc = exchange(rank, MOVER, seq, s, r, want, &errors)) != MPI_SUCCESS) {
            break;
        }
        seq++;
    }
    if (rc == MPI_SUCCESS) {
        fprintf(stderr, "rank %d: rank %d still answered after %.0f s (%ld exchanges)\n", rank,
                MOVER, LIMIT_SEC, seq);
        errors++;
    } else {
        survive(rank, size, rc, seq, &errors);
    }
    free(s);
    free(r);
    free(want);
    MPI_Finalize();
    return errors != 0;
}
