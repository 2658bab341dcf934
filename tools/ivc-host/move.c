/* `ivc-host move --region FILE --ranks R1,R2... --to K [--wait SEC]` (move.h). */
#include "move.h"

#include "base/ivc_atomic.h"
#include "base/ivc_wait.h"
#include "region/region.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MOVE_MAX_RANKS 1024

static int usage(void)
{
    fprintf(stderr, "usage: ivc-host move --region FILE --ranks R1,R2... --to K [--wait SEC]\n"
                    "  K: the destination host's index in the job's IVC_HOST_REGIONS\n"
                    "  --wait SEC: how long the ranks may take to leave (default 60)\n");
    return 2;
}

/* Parses "R1,R2,..." into ranks below `world`. Returns how many, or -1. */
static int parse_ranks(const char *s, uint32_t world, uint32_t *out)
{
    int n = 0;
    while (*s != '\0') {
        char *end;
        unsigned long r = strtoul(s, &end, 10);
        if (end == s || r >= world || n == MOVE_MAX_RANKS || (*end != ',' && *end != '\0'))
            return -1;
        out[n++] = (uint32_t)r;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

int host_move(int argc, char **argv)
{
    const char *path = NULL, *ranks_arg = NULL;
    long to = -1;
    double wait_s = 60;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL)
            return usage();
        if (!strcmp(a, "--region") || !strcmp(a, "-r"))
            path = v;
        else if (!strcmp(a, "--ranks"))
            ranks_arg = v;
        else if (!strcmp(a, "--to"))
            to = strtol(v, NULL, 10);
        else if (!strcmp(a, "--wait"))
            wait_s = atof(v);
        else
            return usage();
        i++;
    }
    if (path == NULL || ranks_arg == NULL || to < 0 || to > 0xfffe || wait_s <= 0)
        return usage();
    ivc_region_t r;
    int rc = ivc_region_attach_running(path, 0, 0, &r);
    if (rc != 0) {
        fprintf(stderr, "ivc-host move: cannot attach %s: %s\n", path, strerror(-rc));
        return 1;
    }
    uint32_t ranks[MOVE_MAX_RANKS];
    int n = parse_ranks(ranks_arg, r.world_size, ranks);
    if (n <= 0) {
        fprintf(stderr, "ivc-host move: --ranks %s: expected ranks below %u, comma-separated\n",
                ranks_arg, r.world_size);
        ivc_region_detach(&r, 0);
        return 2;
    }
    /* Every rank must be running here before any is ordered: a refusal after some orders
     * were written would leave those ranks moving alone (and a retry would then find them
     * gone), where the caller asked for all of them at once. */
    for (int i = 0; i < n; i++) {
        uint32_t st = ivc_region_member_get(&r, ranks[i]);
        if (st != IVC_MEMBER_JOINED) {
            fprintf(stderr, "ivc-host move: rank %u is not running in %s (member state %u)\n",
                    ranks[i], path, st);
            ivc_region_detach(&r, 0);
            return 1;
        }
    }
    /* Each order's sequence number exceeds every order the rank carried out: those it read
     * here (order, done) and the one that brought it here (at_seq, written before JOINED). */
    for (int i = 0; i < n; i++) {
        ivc_move_t *slot = ivc_region_move(&r, ranks[i]);
        uint64_t seq = ivc_load_acquire(&slot->order) >> 16, done = ivc_load_acquire(&slot->done);
        uint64_t at = ivc_load_acquire(&slot->at_seq);
        seq = (seq > done ? seq : done);
        seq = (seq > at ? seq : at) + 1;
        ivc_store_release(&slot->order, seq << 16 | (uint64_t)(to + 1));
        printf("ivc-host move: rank %u: order %" PRIu64 " to host %ld\n", ranks[i], seq, to);
    }
    fflush(stdout);
    uint64_t t0 = ivc_now_ns(), end = t0 + (uint64_t)(wait_s * 1e9);
    int left = n, bad = 0;
    uint8_t gone[MOVE_MAX_RANKS] = {0};
    while (left > 0 && !bad && ivc_now_ns() < end) {
        for (int i = 0; i < n; i++) {
            if (gone[i])
                continue;
            uint32_t st = ivc_region_member_get(&r, ranks[i]);
            if (st == IVC_MEMBER_MOVED) {
                gone[i] = 1;
                left--;
                printf("ivc-host move: rank %u left after %.1f ms\n", ranks[i],
                       (ivc_now_ns() - t0) / 1e6);
            } else if (st != IVC_MEMBER_JOINED) {
                fprintf(stderr, "ivc-host move: rank %u ended instead (member state %u)\n",
                        ranks[i], st);
                bad = 1;
            }
        }
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    ivc_region_detach(&r, 0);
    if (left > 0 && !bad)
        fprintf(stderr, "ivc-host move: %d rank(s) did not leave within %.0f s\n", left, wait_s);
    return left == 0 ? 0 : 1;
}
