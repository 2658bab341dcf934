/* The eager ring at its boundaries: the full/empty test table-driven at the wrap points,
 * then a producer and a consumer moving records of every size across many laps (full
 * records alone, then short and full ones mixed, with pads), starting just below the
 * 64-bit wrap of the free-running positions. */
#include "test_util.h"

#include "shm/shm_ring.h"

#include <stdint.h>
#include <string.h>

#define RING   4096u
#define MAXREC 1024u

static void test_fits_table(void)
{
    static const struct {
        uint64_t tail, head, bytes, size;
        int fits;
    } rows[] = {
        {0, 0, 64, 4096, 1},
        {0, 0, 4032, 4096, 1}, /* a record plus the guard line fills it exactly */
        {0, 0, 4033, 4096, 0},
        {4032, 0, 64, 4096, 0}, /* only the guard line is left */
        {3968, 0, 64, 4096, 1},
        {4096, 64, 64, 4096, 0},
        {4096, 128, 64, 4096, 1},
        {(uint64_t)0 - 64, (uint64_t)0 - 64, 64, 4096, 1}, /* at the 2^64 wrap */
        {64, (uint64_t)0 - 3904, 64, 4096, 1},             /* tail wrapped, head not */
        {64, (uint64_t)0 - 3968, 64, 4096, 0},
        {100, 200, 64, 4096, 0}, /* head beyond tail: impossible, never fits */
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        int got = shm_ring_fits(rows[i].tail, rows[i].head, rows[i].bytes, rows[i].size);
        if (got != rows[i].fits)
            T_FAIL("row %zu: fits(tail=%llu, head=%llu, bytes=%llu): expected %d, got %d", i,
                   (unsigned long long)rows[i].tail, (unsigned long long)rows[i].head,
                   (unsigned long long)rows[i].bytes, rows[i].fits, got);
    }
}

static void test_laps(uint64_t start)
{
    static uint8_t mem[sizeof(ivc_inbox_ctl_t) + RING + MAXREC] __attribute__((aligned(64)));
    memset(mem, 0, sizeof(mem));
    ivc_inbox_ctl_t *ctl = (ivc_inbox_ctl_t *)mem;
    uint8_t *ring = mem + sizeof(*ctl);
    ivc_store_relaxed(&ctl->ring_head, start);
    shm_ring_tx_t tx = {ring, RING, MAXREC, start, start, ctl, 0};
    shm_ring_rx_t rx = {ring, RING, MAXREC, start, start, ctl};
    /* Garbage that looks like a stamp of the first lap must not be taken for one: the
     * stamp word at the start position was zeroed by the owner, everything else is only
     * trusted once the producer zeroed it. */
    ((ivc_rec_t *)(ring + (start & (RING - 1))))->stamp = 0;
    for (size_t off = 64; off < RING; off += 64)
        memcpy(ring + off, &(uint64_t){start + off + 1}, 8);

    uint64_t sent = 0, got = 0;
    unsigned seed = 1;
    while (got < 5000) {
        /* produce as many as fit */
        for (;;) {
            uint32_t len = (uint32_t)((sent * 37) % (MAXREC - sizeof(ivc_rec_t) + 1));
            uint64_t bytes = shm_ring_record_bytes(len);
            int err = 0;
            ivc_rec_t *rec = shm_ring_reserve(&tx, bytes, &err);
            T_EQ(0, err, "reserve error");
            if (rec == NULL)
                break;
            rec->paylen = len;
            rec->seq = (uint32_t)sent;
            for (uint32_t i = 0; i < len; i++)
                ((uint8_t *)(rec + 1))[i] = t_pattern((unsigned)sent, i);
            shm_ring_clear_next(&tx, bytes);
            shm_ring_commit(&tx, rec, bytes);
            sent++;
        }
        /* consume a few, so the two sides drift across the wrap; now and then everything,
         * so that the consumer polls where nothing was published yet (over the garbage of
         * the first lap: only the producer's clearing keeps it from looking fresh) */
        unsigned take = seed % 7 == 0 ? UINT32_MAX : 1 + seed % 5;
        for (unsigned k = 0; k < take; k++) {
            const ivc_rec_t *rec = shm_ring_poll(&rx);
            if (rec == NULL) {
                T_EQ(sent, got, "consumer found the ring empty only when all was consumed");
                break;
            }
            T_EQ((uint32_t)got, rec->seq, "record order");
            uint32_t len = rec->paylen;
            T_EQ((got * 37) % (MAXREC - sizeof(ivc_rec_t) + 1), len, "record length");
            for (uint32_t i = 0; i < len; i++)
                if (((const uint8_t *)(rec + 1))[i] != t_pattern((unsigned)got, i))
                    T_FAIL("record %llu byte %u corrupted", (unsigned long long)got, i);
            shm_ring_release(&rx, shm_ring_record_bytes(len));
            got++;
        }
        seed = seed * 1103515245u + 12345u;
    }
    T_TRUE(tx.tail - start > 100ull * RING, "many laps were made");
}

