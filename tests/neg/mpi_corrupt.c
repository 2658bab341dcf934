/* End to end: rank 1 turns faulty and writes a corrupt eager record (a payload length far
 * beyond its ring) into its ring in rank 0's inbox, straight through the region. Rank 0's
 * receive from rank 1 must fail with MPI_ERR_PROC_FAILED without touching memory around
 * its buffer, sends to rank 1 must fail too, and rank 0 must go on talking to rank 2. */
#include <mpi.h>

#include "region/region.h"
#include "shm/shm_ring.h"
#include "../mpi/t_sect.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: ", rank);                                                    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

static int rank, size;

/* Rank 1: maps the region file as any co-tenant could (attaching through the library
 * would be refused: the region is in use by a running job), finds the tail of its ring to
 * rank 0 (in its own block) by walking its own stamped records, then commits a forged
 * record there. */
static void forge(void)
{
    const char *path = t_region_file();
    int fd = path ? open(path, O_RDWR) : -1;
    struct stat st;
    CHECK(fd >= 0 && fstat(fd, &st) == 0, "cannot open the region %s", path ? path : "(unset)");
    uint64_t size = (uint64_t)st.st_size;
    uint8_t *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    CHECK(base != MAP_FAILED && size >= IVC_REGION_HDR_SIZE, "cannot map the region");
    const ivc_region_hdr_t *h = (const ivc_region_hdr_t *)base;
    CHECK(h->members_off < size && size - h->members_off >= sizeof(ivc_member_t),
          "implausible membership table");
    ivc_member_t *m1 = (ivc_member_t *)(base + h->members_off) + 1;
    uint64_t off = ivc_load_acquire(&m1->rx_off);
    /* In rank 1's own section under ivcrun: writable here, as rank 1 is this process. */
    ivc_rxblock_t *blk =
        (ivc_rxblock_t *)t_region_ptr(base, size, off, 4096 + sizeof(ivc_inbox_ctl_t));
    CHECK(off > 0 && blk != NULL && blk->magic == IVC_RXBLOCK_MAGIC, "rank 1 has no channel block");
    /* rank 1's slot for rank 0 is its first (slots skip the block's owner) */
    uint8_t *inbox = (uint8_t *)blk + 4096;
    uint8_t *ring = inbox + sizeof(ivc_inbox_ctl_t);
    uint64_t pos = 0;
    uint32_t seq = 0;
    uint16_t framing = 0; /* our records' check-word flag (IVC_CHECKSUM), kept when forging */
    for (;;) {
        ivc_rec_t *rec = (ivc_rec_t *)(ring + (pos & (blk->ring_size - 1)));
        if (ivc_load_acquire(&rec->stamp) != pos + 1)
            break;
        if (rec->kind == IVC_REC_PAD) { /* short records and pads: without check words */
            pos += shm_ring_pad_bytes(pos);
        } else if (rec->kind == IVC_REC_SHORT) {
            seq++;
            pos += shm_ring_short_bytes(((ivc_rec_short_t *)rec)->paylen);
        } else {
            seq = rec->seq + 1;
            framing = rec->rsvd & SHM_REC_CSUM;
            pos += shm_ring_record_bytes_x(rec->paylen, framing);
        }
    }
    ivc_rec_t *rec = (ivc_rec_t *)(ring + (pos & (blk->ring_size - 1)));
    rec->kind = IVC_REC_EAGER;
    rec->flags = 0;
    rec->rsvd = framing;
    rec->paylen = 1u << 30;
    rec->arg = 1u << 30;
    rec->ctx = 0;
    rec->src = 1;
    rec->tag = 7;
    rec->seq = seq;
    rec->cookie = 0;
    ivc_store_release(&rec->stamp, pos + 1);
    munmap(base, size);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0)
            fprintf(stderr, "SKIP: needs exactly 3 ranks\n");
        MPI_Finalize();
        return 77;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        forge();
    if (rank == 0) {
        static char buf[100 + 128];
        memset(buf, 0x5a, sizeof(buf));
        MPI_Status st;
        int rc = MPI_Recv(buf + 64, 100, MPI_CHAR, 1, 7, MPI_COMM_WORLD, &st);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_PROC_FAILED, "receive from the faulty rank: expected class %d, got %d",
              MPI_ERR_PROC_FAILED, cls);
        for (size_t i = 0; i < sizeof(buf); i++)
            CHECK(buf[i] == 0x5a, "byte %zu of the buffer and its guards changed", i);
        rc = MPI_Send(buf, 10, MPI_CHAR, 1, 8, MPI_COMM_WORLD);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_PROC_FAILED, "send to the faulty rank: expected class %d, got %d",
              MPI_ERR_PROC_FAILED, cls);
    }
    /* Ranks 0 and 2 go on: a ping-pong with checked data. */
    if (rank != 1) {
        int peer = 2 - rank;
        for (int i = 0; i < 100; i++) {
            int out = i * 10 + rank, in = -1;
            int rc = MPI_Sendrecv(&out, 1, MPI_INT, peer, 9, &in, 1, MPI_INT, peer, 9,
                                  MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(rc == MPI_SUCCESS && in == i * 10 + peer, "exchange %d: expected %d, got %d", i,
                  i * 10 + peer, in);
        }
    }
    MPI_Finalize();
    if (rank == 0)
        printf("mpi_corrupt: rank 0 rejected the corrupt record and kept working\n");
    return 0;
}
