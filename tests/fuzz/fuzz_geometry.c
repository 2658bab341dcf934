/* Fuzz target: the receive-block geometry check. Both channels are created; the input
 * edits rank 1's membership slot (where its block is) and its block's geometry line, then
 * rank 0 connects. A refused block is the common outcome; an accepted one must be safe to
 * use, so both ranks then exchange a few eager and rendezvous messages over it. */
#include "fuzz_chan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size};
    int checksum = (int)(fuzz_u(&in, 1) & 1);
    fz_setup(checksum, 0);
    fz_reset_ops();
    /* The slot's block offset: kept, moved by a small amount, or replaced. */
    ivc_member_t *m = ivc_region_member(&fz_region, 1);
    uint64_t off = ivc_load_relaxed(&m->rx_off);
    uint8_t *blk = fz_block(1); /* before the slot changes */
    switch (fuzz_u(&in, 1) % 4) {
    case 1: off += (int16_t)fuzz_u(&in, 2); break;
    case 2: off = fuzz_u(&in, 8); break;
    default: break;
    }
    ivc_store_relaxed(&m->rx_off, off);
    /* Edits to the geometry line (ivc_rxblock_t) of the real block. */
    while (in.left > 1) {
        uint32_t at = (uint32_t)fuzz_u(&in, 1) % sizeof(ivc_rxblock_t);
        uint8_t v = (uint8_t)fuzz_u(&in, 1);
        blk[at] = v;
    }
    int rc = ivc_shm_chan_connect(fz_ch[0]);
    if (rc == 0 && ivc_load_relaxed(&m->rx_off) == off) {
        /* Rank 1 reads its own (unchanged) geometry only if its slot still points at it. */
        int ok1 = ivc_shm_chan_connect(fz_ch[1]) == 0;
        for (int round = 0; round < 4; round++) {
            fz_do_send(0, round * 700u, (uint8_t)round);
            if (ok1)
                fz_do_send(1, round * 900u, (uint8_t)(round + 1));
            for (int k = 0; k < 8; k++) {
                ivc_shm_chan_ops.progress(fz_ch[0]);
                if (ok1) {
                    ivc_shm_chan_ops.progress(fz_ch[1]);
                    fz_do_pull(1, FZ_BUF);
                }
                fz_do_pull(0, FZ_BUF);
            }
        }
    }
    fz_teardown();
    return 0;
}