/* Short records packed into lines, full records on lines after a pad, across many laps:
 * the same drift between the two sides as test_laps, over garbage that looks like a fresh
 * stamp at every 16-byte position of the first lap. A full record's stamp word is not
 * zeroed before it is written (the pad in front of it is published after it): the consumer
 * must never look there first. */
static void test_mixed(uint64_t start)
{
    static uint8_t mem[sizeof(ivc_inbox_ctl_t) + RING + MAXREC] __attribute__((aligned(64)));
    memset(mem, 0, sizeof(mem));
    ivc_inbox_ctl_t *ctl = (ivc_inbox_ctl_t *)mem;
    uint8_t *ring = mem + sizeof(*ctl);
    ivc_store_relaxed(&ctl->ring_head, start);
    shm_ring_tx_t tx = {ring, RING, MAXREC, start, start, ctl, 0};
    shm_ring_rx_t rx = {ring, RING, MAXREC, start, start, ctl};
    for (size_t off = 16; off < RING; off += 16)
        memcpy(ring + off, &(uint64_t){start + off + 1}, 8);
    ((ivc_rec_t *)(ring + (start & (RING - 1))))->stamp = 0;

    uint64_t sent = 0, got = 0, pads = 0;
    unsigned seed = 7;
    while (got < 20000) {
        for (;;) {
            int brief = sent % 5 < 3; /* three short records, then two full ones */
            uint32_t len = brief ? (uint32_t)((sent * 29) % (IVC_REC_SHORT_MAX + 1))
                                 : (uint32_t)((sent * 37) % (MAXREC - sizeof(ivc_rec_t) + 1));
            uint64_t bytes = brief ? shm_ring_short_bytes(len) : shm_ring_record_bytes(len);
            int err = 0;
            ivc_rec_t *rec = brief ? shm_ring_reserve_short(&tx, bytes, &err)
                                   : shm_ring_reserve(&tx, bytes, &err);
            T_EQ(0, err, "reserve error");
            if (rec == NULL)
                break;
            uint8_t *payload;
            if (brief) {
                ivc_rec_short_t *r = (ivc_rec_short_t *)rec;
                r->kind = IVC_REC_SHORT;
                r->paylen = (uint16_t)len;
                r->tag = (int32_t)sent;
                payload = (uint8_t *)(r + 1);
            } else {
                T_EQ(0, (uintptr_t)rec & 63, "a full record starts on a line");
                rec->kind = IVC_REC_EAGER;
                rec->paylen = len;
                rec->seq = (uint32_t)sent;
                payload = (uint8_t *)(rec + 1);
            }
            for (uint32_t i = 0; i < len; i++)
                payload[i] = t_pattern((unsigned)sent, i);
            shm_ring_clear_next(&tx, bytes);
            shm_ring_commit(&tx, rec, bytes);
            sent++;
        }
        unsigned take = seed % 7 == 0 ? UINT32_MAX : 1 + seed % 5;
        for (unsigned k = 0; k < take; k++) {
            const ivc_rec_t *rec = shm_ring_poll(&rx);
            if (rec == NULL) {
                T_EQ(sent, got, "consumer found the ring empty only when all was consumed");
                break;
            }
            const ivc_rec_short_t *r = (const ivc_rec_short_t *)rec;
            if (r->kind == IVC_REC_PAD) {
                T_TRUE(shm_ring_pad_bytes(rx.head) != 0, "a pad record inside a line");
                shm_ring_release(&rx, shm_ring_pad_bytes(rx.head));
                pads++;
                k--;
                continue;
            }
            int brief = got % 5 < 3;
            uint32_t len;
            const uint8_t *payload;
            if (brief) {
                T_EQ(IVC_REC_SHORT, r->kind, "short record where one was written");
                T_EQ((int32_t)got, r->tag, "short record order");
                len = r->paylen;
                T_EQ((got * 29) % (IVC_REC_SHORT_MAX + 1), len, "short record length");
                payload = (const uint8_t *)(r + 1);
            } else {
                T_EQ(IVC_REC_EAGER, rec->kind, "full record where one was written");
                T_EQ((uint32_t)got, rec->seq, "full record order");
                len = rec->paylen;
                T_EQ((got * 37) % (MAXREC - sizeof(ivc_rec_t) + 1), len, "full record length");
                payload = (const uint8_t *)(rec + 1);
            }
            for (uint32_t i = 0; i < len; i++)
                if (payload[i] != t_pattern((unsigned)got, i))
                    T_FAIL("record %llu byte %u corrupted", (unsigned long long)got, i);
            shm_ring_release(&rx, brief ? shm_ring_short_bytes(len) : shm_ring_record_bytes(len));
            got++;
        }
        seed = seed * 1103515245u + 12345u;
    }
    T_TRUE(pads > 1000, "full records after short ones were padded to a line");
    T_TRUE(tx.tail - start > 100ull * RING, "many laps were made");
}

int main(void)
{
    test_fits_table();
    test_laps(0);
    test_laps((uint64_t)0 - 20 * RING - 64); /* crosses 2^64 mid-run */
    test_mixed(0);
    test_mixed((uint64_t)0 - 20 * RING - 64);
    printf("ring: ok\n");
    return 0;
}
