/* heap: the program's allocations in the shared heap (IVC_SHARED_HEAP) never break it.
 *
 * Checked, with 2 ranks and a small heap (the registration sets IVC_SHARED_HEAP_SIZE and
 * IVC_RMA_ARENA so that it fills up):
 *  - malloc/calloc/realloc/reallocarray/posix_memalign/aligned_alloc/memalign of large sizes
 *    give usable, aligned, zeroed (calloc) memory; malloc_usable_size answers for both kinds;
 *    realloc keeps the contents when it moves a block, in and out of the heap;
 *  - allocating until the heap is full falls back to ordinary memory: every allocation
 *    succeeds, messages between full-heap and private buffers arrive intact;
 *  - blocks freed make room again (the heap is reused);
 *  - fork: a child writing into a heap buffer it inherited does not change the parent's,
 *    and can allocate and free large blocks itself;
 *  - free of memory from before MPI_Init and after MPI_Finalize; heap blocks stay readable,
 *    writable, reallocatable and freeable after MPI_Finalize.
 * Argument "expect-off" (implied in sanitizer builds): the heap takes nothing (IVC_SHARED_HEAP=off):
 * then the same calls must work too. Whether a block lies in the region is told by its
 * address against MPI_Alloc_mem's (both come from the one heap). */
#define _GNU_SOURCE
#include "t_util.h"

#include <errno.h>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#define BIG ((size_t)256 << 10)

static uintptr_t lo, hi; /* the region's mapping in this process */

/* Finds the mapping that holds p in /proc/self/maps: the region, for MPI_Alloc_mem memory. */
static void find_mapping(const void *p)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    while (f != NULL && fgets(line, sizeof line, f)) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx", &a, &b) == 2 && (uintptr_t)p >= a && (uintptr_t)p < b) {
            lo = a;
            hi = b;
        }
    }
    if (f != NULL)
        fclose(f);
    if (hi == 0)
        t_fail("no mapping holds MPI_Alloc_mem's block %p", p);
}

static int in_heap(const void *p)
{
    return (uintptr_t)p >= lo && (uintptr_t)p < hi;
}

static void check_aligned(const void *p, size_t a, const char *what)
{
    if ((uintptr_t)p % a != 0)
        t_fail("%s: %p is not aligned to %zu", what, p, a);
}

