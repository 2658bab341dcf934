/* Write-exclusive sections (src/region/region_sect.h), as a rank of the job sees them.
 *
 * Mode "check" (every rank): the rank's own section is mapped read-write and every
 * co-located peer's read-only (/proc/self/maps: memfd:ivc-sec-<rank>); of the parts private
 * to a pair (memfd:ivc-sec-<owner>-to-<reader>: the owner's channel slot for the reader)
 * it maps its own ones read-write, the ones its peers made for it read-only, and none made
 * for a third rank (no rank reads the messages of a pair it is not in); no way to write a
 * peer's section or part works: mprotect to PROT_WRITE is refused, and the memory reopened
 * through /proc/self/map_files (root) can be neither mapped writable, written, nor
 * resized; a checked ring exchange (through the private parts), Allreduce and Bcast (through
 * the collective areas) still give the right data.
 *
 * Mode "scribble [SEED]" (run with ivcrun --disable-auto-cleanup, MPI_ERRORS_RETURN):
 * rank 1 stores into a peer's section while the others wait for it in a collective. The
 * seed picks the peer and the place: 0 (the default) the first line of rank 0's section
 * (its channel block's header), else any byte of the peer's section (its channel block,
 * its slots private to other pairs, its collective area). The store faults in rank 1
 * (SIGSEGV: ivcrun's status is 139; 1 under AddressSanitizer, which catches the signal), nothing of the peer's changes, and the others find
 * rank 1, and only rank 1, failed: the collective fails with MPIX_ERR_PROC_FAILED,
 * MPIX_Comm_get_failed names it, and the survivors shrink and go on with a checked
 * Allreduce. Each survivor prints "ft-ok rank R" (tests/mpi/ft/run.sh). */
#define _GNU_SOURCE
#include "../mpi/ft/ft_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAXR 64

typedef struct sect {
    uintptr_t lo, hi; /* a piece of the mapping (the first one seen) */
    char perms[5];
} sect_t;

static sect_t sects[MAXR];        /* rank k's section (its public file) */
static uintptr_t span_lo[MAXR], span_hi[MAXR]; /* every mapping of rank k's section */
static sect_t parts[MAXR][MAXR];  /* parts[k][j]: k's part private to j */

/* Reads this process's section mappings; zero where none. A section's public file shows as
 * several pieces around the private parts mapped over it: the first piece stands for it. */
static void read_maps(void)
{
    memset(sects, 0, sizeof(sects));
    memset(parts, 0, sizeof(parts));
    memset(span_lo, 0, sizeof(span_lo));
    memset(span_hi, 0, sizeof(span_hi));
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL)
        t_fail("cannot read /proc/self/maps: %s", strerror(errno));
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        char perms[5];
        const char *name = strstr(line, "memfd:ivc-sec-");
        if (name == NULL || sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) != 3)
            continue;
        int k = -1, j = -1;
        if (sscanf(name, "memfd:ivc-sec-%d-to-%d", &k, &j) < 1 || k < 0 || k >= MAXR ||
            j >= MAXR)
            t_fail("a section mapping names rank %d (%d)", k, j);
        if (span_lo[k] == 0 || lo < span_lo[k])
            span_lo[k] = lo;
        if (hi > span_hi[k])
            span_hi[k] = hi;
        sect_t *s = j >= 0 ? &parts[k][j] : &sects[k];
        if (j >= 0 && s->lo != 0)
            t_fail("rank %d's part for rank %d is mapped twice", k, j);
        if (s->lo == 0) {
            *s = (sect_t){lo, hi, ""};
            memcpy(s->perms, perms, 5);
        } else if (strcmp(s->perms, perms) != 0) {
            t_fail("rank %d's section is mapped %s and %s", k, s->perms, perms);
        }
    }
    fclose(f);
}

