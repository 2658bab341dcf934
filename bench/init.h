/*
 * init.h - how every IVC benchmark starts MPI (bench/common.h's and bench/coll.c).
 *
 * MPI_Init, or MPI_Init_thread(MPI_THREAD_MULTIPLE) when BENCH_THREAD_MULTIPLE=1 is in the
 * environment (set on every rank: the cost of the thread-safe library in one thread).
 */
#ifndef IVC_BENCH_INIT_H
#define IVC_BENCH_INIT_H

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static void bench_mpi_init(int *argc, char ***argv)
{
    const char *mt = getenv("BENCH_THREAD_MULTIPLE");
    int provided;
    if (mt != NULL && strcmp(mt, "1") == 0)
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(argc, argv);
}

#endif
