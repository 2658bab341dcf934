/* ring_prefault: the pages of the eager rings between co-located ranks are mapped at
 * MPI_Init (src/shm/shm_chan.c, prefault), so the first messages take no page faults.
 * Ranks pair up (0-1, 2-3, ...; an odd last rank idles) and, right after a barrier, run
 * 4096 ping-pongs of 0 bytes: two passes over a 128 KiB ring of one-line records each way.
 * Each rank counts its minor page faults over the loop (getrusage); with the rings
 * unmapped a rank takes one per ring page it writes and one per page it reads (64 with the
 * default ring), so more than 16 fails. Ranks on another simulated host (the hosts
 * configuration) talk over the network channel and are not checked. */
#include "t_util.h"

#include <sys/resource.h>

#define ROUNDS 4096

static long minor_faults(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

int main(int argc, char **argv)
{
    char b[1];
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    int peer = t_rank ^ 1;
    MPI_Comm node;
    int same = 0;
    /* Co-located: the pair is in one shared-memory communicator. */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (peer < t_size) {
        MPI_Group wg, ng;
        int in;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Comm_group(node, &ng);
        MPI_Group_translate_ranks(wg, 1, &peer, ng, &in);
        same = in != MPI_UNDEFINED;
        MPI_Group_free(&wg);
        MPI_Group_free(&ng);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    long before = minor_faults();
    for (int i = 0; i < ROUNDS && peer < t_size; i++) {
        if (t_rank < peer) {
            MPI_Send(b, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            MPI_Recv(b, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(b, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(b, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        }
    }
    long faults = minor_faults() - before;
    if (same && faults > 16)
        t_fail("%ld minor page faults in %d ping-pongs of 0 bytes with co-located rank %d "
               "(expected at most 16: the rings' pages are mapped at MPI_Init)",
               faults, ROUNDS, peer);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
