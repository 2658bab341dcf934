/* MPI_Fetch_and_op with MPI_SUM on MPI_CHAR (and MPI_INT, MPI_DOUBLE) under passive-target
 * synchronization, on every kind of window, in the patterns of outside test suites: a
 * counter at one rank incremented by everyone under shared locks with flushes (every fetched
 * value distinct, the total exact), neighbour updates under exclusive locks, all-to-all under
 * Win_lock_all with a flush after each operation (the fetched value at iteration i is i times
 * the origin's rank), and fetches into MPI_Alloc_mem memory. Optional argument: iterations. */
#include "t_win.h"

#define MAXITER 100

static int iters = 20;

/* One pattern on one type: T the C type, DT its datatype. */
#define PATTERNS(FN, T, DT)                                                                        \
    static void FN(twin_t *w)                                                                      \
    {                                                                                              \
        char what[160];                                                                            \
        int me = w->rank, n = w->size;                                                             \
        T *val = (T *)w->base, *res;                                                               \
        CHECK_MPI(MPI_Alloc_mem((MPI_Aint)(n + 1) * (MPI_Aint)sizeof(T), MPI_INFO_NULL, &res));    \
        /* Counter at rank 0: initial 20, every rank adds 1 `iters` times. */                      \
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w->win);                                           \
        for (int i = 0; i <= n; i++)                                                               \
            val[i] = me == 0 && i == 0 ? (T)20 : (T)0;                                             \
        MPI_Win_unlock(me, w->win);                                                                \
        MPI_Barrier(w->comm);                                                                      \
        int seen[MAXITER * 16 + 32] = {0};                                                         \
        for (int i = 0; i < iters; i++) {                                                          \
            T one = 1;                                                                             \
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win));                                \
            CHECK_MPI(MPI_Fetch_and_op(&one, &res[0], DT, 0, twin_disp(w, 0, 0), MPI_SUM,          \
                                       w->win));                                                   \
            CHECK_MPI(MPI_Win_flush(0, w->win));                                                   \
            int v = (int)res[0] - 20;                                                              \
            CHECK_TRUE(v >= 0 && v < iters * n,                                                    \
                       t_fmt(what, sizeof what, "%s %s counter: fetched %d in range",              \
                             k_name[w->kind], #DT, v + 20));                                       \
            seen[v] = 1;                                                                           \
            CHECK_MPI(MPI_Win_unlock(0, w->win));                                                  \
        }                                                                                          \
        int all[MAXITER * 16 + 32];                                                                \
        CHECK_MPI(MPI_Allreduce(seen, all, iters * n, MPI_INT, MPI_SUM, w->comm));                 \
        for (int v = 0; v < iters * n; v++)                                                        \
            CHECK_INT(1, all[v], t_fmt(what, sizeof what, "%s %s counter: origins that fetched %d", \
                                       k_name[w->kind], #DT, v + 20));                             \
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w->win);                                           \
        if (me == 0)                                                                               \
            CHECK_INT(20 + iters * n, (int)val[0],                                                 \
                      t_fmt(what, sizeof what, "%s %s counter total", k_name[w->kind], #DT));      \
        val[0] = 0;                                                                                \
        MPI_Win_unlock(me, w->win);                                                                \
        MPI_Barrier(w->comm);                                                                      \
        /* Neighbour: each rank adds its rank to the next one's element 0, exclusively. */         \
        for (int i = 0; i < iters; i++) {                                                          \
            T mine = (T)me, r = (T)-1;                                                             \
            int nb = (me + 1) % n;                                                                 \
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, nb, 0, w->win));                            \
            CHECK_MPI(MPI_Fetch_and_op(&mine, &r, DT, nb, twin_disp(w, nb, 0), MPI_SUM, w->win));  \
            CHECK_MPI(MPI_Win_unlock(nb, w->win));                                                 \
            CHECK_INT(i * me, (int)r, t_fmt(what, sizeof what, "%s %s neighbour: fetched at %d",   \
                                            k_name[w->kind], #DT, i));                             \
        }                                                                                          \
        MPI_Barrier(w->comm);                                                                      \
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w->win);                                           \
        CHECK_INT(iters * ((me + n - 1) % n), (int)val[0],                                         \
                  t_fmt(what, sizeof what, "%s %s neighbour total", k_name[w->kind], #DT));        \
        for (int i = 0; i <= n; i++)                                                               \
            val[i] = 0;                                                                            \
        MPI_Win_unlock(me, w->win);                                                                \
        MPI_Barrier(w->comm);                                                                      \
        /* All-to-all: lock_all, a flush after each operation. */                                  \
        for (int i = 0; i < iters; i++) {                                                          \
            T mine = (T)me;                                                                        \
            CHECK_MPI(MPI_Win_lock_all(0, w->win));                                                \
            for (int j = 0; j < n; j++) {                                                          \
                CHECK_MPI(MPI_Fetch_and_op(&mine, &res[j], DT, j,                                  \
                                           twin_disp(w, j, (MPI_Aint)(me * sizeof(T))), MPI_SUM,   \
                                           w->win));                                               \
                CHECK_MPI(MPI_Win_flush(j, w->win));                                               \
            }                                                                                      \
            CHECK_MPI(MPI_Win_unlock_all(w->win));                                                 \
            MPI_Barrier(w->comm);                                                                  \
            for (int j = 0; j < n; j++)                                                            \
                CHECK_INT(i * me, (int)res[j],                                                     \
                          t_fmt(what, sizeof what, "%s %s all-to-all: fetched from %d at %d",      \
                                k_name[w->kind], #DT, j, i));                                      \
        }                                                                                          \
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w->win);                                           \
        for (int j = 0; j < n; j++)                                                                \
            CHECK_INT(iters * j, (int)val[j],                                                      \
                      t_fmt(what, sizeof what, "%s %s all-to-all total of %d", k_name[w->kind],    \
                            #DT, j));                                                              \
        MPI_Win_unlock(me, w->win);                                                                \
        MPI_Barrier(w->comm);                                                                      \
        MPI_Free_mem(res);                                                                         \
    }

PATTERNS(run_char, char, MPI_CHAR)
PATTERNS(run_int, int, MPI_INT)
PATTERNS(run_double, double, MPI_DOUBLE)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    if (argc > 1)
        iters = atoi(argv[1]);
    if (iters < 1 || iters > MAXITER)
        iters = 20;
    if (t_size > 16 || (t_size - 1) * iters > 127)
        t_skip("char sums would overflow with this many ranks and iterations");
    for (int kind = 0; kind < K_COUNT; kind++) {
        twin_t w;
        twin_make(&w, kind, 17 * sizeof(double), MPI_INFO_NULL);
        run_char(&w);
        run_int(&w);
        run_double(&w);
        twin_free(&w);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("fop_char: OK\n");
    MPI_Finalize();
    return 0;
}
