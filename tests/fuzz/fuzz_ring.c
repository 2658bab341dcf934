/* Fuzz target: ring records, pipeline counters and chunks as a receiver reads them. Two
 * connected channels exchange messages (eager, rendezvous, synchronous) driven by the input,
 * which also writes bytes anywhere into either inbox (counters, ring, slack, chunks) between
 * steps: the receiver must refuse what is invalid, fail the peer, and never read or write
 * outside the region or its buffers, whatever it is shown. */
#include "fuzz_chan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = {data, size};
    int checksum = (int)(fuzz_u(&in, 1) & 1);
    fz_setup(checksum, 1);
    fz_reset_ops();
    const ivc_rxblock_t *geo = (const ivc_rxblock_t *)fz_block(0);
    uint64_t span = geo->inbox_stride; /* one inbox per block (two ranks) */
    int steps = 0;
    while (in.left > 0 && steps++ < 256) {
        uint8_t op = (uint8_t)fuzz_u(&in, 1);
        int r = op & 1;
        switch ((op >> 1) % 6) {
        case 0: /* a send of a length the input chooses, up to two chunks' worth past eager */
            fz_do_send(r, fuzz_u(&in, 2) % 3000, (uint8_t)fuzz_u(&in, 1));
            break;
        case 1: ivc_shm_chan_ops.progress(fz_ch[r]); break;
        case 2: fz_do_pull(r, fuzz_u(&in, 2) % FZ_BUF); break;
        case 3:
        case 4: { /* bytes written into rank r's inbox at an offset the input chooses */
            uint8_t *inbox = fz_block(r) + 4096;
            uint64_t at = fuzz_u(&in, 2) % span;
            uint8_t buf[16];
            size_t n = fuzz_bytes(&in, buf, fuzz_u(&in, 1) % sizeof(buf) + 1);
            if (n > span - at)
                n = span - at;
            memcpy(inbox + at, buf, n);
            break;
        }
        case 5: { /* a whole forged record at the receiver's head position */
            uint8_t *ring = fz_block(r) + 4096 + sizeof(ivc_inbox_ctl_t);
            uint64_t pos = fuzz_u(&in, 2) * 64 % geo->ring_size;
            uint8_t rec[64];
            memset(rec, 0, sizeof(rec));
            fuzz_bytes(&in, rec + 8, 56);
            memcpy(ring + pos + 8, rec + 8, 56);
            ivc_store_release(&((ivc_rec_t *)(ring + pos))->stamp, fuzz_u(&in, 8));
            break;
        }
        }
    }
    for (int k = 0; k < 16; k++) {
        ivc_shm_chan_ops.progress(fz_ch[0]);
        ivc_shm_chan_ops.progress(fz_ch[1]);
    }
    fz_teardown();
    return 0;
}