/* Every way to write s (a peer's section or part) fails. */
static void try_write(const sect_t *s, int k)
{
    size_t len = s->hi - s->lo;
    if (mprotect((void *)s->lo, len, PROT_READ | PROT_WRITE) == 0)
        t_fail("mprotect(PROT_WRITE) of rank %d's section: expected refused, got allowed", k);
    char path[128];
    snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", (unsigned long)s->lo,
             (unsigned long)s->hi);
    int fd = open(path, O_RDWR);
    if (fd < 0) {
        /* Without the privilege to open map_files there is nothing more to try. */
        if (errno != EPERM && errno != EACCES)
            t_fail("open %s: %s", path, strerror(errno));
        return;
    }
    void *w = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (w != MAP_FAILED)
        t_fail("a writable mapping of rank %d's section reopened read-write: expected "
               "refused, got one",
               k);
    char b = 1;
    if (pwrite(fd, &b, 1, 0) >= 0)
        t_fail("write(2) into rank %d's section: expected refused, got written", k);
    if (ftruncate(fd, 0) == 0)
        t_fail("ftruncate of rank %d's section: expected refused, got done", k);
    close(fd);
}

static void checked_collectives(MPI_Comm comm, int nranks, int tag)
{
    enum { N = 4096 };
    static int in[N], out[N], bc[N];
    int me;
    MPI_Comm_rank(comm, &me);
    for (int i = 0; i < N; i++)
        in[i] = i * 7 + me + tag;
    int rc = MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, comm);
    if (rc != MPI_SUCCESS)
        t_fail("Allreduce: expected MPI_SUCCESS, got %d", rc);
    for (int i = 0; i < N; i++) {
        int want = nranks * (i * 7 + tag) + nranks * (nranks - 1) / 2;
        if (out[i] != want)
            t_fail("Allreduce element %d: expected %d, got %d", i, want, out[i]);
    }
    for (int i = 0; i < N; i++)
        bc[i] = me == 0 ? i ^ tag : -1;
    if ((rc = MPI_Bcast(bc, N, MPI_INT, 0, comm)) != MPI_SUCCESS)
        t_fail("Bcast: expected MPI_SUCCESS, got %d", rc);
    for (int i = 0; i < N; i++)
        if (bc[i] != (i ^ tag))
            t_fail("Bcast element %d: expected %d, got %d", i, i ^ tag, bc[i]);
}

/* Every rank sends 200 KB (rendezvous through the pipeline) and 100 B (eager) to the next
 * and receives from the previous: the pairs' private parts carry them. */
