/* romap: what reading a peer's memory through a read-only mapping costs, per exchange.
 *
 * IVC maps every other rank's section of the region read-only (write-exclusive sections:
 * src/region/region_sect.c), where MPICH and Open MPI map their shared segments read-write
 * in every process. This program measures the difference on the machine it runs on, with
 * no MPI and no IVC: two processes (fork) exchange n bytes at a time the way two ranks do
 * in IVC's collective areas (Allgather of 2 ranks: each writes its bank, then reads the
 * other's; 8 banks 16 KiB apart, tag at byte 0, acknowledgement at 16, data from 32; a
 * full fence after each of the two stores, as IVC's doorbell check makes),
 * through two memory files, each written only by its owner. The peer's file is mapped
 * read-only ("ro", as IVC does) or read-write ("rw", never written through); both modes
 * alternate within every round and the best time per exchange of all rounds is printed.
 *
 *     cc -O2 -o romap bench/romap.c && ./romap [-n iters] [-r rounds] [size ...]
 *
 * Default sizes 8 16 32 64 128 256 bytes, 200000 exchanges, 5 rounds. Processes are not
 * pinned (ivcrun does not pin ranks). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BANKS    8
#define BANK     16384
#define AREA     (BANKS * BANK)
#define DATA_OFF 32
#define MAX_SIZE 1024

static int iters = 200000;

static _Atomic uint64_t *word(uint8_t *area, int b, int off)
{
    return (_Atomic uint64_t *)(area + (size_t)b * BANK + off);
}

/* One side: publish k in bank k % BANKS of `mine`, read the same from `theirs`. */
static void exchange(uint8_t *mine, uint8_t *theirs, size_t n)
{
    uint8_t src[MAX_SIZE], dst[MAX_SIZE];
    memset(src, 0x5a, sizeof src);
    for (uint64_t k = 1; k <= (uint64_t)iters; k++) {
        int b = (int)(k % BANKS);
        /* The bank is ours again once the peer acknowledged what we wrote there last. */
        if (k > BANKS)
            while (atomic_load_explicit(word(theirs, b, 16), memory_order_acquire) != k - BANKS)
                ;
        memcpy(mine + (size_t)b * BANK + DATA_OFF, src, n);
        atomic_store_explicit(word(mine, b, 0), k, memory_order_release);
        atomic_thread_fence(memory_order_seq_cst); /* as IVC's doorbell check (door.h) */
        while (atomic_load_explicit(word(theirs, b, 0), memory_order_acquire) != k)
            ;
        memcpy(dst, theirs + (size_t)b * BANK + DATA_OFF, n);
        atomic_store_explicit(word(mine, b, 16), k, memory_order_release);
        atomic_thread_fence(memory_order_seq_cst);
    }
    if (n > 0 && dst[0] != 0x5a) {
        fprintf(stderr, "romap: wrong data\n");
        exit(1);
    }
}

static uint8_t *map(int fd, int prot)
{
    uint8_t *p = mmap(NULL, AREA, prot, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        perror("romap: mmap");
        exit(1);
    }
    return p;
}

/* Microseconds per exchange, with the peer's file mapped read-only or not. */
static double run(size_t n, int ro)
{
    int fd[2];
    for (int i = 0; i < 2; i++) {
        fd[i] = memfd_create("romap", MFD_CLOEXEC);
        if (fd[i] < 0 || ftruncate(fd[i], AREA) != 0) {
            perror("romap: memfd");
            exit(1);
        }
    }
    int peer_prot = ro ? PROT_READ : PROT_READ | PROT_WRITE;
    struct timespec t0, t1;
    pid_t child = fork();
    if (child < 0) {
        perror("romap: fork");
        exit(1);
    }
    int me = child == 0;
    /* Each process maps its own file read-write and the other's as the mode says. */
    uint8_t *mine = map(fd[me], PROT_READ | PROT_WRITE), *theirs = map(fd[!me], peer_prot);
    /* Timed from when both have mapped (word 8 of bank 0: ready) to the parent's last read. */
    atomic_store_explicit(word(mine, 0, 8), 1, memory_order_release);
    while (atomic_load_explicit(word(theirs, 0, 8), memory_order_acquire) != 1)
        ;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    exchange(mine, theirs, n);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (me)
        _exit(0);
    int st;
    if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "romap: the other process failed\n");
        exit(1);
    }
    munmap(mine, AREA);
    munmap(theirs, AREA);
    close(fd[0]);
    close(fd[1]);
    return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / iters;
}

int main(int argc, char **argv)
{
    int rounds = 5, c;
    while ((c = getopt(argc, argv, "n:r:h")) != -1) {
        if (c == 'n')
            iters = atoi(optarg);
        else if (c == 'r')
            rounds = atoi(optarg);
        else {
            fprintf(stderr, "usage: %s [-n iters] [-r rounds] [size ...] (sizes up to %d)\n",
                    argv[0], MAX_SIZE);
            return c == 'h' ? 0 : 2;
        }
    }
    static const size_t defaults[] = {8, 16, 32, 64, 128, 256};
    size_t sizes[64], ns = 0;
    for (int i = optind; i < argc && ns < 64; i++)
        sizes[ns++] = (size_t)atoi(argv[i]);
    if (ns == 0)
        for (ns = 0; ns < sizeof defaults / sizeof defaults[0]; ns++)
            sizes[ns] = defaults[ns];
    for (size_t i = 0; i < ns; i++)
        if (sizes[i] > MAX_SIZE || iters < 1 || rounds < 1) {
            fprintf(stderr, "romap: sizes up to %d, at least 1 exchange and 1 round\n", MAX_SIZE);
            return 2;
        }
    double best[64][2];
    for (size_t i = 0; i < ns; i++)
        best[i][0] = best[i][1] = 1e30;
    for (int r = 0; r < rounds; r++)
        for (size_t i = 0; i < ns; i++)
            for (int ro = 0; ro < 2; ro++) {
                double t = run(sizes[i], (r + ro) % 2); /* alternate which mode goes first */
                int m = (r + ro) % 2;
                if (t < best[i][m])
                    best[i][m] = t;
            }
    printf("# romap: us per exchange, peer's memory read-only (as IVC) or read-write; best of "
           "%d rounds x %d exchanges\n",
           rounds, iters);
    printf("# %-6s %10s %10s %8s\n", "Size", "ro", "rw", "ro/rw");
    for (size_t i = 0; i < ns; i++)
        printf("%-8zu %10.3f %10.3f %8.2f\n", sizes[i], best[i][1], best[i][0],
               best[i][1] / best[i][0]);
    return 0;
}
