/* Write-exclusive sections (src/region/region_sect.h), as a rank of the job sees them.
 *
 * Mode "check" (every rank): the rank's own section is mapped read-write and every
 * co-located peer's read-only (/proc/self/maps: memfd:ivc-sec-<rank>); no way to write a
 * peer's section works: mprotect to PROT_WRITE is refused, and the section reopened through
 * /proc/self/map_files (root) can be neither mapped writable, written, nor resized; a
 * checked Allreduce and Bcast over the shared-memory areas still give the right data.
 *
 * Mode "scribble" (run with ivcrun --disable-auto-cleanup, MPI_ERRORS_RETURN): rank 1
 * stores into rank 0's collective area, once the areas are in use. The store faults in
 * rank 1 (SIGSEGV: ivcrun's status is 139), nothing of rank 0's changes, and the others
 * find rank 1, and only rank 1, failed: a collective that involves it fails with
 * MPIX_ERR_PROC_FAILED, MPIX_Comm_get_failed names it, and the survivors shrink and go on
 * with a checked Allreduce. Each survivor prints "ft-ok rank R" (tests/mpi/ft/run.sh). */
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
    uintptr_t lo, hi;
    char perms[5];
} sect_t;

static sect_t sects[MAXR];

/* Reads this process's section mappings: sects[k] for rank k, zero where none. */
static void read_maps(void)
{
    memset(sects, 0, sizeof(sects));
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
        int k = atoi(name + strlen("memfd:ivc-sec-"));
        if (k < 0 || k >= MAXR)
            t_fail("a section mapping names rank %d", k);
        if (sects[k].lo != 0)
            t_fail("rank %d's section is mapped twice", k);
        sects[k] = (sect_t){lo, hi, ""};
        memcpy(sects[k].perms, perms, 5);
    }
    fclose(f);
}

/* Every way to write peer k's section fails. */
static void try_write(int k)
{
    sect_t *s = &sects[k];
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

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "check";
    ft_init(&argc, &argv, 60);
    if (t_size < 2 || t_size > MAXR)
        t_skip("needs 2 to 64 ranks");
    checked_collectives(MPI_COMM_WORLD, t_size, 1);
    read_maps();
    for (int k = 0; k < t_size; k++) {
        const char *want = k == t_rank ? "rw-s" : "r--s";
        if (sects[k].lo == 0)
            t_fail("rank %d's section: expected mapped %s, got not mapped (sections off?)", k,
                   want);
        if (strcmp(sects[k].perms, want) != 0)
            t_fail("rank %d's section: expected %s, got %s", k, want, sects[k].perms);
    }
    for (int k = 0; k < t_size; k++)
        if (k != t_rank)
            try_write(k);

    if (strcmp(mode, "scribble") != 0) {
        checked_collectives(MPI_COMM_WORLD, t_size, 2);
        MPI_Finalize();
        return 0;
    }
    if (t_size < 3)
        t_skip("scribble needs at least 3 ranks");
    sect_t *s0 = &sects[0];
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 1) {
        fflush(stdout);
        /* The whole control line of rank 0's area: its first bytes. Faults here. */
        memset((void *)s0->lo, 0x5a, 64);
        t_fail("a store into rank 0's section: expected a fault, got stored");
    }
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
    ft_set_phase("a collective with the writer");
    int cls = ft_class(MPI_Allreduce(MPI_IN_PLACE, &cls, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    /* REVOKED: a faster survivor got here first and revoked the communicator. */
    if (cls != MPIX_ERR_PROC_FAILED && cls != MPIX_ERR_REVOKED)
        t_fail("Allreduce with the faulted writer: expected MPIX_ERR_PROC_FAILED, got %d", cls);
    MPIX_Comm_revoke(MPI_COMM_WORLD);
    /* What the writer aimed at: rank 0's control line must not hold its pattern. */
    if (*(volatile uint64_t *)s0->lo == 0x5a5a5a5a5a5a5a5aull)
        t_fail("rank 0's control line holds the writer's bytes");
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
