/* Helpers of the ABI tests: these programs are compiled with Debian's mpicc.mpich against
 * MPICH's mpi.h, or with IVC's `mpicc -mpi-abi` against the MPI-5 standard ABI's mpi_abi.h,
 * so they use nothing of IVC's own headers. A failed check prints what was expected and what
 * came, then aborts the job (exit 1). */
#ifndef ABI_TEST_H
#define ABI_TEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int abi_rank_;

/* A value each ABI fixes, checked as a number: MPI_ERR_TRUNCATE. */
#ifdef MPI_ABI_VERSION
#define ABI_TEST_ERR_TRUNCATE 15 /* the MPI-5.0 standard ABI */
#else
#define ABI_TEST_ERR_TRUNCATE 14 /* MPICH's */
#endif

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL rank %d %s:%d: %s: ", abi_rank_, __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            fflush(stderr);                                                                        \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CHECK_INT(got, want)                                                                       \
    do {                                                                                           \
        long long g_ = (long long)(got), w_ = (long long)(want);                                   \
        CHECK(g_ == w_, "expected %lld, got %lld", w_, g_);                                        \
    } while (0)
#define OK(call) CHECK_INT((call), MPI_SUCCESS)

static void abi_test_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &abi_rank_);
    /* The program was built for MPICH or the standard ABI: its library must be IVC's. */
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    CHECK(len > 3 && lib[0] == 'I' && lib[1] == 'V' && lib[2] == 'C', "library version: %s", lib);
}

static void abi_test_done(const char *name)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (abi_rank_ == 0)
        printf("%s ok\n", name);
    MPI_Finalize();
}

#endif
