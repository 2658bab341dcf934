/* Fuzz target: region header and membership table validation. A valid region of 4 ranks
 * is formatted once; every input is a list of edits (offset, bytes) to its first pages
 * (header, membership table) plus the job and world size the attacher expects; then
 * ivc_region_attach must refuse or accept without touching memory it should not, and an
 * accepted region's membership slots are read back through the region API. */
#include "fuzz_util.h"

#include "region/region.h"

#include <stdlib.h>

#define SIZE  (1u << 20)
#define WORLD 4u
#define JOB   7u
#define SPAN  8192u /* bytes open to edits: the header page and the membership table */

static char path[64];
static uint8_t valid[SPAN];

static void init(void)
{
    fuzz_quiet();
    /* FUZZ_TAG (run.sh: its pid) lets the runner remove what a crashed run left. */
    snprintf(path, sizeof(path), "/dev/shm/ivc-fuzz-region-%s-%d",
             getenv("FUZZ_TAG") ? getenv("FUZZ_TAG") : "x", (int)getpid());
    ivc_region_t r;
    if (ivc_region_create(path, SIZE, JOB, WORLD, &r) != 0)
        abort();
    memcpy(valid, r.base, SPAN);
    ivc_region_detach(&r, 0);
}

static void cleanup(void)
{
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        init();
        atexit(cleanup);
        ready = 1;
    }
    fuzz_in_t in = {data, size};
    uint8_t page[SPAN];
    memcpy(page, valid, SPAN);
    uint64_t job = fuzz_u(&in, 1) & 1 ? JOB : fuzz_u(&in, 8);
    uint32_t world = (uint32_t)fuzz_u(&in, 1) % 8; /* 0: "whatever the header says" */
    while (in.left > 2) {
        uint32_t off = (uint32_t)fuzz_u(&in, 2) % SPAN;
        size_t len = fuzz_u(&in, 1) % 16 + 1;
        if (len > SPAN - off)
            len = SPAN - off;
        fuzz_bytes(&in, page + off, len);
    }
    /* A header that says "being formatted" makes an attacher wait up to 10 s for the
     * formatter: a real protocol state, not a parsing question. */
    uint32_t state;
    memcpy(&state, page + 16, 4);
    if (state == IVC_REGION_FORMATTING) {
        state = IVC_REGION_READY;
        memcpy(page + 16, &state, 4);
    }
    int fd = open(path, O_RDWR);
    if (fd < 0 || pwrite(fd, page, SPAN, 0) != SPAN)
        abort();
    close(fd);
    ivc_region_t r;
    if (ivc_region_attach(path, job, world, &r) == 0) {
        for (uint32_t k = 0; k < r.world_size; k++) {
            ivc_member_t *m = ivc_region_member(&r, k);
            (void)ivc_region_member_get(&r, k);
            (void)ivc_load_acquire(&m->rx_off);
            uint32_t how, by;
            char what[IVC_FAIL_WHAT_LEN];
            (void)ivc_region_member_failure(&r, k, &how, &by, what);
        }
        uint64_t off;
        (void)ivc_region_alloc(&r, 4096, 4096, &off);
        ivc_region_detach(&r, 0);
    }
    return 0;
}
