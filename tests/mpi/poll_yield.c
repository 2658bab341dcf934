/* poll_yield: rank 0 polls, in loops of its own, for what rank 1 provides only after
 * sleeping 300 ms outside MPI (the interleaving a descheduled peer makes):
 *   1. MPI_Test on an MPI_Isend of 256 KiB (a rendezvous at any eager limit), which
 *      completes only once rank 1 posts its receive;
 *   2. MPI_Iprobe for an 8-byte message rank 1 sends late;
 *   3. MPI_Testany over two MPI_Irecv, one of which rank 1 satisfies late.
 * Every payload is checked. Rank 0 prints how many calls each loop made. Whether those
 * calls yielded the core (src/mpi/p2p/p2p.h, ivc_mpi_polled) is what poll_yield.sh checks,
 * from the count the library prints at MPI_Finalize under IVC_DEBUG. */
#include "t_util.h"

#include <time.h>

#define BIG     (256 * 1024)
#define LATE_MS 300

static void late(void)
{
    struct timespec ts = {0, LATE_MS * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    unsigned char *buf;
    long long calls[3] = {0, 0, 0};
    int flag = 0, idx = -1;
    uint64_t small = 0, small2 = 0;
    MPI_Request req, two[2];
    MPI_Status st;

    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    buf = t_malloc(BIG);
    if (t_rank == 0) {
        t_fill(buf, BIG, t_seed(1, 0, 0));
        MPI_Isend(buf, BIG, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req);
        for (flag = 0; !flag; calls[0]++)
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        for (flag = 0; !flag; calls[1]++)
            MPI_Iprobe(1, 2, MPI_COMM_WORLD, &flag, &st);
        MPI_Recv(&small, 1, MPI_UINT64_T, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_INT(0x1234, (long long)small, "late 8-byte message (MPI_Iprobe)");
        MPI_Irecv(&small, 1, MPI_UINT64_T, 1, 3, MPI_COMM_WORLD, &two[0]);
        MPI_Irecv(&small2, 1, MPI_UINT64_T, 1, 4, MPI_COMM_WORLD, &two[1]);
        for (flag = 0; !flag; calls[2]++)
            MPI_Testany(2, two, &idx, &flag, MPI_STATUS_IGNORE);
        CHECK_INT(1, idx, "MPI_Testany: index of the late receive");
        CHECK_INT(0x5678, (long long)small2, "late 8-byte message (MPI_Testany)");
        MPI_Send(&small, 0, MPI_BYTE, 1, 5, MPI_COMM_WORLD); /* lets rank 1 send tag 3 */
        MPI_Wait(&two[0], MPI_STATUS_IGNORE);
        CHECK_INT(0x9abc, (long long)small, "second receive of the MPI_Testany pair");
        printf("poll_yield: MPI_Test %lld calls, MPI_Iprobe %lld, MPI_Testany %lld\n", calls[0],
               calls[1], calls[2]);
    } else if (t_rank == 1) {
        late();
        MPI_Recv(buf, BIG, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        t_check_fill(buf, BIG, t_seed(1, 0, 0), "256 KiB message (MPI_Test)");
        late();
        small = 0x1234;
        MPI_Send(&small, 1, MPI_UINT64_T, 0, 2, MPI_COMM_WORLD);
        late();
        small = 0x5678;
        MPI_Send(&small, 1, MPI_UINT64_T, 0, 4, MPI_COMM_WORLD);
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        small = 0x9abc;
        MPI_Send(&small, 1, MPI_UINT64_T, 0, 3, MPI_COMM_WORLD);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
