/* vm_scribble: a hostile guest's part in vm.sections. Run as root in a guest that ivc-vm
 * gave the job's write-exclusive sections read-only (--sections N with no --own), it tries
 * to change every peer's section the ways a guest can:
 *   1. a user-space store through the mapping ranks make (resource2 opened read-only,
 *      PROT_READ): must fault (SIGSEGV) in the writer, checked in a child process;
 *   2. what a hostile kernel can do: map the BAR read-write (root may) and store a pattern
 *      ("SCRIBBLE") over every word of every section, pass after pass, for SECONDS while
 *      the job runs in the other guests; QEMU must drop each store (a read-only memory
 *      backend), so that no pass reads its pattern back.
 * Prints "vm_scribble: ok: ..." and exits 0 when both hold; 1 otherwise.
 *
 *   vm_scribble N SECONDS */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BRIDGE "/sys/bus/pci/devices/0000:00:1e.0"
#define PATTERN 0x454c424249524353ull /* "SCRIBBLE" little-endian */

static int bar_of(unsigned k, char *path, size_t n, size_t *size)
{
    DIR *d = opendir(BRIDGE);
    if (d == NULL)
        return -1;
    struct dirent *de;
    int rc = -1;
    while (rc != 0 && (de = readdir(d)) != NULL) {
        unsigned dom, bus, slot, fn;
        struct stat st;
        if (strlen(de->d_name) > 32 ||
            sscanf(de->d_name, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) != 4 || slot != k)
            continue;
        snprintf(path, n, BRIDGE "/%s/resource2", de->d_name);
        if (stat(path, &st) == 0 && st.st_size > 0) {
            *size = (size_t)st.st_size;
            rc = 0;
        }
    }
    closedir(d);
    return rc;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return fprintf(stderr, "usage: vm_scribble N SECONDS\n"), 2;
    unsigned n = (unsigned)atoi(argv[1]);
    double secs = atof(argv[2]);
    char path[64][512];
    size_t size[64];
    volatile uint64_t *rw[64];
    if (n == 0 || n > 32)
        return fprintf(stderr, "vm_scribble: 1..32 sections\n"), 2;
    for (unsigned k = 0; k < n; k++) {
        if (bar_of(k, path[k], sizeof(path[k]), &size[k]) != 0) {
            printf("vm_scribble: FAIL: no section device at slot %u behind " BRIDGE "\n", k);
            return 1;
        }
        /* 1. The ranks' own way in: read-only. A store must kill the storer. */
        pid_t pid = fork();
        if (pid == 0) {
            int fd = open(path[k], O_RDONLY);
            volatile uint64_t *ro =
                fd < 0 ? MAP_FAILED : mmap(NULL, size[k], PROT_READ, MAP_SHARED, fd, 0);
            if (ro == MAP_FAILED)
                _exit(3);
            ro[0] = PATTERN;
            _exit(0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV) {
            printf("vm_scribble: FAIL: a store through section %u's read-only mapping did not "
                   "fault (status 0x%x)\n", k, st);
            return 1;
        }
        /* 2. A hostile kernel's way: the BAR mapped read-write. */
        int fd = open(path[k], O_RDWR);
        rw[k] = fd < 0 ? MAP_FAILED : mmap(NULL, size[k], PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (rw[k] == MAP_FAILED) {
            printf("vm_scribble: FAIL: cannot map section %u read-write as root\n", k);
            return 1;
        }
    }
    printf("vm_scribble: %u sections found, read-only stores fault; scribbling for %.0f s\n", n,
           secs);
    fflush(stdout);
    unsigned long passes = 0, stores = 0, kept = 0;
    double end = now() + secs;
    do {
        for (unsigned k = 0; k < n; k++) {
            size_t words = size[k] / 8;
            /* Every word of the first pages (headers, rings, counters), then one per 64 B. */
            for (size_t i = 0; i < words; i += i < 8192 ? 1 : 8) {
                rw[k][i] = PATTERN;
                stores++;
                kept += rw[k][i] == PATTERN;
            }
        }
        passes++;
    } while (now() < end);
    if (kept != 0) {
        printf("vm_scribble: FAIL: %lu of %lu stores into peers' sections were kept\n", kept,
               stores);
        return 1;
    }
    printf("vm_scribble: ok: %lu passes, %lu stores into %u peers' sections, none kept\n", passes,
           stores, n);
    return 0;
}
