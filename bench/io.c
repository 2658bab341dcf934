/*
 * io.c - collective MPI-IO bandwidth over block sizes, any number of ranks.
 *
 *   io -c write|read|write_strided|read_strided [-m [min:]max] [-i scale] [-d DIR]
 *
 * Every rank writes (or reads) its block of SIZE bytes of one shared file with one
 * collective call per iteration:
 *   write, read                  contiguous blocks: MPI_File_write_at_all / read_at_all at
 *                                offset rank * SIZE (each rank's bytes in one piece);
 *   write_strided, read_strided  interleaved: a view whose filetype is 1 KiB of the rank's
 *                                then the other ranks' 1 KiB pieces (a resized contiguous
 *                                type at displacement rank * 1 KiB), MPI_File_write_all /
 *                                read_all: the case collective buffering exists for, where
 *                                an aggregator gathers the pieces into large file requests.
 * The figure is the aggregate bandwidth, nranks * SIZE bytes over the slowest rank's time
 * per call (MB/s, 10^6 bytes), the median of the timed calls. No MPI_File_sync inside the
 * timed loop: the file system's page cache takes the data (the same for every MPI), so the
 * figure is the MPI library's part: data exchange between ranks, aggregation, system calls.
 * The file is DIR/io-bench.<number of rank 0's>.dat (DIR: the working directory by default;
 * it must be one every rank sees), deleted at the end.
 *
 * Validation: after each size, the file is synced and read back (for write) or was written
 * with a known pattern before the timed reads (for read), and every byte each rank read is
 * checked against the pattern of the rank, size and offset that wrote it; a wrong byte
 * prints VALIDATION FAILED and aborts. The last two lines are those of the other benchmarks
 * ("# Validation: OK", "# Payload bytes: ..."; no rank-to-rank payload is counted here).
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include "init.h"
#include "size.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PIECE 1024 /* bytes of one rank's piece in the strided layout */

enum { IO_WRITE, IO_READ, IO_WRITE_STRIDED, IO_READ_STRIDED };
static const char *names[] = {"write", "read", "write_strided", "read_strided"};

static int rank, nranks, mode = -1;
static size_t min_size = 1024, max_size = 16u << 20;
static double scale = 1.0;
static const char *dir = ".";

static void die(const char *what)
{
    fprintf(stderr, "io: FATAL: %s\n", what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static void ok(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING];
        int n = 0;
        MPI_Error_string(rc, s, &n);
        fprintf(stderr, "io: rank %d: %s: %s\n", rank, what, s);
        die(what);
    }
}

/* The byte at position i of the block `owner` writes for `size`. */
static uint8_t pat(size_t i, int owner, size_t size)
{
    uint32_t x = (uint32_t)i * 2654435761u + (uint32_t)owner * 40503u + (uint32_t)size * 97u;
    return (uint8_t)(x >> 24 ^ x >> 8 ^ (uint32_t)owner);
}

static void fill(uint8_t *b, size_t n, int owner, size_t size)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pat(i, owner, size);
}

static void check(const uint8_t *b, size_t n, size_t size)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pat(i, rank, size)) {
            fprintf(stderr, "io: VALIDATION FAILED on rank %d: %s, %zu bytes, byte %zu: got "
                            "0x%02x, expected 0x%02x\n",
                    rank, names[mode], size, i, b[i], pat(i, rank, size));
            die("file data is wrong");
        }
}

static int strided(void)
{
    return mode == IO_WRITE_STRIDED || mode == IO_READ_STRIDED;
}

/* The view of this rank: its strided pieces, or the whole file as bytes. */
static void set_view(MPI_File fh, MPI_Datatype ft)
{
    int st = strided();
    ok(MPI_File_set_view(fh, st ? (MPI_Offset)rank * PIECE : 0, MPI_BYTE, st ? ft : MPI_BYTE,
                         "native", MPI_INFO_NULL),
       "MPI_File_set_view");
}

/* One collective write or read of `size` bytes of this rank's: at offset 0 of its strided
 * view, or at its block of the byte view. */
static void io(MPI_File fh, size_t size, uint8_t *buf, int write)
{
    MPI_Status st;
    int n = (int)size;
    MPI_Offset at = strided() ? 0 : (MPI_Offset)rank * (MPI_Offset)size;
    ok(write ? MPI_File_write_at_all(fh, at, buf, n, MPI_BYTE, &st)
             : MPI_File_read_at_all(fh, at, buf, n, MPI_BYTE, &st),
       "collective I/O");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: io -c write|read|write_strided|read_strided [-m [min:]max] "
                        "[-i scale] [-d DIR]\n");
    MPI_Finalize();
    exit(2);
}