static void checked_ring(void)
{
    enum { BIG = 200000 };
    static unsigned char out[BIG], in[BIG];
    int next = (t_rank + 1) % t_size, prev = (t_rank + t_size - 1) % t_size;
    for (int n = 100; n <= BIG; n = n == 100 ? BIG : BIG + 1) {
        for (int i = 0; i < n; i++)
            out[i] = (unsigned char)(i * 13 + t_rank);
        memset(in, 0, (size_t)n);
        MPI_Sendrecv(out, n, MPI_BYTE, next, 7, in, n, MPI_BYTE, prev, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++)
            if (in[i] != (unsigned char)(i * 13 + prev))
                t_fail("ring %d B byte %d: expected %u, got %u", n, i,
                       (unsigned)(unsigned char)(i * 13 + prev), (unsigned)in[i]);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "check";
    ft_init(&argc, &argv, 60);
    if (t_size < 2 || t_size > MAXR)
        t_skip("needs 2 to 64 ranks");
    checked_collectives(MPI_COMM_WORLD, t_size, 1);
    checked_ring();
    read_maps();
    for (int k = 0; k < t_size; k++) {
        const char *want = k == t_rank ? "rw-s" : "r--s";
        if (sects[k].lo == 0)
            t_fail("rank %d's section: expected mapped %s, got not mapped (sections off?)", k,
                   want);
        if (strcmp(sects[k].perms, want) != 0)
            t_fail("rank %d's section: expected %s, got %s", k, want, sects[k].perms);
        for (int j = 0; j < t_size; j++) {
            const sect_t *p = &parts[k][j];
            if (k == j)
                continue;
            if (k != t_rank && j != t_rank && p->lo != 0)
                t_fail("rank %d's part for rank %d: expected not mapped here, got %s", k, j,
                       p->perms);
            if ((k == t_rank || j == t_rank) && p->lo == 0)
                t_fail("rank %d's part for rank %d: expected mapped, got not mapped", k, j);
            if (k == t_rank && strcmp(p->perms, "rw-s") != 0)
                t_fail("own part for rank %d: expected rw-s, got %s", j, p->perms);
            if (j == t_rank && strcmp(p->perms, "r--s") != 0)
                t_fail("rank %d's part for this rank: expected r--s, got %s", k, p->perms);
        }
    }
    for (int k = 0; k < t_size; k++)
        if (k != t_rank) {
            try_write(&sects[k], k);
            try_write(&parts[k][t_rank], k);
        }

    if (strcmp(mode, "scribble") != 0) {
        checked_collectives(MPI_COMM_WORLD, t_size, 2);
        MPI_Finalize();
        return 0;
    }
    if (t_size < 3)
        t_skip("scribble needs at least 3 ranks");
    unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 0;
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    x ^= x >> 29;
    int victim = seed == 0 ? 0 : (int)(x % (uint64_t)(t_size - 1));
    if (victim >= 1)
        victim++; /* any rank but the writer */
    /* A byte of a mapping of the victim's section (the spans are whole pages of mappings
     * of it: read-only here, every one). */
    uintptr_t at = seed == 0 ? sects[0].lo
                             : span_lo[victim] + (uintptr_t)((x >> 17) % (span_hi[victim] -
                                                                          span_lo[victim]));
    uint8_t before = *(volatile uint8_t *)at;
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 1) {
        fflush(stdout);
        usleep(20000); /* the others are waiting in the Allreduce below */
        *(volatile uint8_t *)at = (uint8_t)(before ^ 0x5a); /* faults here */
        t_fail("a store into rank %d's section: expected a fault, got stored", victim);
    }
    /* Waiting for the writer in a collective (an 8 KiB one: through the areas). */
    ft_set_phase("a collective with the writer");
    static int vec[2048];
    int cls = ft_class(MPI_Allreduce(MPI_IN_PLACE, vec, 2048, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    /* REVOKED: a faster survivor got here first and revoked the communicator. */
    if (cls != MPIX_ERR_PROC_FAILED && cls != MPIX_ERR_REVOKED)
        t_fail("Allreduce with the faulted writer: expected MPIX_ERR_PROC_FAILED, got %d", cls);
    MPIX_Comm_revoke(MPI_COMM_WORLD);
    ft_set_phase("the writer's failure becomes known");
    ft_wait_failed(MPI_COMM_WORLD, 1);
    MPI_Group failed, wg;
    MPIX_Comm_get_failed(MPI_COMM_WORLD, &failed);
    int nf = 0, who = -1, zero = 0;
    MPI_Group_size(failed, &nf);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    if (nf >= 1)
        MPI_Group_translate_ranks(failed, 1, &zero, wg, &who);
    if (nf != 1 || who != 1)
        t_fail("failed ranks: expected rank 1 alone, got %d rank(s), the first %d", nf, who);
    MPI_Group_free(&failed);
    MPI_Group_free(&wg);
    /* What the writer aimed at, as the victim sees it: not the writer's byte (the victim
     * may have written it itself meanwhile, but never to that value by chance alone: the
     * first line of a section is written once). */
    if (t_rank == victim && seed == 0 && *(volatile uint8_t *)at == (uint8_t)(before ^ 0x5a))
        t_fail("rank %d's section holds the writer's byte", victim);
    MPI_Comm shrunk;
    ft_set_phase("shrink");
    if (MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk) != MPI_SUCCESS)
        t_fail("MPIX_Comm_shrink failed");
    MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
    int n;
    MPI_Comm_size(shrunk, &n);
    if (n != t_size - 1)
        t_fail("shrunk size: expected %d, got %d", t_size - 1, n);
    checked_collectives(shrunk, n, 3);
    printf("ft-ok rank %d\n", t_rank);
    fflush(stdout);
    MPI_Comm_free(&shrunk);
    MPI_Finalize();
    return 0;
}