int main(int argc, char **argv)
{
    int expect_on = !(argc > 1 && strcmp(argv[1], "expect-off") == 0);
#if defined(__SANITIZE_ADDRESS__)
    expect_on = 0; /* ASan's allocator takes every malloc: the heap holds none */
#endif
    void *before = malloc(BIG); /* glibc's: MPI is not up yet */
    memset(before, 1, BIG);
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    int peer = t_rank ^ 1;

    /* Where the region lies: around an Alloc_mem block (the heap is one piece of it). */
    unsigned char *am;
    MPI_Alloc_mem(4096, MPI_INFO_NULL, &am);
    find_mapping(am);

    /* ---- the malloc family ---- */
    unsigned char *a = malloc(BIG);
    CHECK_INT(expect_on, in_heap(a), "malloc(256K) in the heap");
    memset(a, 0xab, BIG);
    if (malloc_usable_size(a) < BIG)
        t_fail("malloc_usable_size: %zu < %zu", malloc_usable_size(a), BIG);
    if (malloc_usable_size(before) < BIG)
        t_fail("malloc_usable_size of glibc memory: %zu", malloc_usable_size(before));
    unsigned char *small = malloc(100);
    CHECK_INT(0, in_heap(small), "malloc(100) in the heap");
    unsigned char *z = calloc(BIG / 8, 8);
    CHECK_INT(expect_on, in_heap(z), "calloc in the heap");
    t_check_bytes(z, BIG, 0, "calloc'd memory");
    memset(z, 0x11, BIG);
    free(z);
    z = calloc(1, BIG); /* likely the same block again: zeroed anyway */
    t_check_bytes(z, BIG, 0, "calloc'd memory reusing a freed block");
    void *pa = NULL;
    CHECK_INT(0, posix_memalign(&pa, 8192, BIG), "posix_memalign");
    check_aligned(pa, 8192, "posix_memalign(8192)");
    CHECK_INT(expect_on, in_heap(pa), "posix_memalign in the heap");
    void *aa = aligned_alloc(1 << 16, BIG);
    check_aligned(aa, 1 << 16, "aligned_alloc(64K)");
    void *ma = memalign(4096, BIG);
    check_aligned(ma, 4096, "memalign(4096)");
#if !defined(__SANITIZE_ADDRESS__) /* ASan aborts on it by design */
    CHECK_INT(EINVAL, posix_memalign(&pa, 3, BIG), "posix_memalign with alignment 3");
#endif

    /* realloc: grow (moves), shrink (in place), out to glibc and into the heap. */
    t_fill(a, BIG, 5);
    unsigned char *b = realloc(a, 3 * BIG);
    t_check_fill(b, BIG, 5, "realloc grown");
    b = realloc(b, 2 * BIG);
    t_check_fill(b, BIG, 5, "realloc shrunk");
    unsigned char *c = realloc(b, 1000); /* to a size glibc serves */
    t_check_fill(c, 1000, 5, "realloc down to 1000 bytes");
    CHECK_INT(0, in_heap(c), "realloc(1000) in the heap");
    c = realloc(c, 2 * BIG); /* glibc memory stays glibc's */
    t_check_fill(c, 1000, 5, "realloc of glibc memory up");
    unsigned char *d = reallocarray(NULL, BIG, 2);
    CHECK_INT(expect_on, in_heap(d), "reallocarray in the heap");
#if !defined(__SANITIZE_ADDRESS__) /* ASan aborts on it by design */
    if (reallocarray(d, SIZE_MAX / 2, 4) != NULL)
        t_fail("reallocarray overflow not refused");
#endif
    free(d);
    free(c);
    free(small);
    free(z);
    free(pa);
    free(aa);
    free(ma);
    free(before);
    free(NULL);

    /* ---- until the heap is full: every allocation still succeeds ---- */
    enum { NMAX = 64 };
    unsigned char *blk[NMAX];
    int nheap = 0, nprivate = 0;
    for (int k = 0; k < NMAX; k++) {
        blk[k] = malloc(BIG);
        if (blk[k] == NULL)
            t_fail("malloc number %d of %zu bytes failed", k, BIG);
        in_heap(blk[k]) ? nheap++ : nprivate++;
    }
    if (expect_on && (nheap == 0 || nprivate == 0))
        t_fail("expected the heap to fill up: %d blocks in it, %d outside", nheap, nprivate);
    /* Messages between every kind of block: heap->private, private->heap, both. */
    for (int k = 0; k < NMAX; k += 7) {
        int j = NMAX - 1 - k;
        char what[80];
        t_fmt(what, sizeof what, "block %d (%s) -> block %d (%s)", k,
              in_heap(blk[k]) ? "heap" : "private", j, in_heap(blk[j]) ? "heap" : "private");
        t_fill(blk[k], BIG, (uint64_t)k + 100 * t_rank);
        MPI_Sendrecv(blk[k], (int)BIG, MPI_BYTE, peer, k, blk[j], (int)BIG, MPI_BYTE, peer, k,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        t_check_fill(blk[j], BIG, (uint64_t)k + 100 * peer, what);
    }
    for (int k = 0; k < NMAX; k++)
        free(blk[k]);
    unsigned char *again = malloc(BIG);
    CHECK_INT(expect_on, in_heap(again), "malloc after freeing a full heap");

    /* ---- fork: the child's writes stay in the child ---- */
    t_fill(again, BIG, 77);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        memset(again, 0xee, BIG);
        unsigned char *x = malloc(4 * BIG);
        if (x == NULL)
            _exit(3);
        memset(x, 1, 4 * BIG);
        free(x);
        free(again);
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        t_fail("fork/waitpid failed");
    CHECK_INT(0, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
              "the forked child's exit status");
    t_check_fill(again, BIG, 77, "the parent's heap buffer after the child wrote its copy");
    /* Still shared with the peer after the fork. */
    MPI_Sendrecv_replace(again, (int)BIG, MPI_BYTE, peer, 1, peer, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    t_check_fill(again, BIG, 77, "the peer's heap buffer, sent after a fork");

    MPI_Free_mem(am);
    unsigned char *kept = malloc(BIG);
    t_fill(kept, BIG, 99);
    MPI_Finalize();

    /* ---- after MPI_Finalize ---- */
    t_check_fill(kept, BIG, 99, "a heap block after MPI_Finalize");
    t_check_fill(again, BIG, 77, "another heap block after MPI_Finalize");
    memset(kept, 0x42, BIG);
    kept = realloc(kept, 4 * BIG);
    t_check_bytes(kept, BIG, 0x42, "a heap block reallocated after MPI_Finalize");
    free(kept);
    free(again);
    void *post = malloc(BIG);
    if (post == NULL)
        return 1;
    memset(post, 3, BIG);
    free(post);
    printf("rank %d: heap %s, %d blocks in it before it filled\n", t_rank,
           expect_on ? "on" : "off", nheap);
    return 0;
}