int main(int argc, char **argv)
{
    bench_mpi_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int c;
    while ((c = getopt(argc, argv, "c:m:i:d:")) != -1) {
        if (c == 'c') {
            for (int k = 0; k < 4; k++)
                if (strcmp(optarg, names[k]) == 0)
                    mode = k;
        } else if (c == 'm') {
            char *colon = strchr(optarg, ':');
            if (colon) {
                *colon = '\0';
                if (bench_parse_size(optarg, &min_size) || bench_parse_size(colon + 1, &max_size))
                    usage();
            } else if (bench_parse_size(optarg, &max_size))
                usage();
        } else if (c == 'i')
            scale = atof(optarg);
        else if (c == 'd')
            dir = optarg;
        else
            usage();
    }
    if (mode < 0 || min_size == 0 || min_size > max_size || max_size > (1u << 30))
        usage();
    if (strided() && min_size < PIECE)
        min_size = PIECE;
    int write = mode == IO_WRITE || mode == IO_WRITE_STRIDED;

    char path[4096];
    /* A pid is no name inside a simulated VM (each has its own pid 1, 2 ...): add the time. */
    int id = (int)(((unsigned)getpid() * 7919u + (unsigned)time(NULL)) & 0x7fffffff);
    MPI_Bcast(&id, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof(path), "%s/io-bench.%d.dat", dir, id);
    MPI_File fh;
    ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
       "MPI_File_open");
    MPI_Datatype piece, ft;
    MPI_Type_contiguous(PIECE, MPI_BYTE, &piece);
    MPI_Type_create_resized(piece, 0, (MPI_Aint)PIECE * nranks, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&piece);

    uint8_t *buf = NULL;
    if (posix_memalign((void **)&buf, 4096, max_size) != 0)
        die("out of memory");
    double *times = malloc(sizeof(double) * 1000);
    if (times == NULL)
        die("out of memory");
    if (rank == 0) {
        printf("# IVC benchmark: collective MPI-IO %s, %d ranks, %s layout (%s)\n", names[mode],
               nranks, strided() ? "1 KiB pieces interleaved" : "one block per rank", path);
        printf("# %-10s %14s %14s\n", "size/rank", "MB/s (median)", "MB/s (best)");
        fflush(stdout);
    }
    for (size_t size = min_size; size <= max_size; size *= 2) {
        set_view(fh, ft);
        /* About 64 MiB of traffic per size, 3 to 200 calls, times -i. */
        int iters = (int)((double)(64u << 20) / (double)(size * (size_t)nranks) * scale);
        iters = iters < 3 ? 3 : iters > 200 ? 200 : iters;
        fill(buf, size, rank, size);
        if (!write) { /* the data the timed reads read */
            io(fh, size, buf, 1);
            ok(MPI_File_sync(fh), "MPI_File_sync");
            MPI_Barrier(MPI_COMM_WORLD);
            ok(MPI_File_sync(fh), "MPI_File_sync");
        }
        io(fh, size, buf, write); /* warm-up */
        for (int it = 0; it < iters; it++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            io(fh, size, buf, write);
            double t = MPI_Wtime() - t0, tmax = 0;
            MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            times[it] = tmax;
        }
        /* Validation: what the file holds (write) or what the last read gave (read). */
        if (write) {
            ok(MPI_File_sync(fh), "MPI_File_sync");
            MPI_Barrier(MPI_COMM_WORLD);
            ok(MPI_File_sync(fh), "MPI_File_sync");
            memset(buf, 0xA5, size);
            io(fh, size, buf, 0);
        }
        check(buf, size, size);
        qsort(times, (size_t)iters, sizeof(double), cmp_double);
        double bytes = (double)size * nranks;
        if (rank == 0) {
            printf("%-12zu %14.2f %14.2f\n", size, bytes / times[iters / 2] / 1e6,
                   bytes / times[0] / 1e6);
            fflush(stdout);
        }
        ok(MPI_File_set_size(fh, 0), "MPI_File_set_size");
    }
    MPI_Type_free(&ft);
    ok(MPI_File_close(&fh), "MPI_File_close");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_File_delete(path, MPI_INFO_NULL);
        printf("# Validation: OK\n# Payload bytes: rank0->rank1 0 rank1->rank0 0\n");
        fflush(stdout);
    }
    free(times);
    free(buf);
    MPI_Finalize();
    return 0;
}
