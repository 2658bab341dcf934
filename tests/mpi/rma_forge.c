/* A faulty peer against the active-message path. Rank 1 turns faulty: straight through the
 * region it commits well-formed ring records on the RMA context into rank 0's inbox whose
 * active-message headers are malformed or hostile — too short, lengths that disagree,
 * unknown kinds and windows, accesses past the window's end or wrapping around, a bad
 * reduction op or element kind, an oversized get, a compare-and-swap of the wrong size, an
 * unlock of a lock it does not hold, and replies nobody asked for. Rank 0 must survive all
 * of them without touching its window memory (a canary pattern) or its lock words, and
 * ranks 0 and 2 must then run lock, put, get, accumulate and fetch-and-op epochs on the
 * same window with exact results. Links the core for the region layout. Needs 3 ranks;
 * rank 1 sends nothing to rank 0 afterwards (its ring position is no longer its own). */
#include "t_util.h"

#include "mpi/rma/rma_impl.h"
#include "region/region.h"
#include "shm/shm_ring.h"
#include "t_sect.h"

#define WORDS 64

static void forge(void)
{
    ivc_region_t r;
    if (ivc_region_attach(t_region_file(), 0, 0, &r) != 0)
        t_fail("cannot attach the region");
    uint64_t off = ivc_load_acquire(&ivc_region_member(&r, 1)->rx_off);
    /* In rank 1's own section under ivcrun: writable here, as rank 1 is this process. */
    ivc_rxblock_t *blk = (ivc_rxblock_t *)t_region_ptr(r.base, r.size, off, sizeof(*blk));
    if (blk == NULL || blk->magic != IVC_RXBLOCK_MAGIC)
        t_fail("rank 1 has no channel block");
    /* rank 1's ring to rank 0: its first slot (slots skip the block's owner) */
    uint8_t *ring = (uint8_t *)blk + 4096 + sizeof(ivc_inbox_ctl_t);
    uint64_t mask = blk->ring_size - 1, pos = 0;
    uint32_t seq = 0;
    for (;;) {
        ivc_rec_t *rec = (ivc_rec_t *)(ring + (pos & mask));
        if (ivc_load_acquire(&rec->stamp) != pos + 1)
            break;
        seq = rec->seq + 1;
        pos += shm_ring_record_bytes(rec->paylen);
    }
    /* The hostile messages: (header, payload bytes, bytes of the message actually sent). */
    enum { NMSG = 64 };
    struct {
        am_hdr_t h;
        uint32_t pay, cut;
    } m[NMSG];
    int n = 0;
#define ADD(...) (m[n++] = (typeof(m[0])){__VA_ARGS__})
    for (int win = 0; win < 8; win++) { /* the window's id is not known here: try several */
        ADD({.kind = AM_PUT, .win = win, .disp = WORDS * 8 - 4, .len = 8}, 8, 0);
        ADD({.kind = AM_PUT, .win = win, .disp = UINT64_MAX - 3, .len = 8}, 8, 0);
        ADD({.kind = AM_GET, .win = win, .disp = 0, .rlen = (uint64_t)1 << 40}, 0, 0);
        ADD({.kind = AM_ACC, .win = win, .disp = 0, .len = 8, .op = 99, .basic = B_INT}, 8, 0);
        ADD({.kind = AM_CAS, .win = win, .disp = 0, .len = 6, .rlen = 3, .basic = B_LONG}, 6, 0);
        ADD({.kind = AM_UNLOCK, .win = win, .flags = MPI_LOCK_EXCLUSIVE}, 0, 0);
    }
    ADD({.kind = AM_PUT, .win = 2, .len = 64}, 8, 0);        /* len disagrees with the message */
    ADD({.kind = 77, .win = 2}, 0, 0);                       /* unknown kind */
    ADD({.kind = AM_PUT, .win = 2, .len = 8}, 8, 20);        /* cut short: 20 bytes in all */
    ADD({.kind = AM_DATA, .cookie = 12345, .len = 4}, 4, 0); /* replies nobody asked for */
    ADD({.kind = AM_ACK, .win = 2}, 0, 0);
    ADD({.kind = AM_LOCKED, .cookie = 1, .flags = 1}, 0, 0);
    if (n > NMSG)
        t_fail("internal: %d forged messages, room for %d", n, NMSG);
    for (int i = 0; i < n; i++) {
        uint64_t paylen = m[i].cut ? m[i].cut : sizeof(am_hdr_t) + m[i].pay;
        uint64_t bytes = shm_ring_record_bytes(paylen);
        ivc_rec_t *rec = (ivc_rec_t *)(ring + (pos & mask));
        /* Clear the next record's stamp first, as a real sender does. */
        ivc_rec_t *next = (ivc_rec_t *)(ring + ((pos + bytes) & mask));
        ivc_store_relaxed(&next->stamp, 0);
        uint8_t *p = (uint8_t *)(rec + 1);
        memset(p, 0xEE, paylen);
        memcpy(p, &m[i].h, paylen < sizeof(am_hdr_t) ? paylen : sizeof(am_hdr_t));
        rec->kind = IVC_REC_EAGER;
        rec->flags = 0;
        rec->rsvd = 0;
        rec->paylen = (uint32_t)paylen;
        rec->ctx = IVC_RMA_CTX;
        rec->src = 1;
        rec->tag = (int32_t)m[i].h.kind;
        rec->seq = seq++;
        rec->arg = paylen;
        rec->cookie = 0;
        ivc_store_release(&rec->stamp, pos + 1);
        pos += bytes;
    }
    ivc_region_detach(&r, 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    if (t_size != 3)
        t_skip("needs exactly 3 ranks");
    long *mem = t_malloc(WORDS * sizeof(long));
    for (int i = 0; i < WORDS; i++)
        mem[i] = 1000 + i;
    MPI_Win win, flagwin;
    /* Private memory: every peer reaches rank 0 through active messages. */
    CHECK_MPI(MPI_Win_create(mem, WORDS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                             &win));
    /* Region memory: rank 1 raises rank 0's flag with a plain store, no message. */
    volatile int *flag;
    CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                               (void *)&flag, &flagwin));
    *flag = 0;
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, t_rank == 1, t_rank, &pair);
    MPI_Barrier(MPI_COMM_WORLD);
    /* From here on rank 1 sends nothing to rank 0 (its ring position is no longer its own):
     * no collective over WORLD, the windows are left to MPI_Finalize. */
    CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, flagwin));
    if (t_rank == 1) {
        forge();
        int one = 1;
        MPI_Win_sync(flagwin); /* the forged records before the flag */
        CHECK_MPI(MPI_Put(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, flagwin));
        CHECK_MPI(MPI_Win_flush(0, flagwin));
    }
    if (t_rank == 0) {
        while (*flag != 1) { /* polls rank 1's ring meanwhile: handles the forged messages */
            int f;
            MPI_Iprobe(2, 999, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE);
            MPI_Win_sync(flagwin);
        }
        for (int i = 0; i < 1000; i++) {
            int f;
            MPI_Iprobe(2, 999, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE);
        }
        for (int i = 0; i < WORDS; i++)
            CHECK_INT(1000 + i, mem[i], "window word after the forged messages");
    }
    CHECK_MPI(MPI_Win_unlock_all(flagwin));
    if (t_rank != 1) {
        MPI_Barrier(pair);
        /* Rank 2 works on rank 0's window, exclusive then shared. */
        if (t_rank == 2) {
            long v[4] = {1, 2, 3, 4}, g[4], one = 1, old = -1;
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            CHECK_MPI(MPI_Put(v, 4, MPI_LONG, 0, 10, 4, MPI_LONG, win));
            CHECK_MPI(MPI_Win_unlock(0, win));
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            CHECK_MPI(MPI_Accumulate(v, 4, MPI_LONG, 0, 10, 4, MPI_LONG, MPI_SUM, win));
            CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM, win));
            CHECK_MPI(MPI_Win_flush(0, win));
            CHECK_MPI(MPI_Get(g, 4, MPI_LONG, 0, 10, 4, MPI_LONG, win));
            CHECK_MPI(MPI_Win_unlock(0, win));
            for (int i = 0; i < 4; i++)
                CHECK_INT(2 * v[i], g[i], "put + accumulate after the attack");
            CHECK_INT(1000, old, "fetch_and_op after the attack");
        }
        MPI_Barrier(pair);
        if (t_rank == 0) {
            CHECK_INT(1001, mem[0], "counter");
            for (int i = 0; i < 4; i++)
                CHECK_INT(2 * (i + 1), mem[10 + i], "window words written by rank 2");
        }
    }
    MPI_Comm_free(&pair);
    MPI_Finalize();
    free(mem);
    return 0;
}
