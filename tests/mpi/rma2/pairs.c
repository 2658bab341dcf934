/* MPI_MAXLOC / MPI_MINLOC one-sided on the pair types whose C struct has padding or whose
 * index does not follow the value (MPI_SHORT_INT, MPI_DOUBLE_INT, MPI_LONG_DOUBLE_INT), on
 * every kind of window: Accumulate from every rank into a strided (vector) target layout
 * (the structs in the gaps stay untouched), Get_accumulate into a strided result layout
 * (fetched values are the initial ones, gaps untouched), Fetch_and_op MAXLOC on a shared
 * element (final: the largest value; every fetched value the initial one or another
 * origin's). Before the fix
 * such accumulates changed nothing and returned success. Also MPI_ERR_OP for MPI_SUM on a
 * pair type. */
#include "t_win.h"

typedef struct {
    short v;
    int i;
} si_t;
typedef struct {
    double v;
    int i;
} di_t;
typedef struct {
    long double v;
    int i;
} ldi_t;

enum { OFF_SI = 0, OFF_DI = 64, OFF_LDI = 576, BYTES = 640 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    char what[160];
    MPI_Datatype vsi, vdi;
    CHECK_MPI(MPI_Type_vector(4, 1, 2, MPI_SHORT_INT, &vsi));
    CHECK_MPI(MPI_Type_commit(&vsi));
    CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_DOUBLE_INT, &vdi));
    CHECK_MPI(MPI_Type_commit(&vdi));
    for (int kind = 0; kind < K_COUNT; kind++) {
        twin_t w;
        twin_make(&w, kind, BYTES, MPI_INFO_NULL);
        int me = w.rank, n = w.size;
        if (n > 16)
            t_skip("at most 16 ranks per window");
        si_t *si = (si_t *)(w.base + OFF_SI);
        di_t *di = (di_t *)(w.base + OFF_DI);
        ldi_t *ldi = (ldi_t *)(w.base + OFF_LDI);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w.win);
        for (int k = 0; k < 8; k++)
            si[k] = k % 2 ? (si_t){-7, -7} : (si_t){1, 100 + k};
        for (int r = 0; r < n; r++)
            for (int k = 0; k < 2; k++)
                di[r * 2 + k] = (di_t){10, 50 + k};
        *ldi = (ldi_t){-1, 99};
        MPI_Win_unlock(me, w.win);
        MPI_Barrier(w.comm);

        ldi_t fetched[16];
        di_t res[16][4];
        for (int j = 0; j < n; j++) {
            int t = (me + j) % n;
            si_t s[4];
            di_t d[2];
            for (int k = 0; k < 4; k++)
                s[k] = (si_t){(short)((me * 3 + k) % 4), me * 10 + k};
            for (int k = 0; k < 2; k++)
                d[k] = (di_t){me + k * 0.5, me};
            for (int k = 0; k < 4; k++)
                res[t][k] = (di_t){-5, -5};
            ldi_t l = {me, me};
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w.win));
            CHECK_MPI(MPI_Accumulate(s, 4, MPI_SHORT_INT, t, twin_disp(&w, t, OFF_SI), 1, vsi,
                                     MPI_MAXLOC, w.win));
            CHECK_MPI(MPI_Get_accumulate(d, 2, MPI_DOUBLE_INT, res[t], 1, vdi, t,
                                         twin_disp(&w, t, OFF_DI + me * 2 * sizeof(di_t)), 2,
                                         MPI_DOUBLE_INT, MPI_MINLOC, w.win));
            CHECK_MPI(MPI_Win_flush(t, w.win));
            CHECK_MPI(MPI_Fetch_and_op(&l, &fetched[t], MPI_LONG_DOUBLE_INT, t,
                                       twin_disp(&w, t, OFF_LDI), MPI_MAXLOC, w.win));
            CHECK_MPI(MPI_Win_unlock(t, w.win));
        }
        for (int t = 0; t < n; t++) {
            for (int k = 0; k < 4; k++) {
                di_t want = k % 2 ? (di_t){-5, -5} : (di_t){10, 50 + k / 2};
                CHECK_TRUE(res[t][k].v == want.v && res[t][k].i == want.i,
                           t_fmt(what, sizeof what, "%s: Get_accumulate MINLOC DOUBLE_INT fetched "
                                 "from %d into a strided result, element %d: (%g, %d)",
                                 k_name[kind], t, k, res[t][k].v, res[t][k].i));
            }
            long double fv = fetched[t].v;
            CHECK_TRUE((fv == -1 && fetched[t].i == 99) ||
                           (fv >= 0 && fv < n && fv != me && fetched[t].i == (int)fv),
                       t_fmt(what, sizeof what, "%s: Fetch_and_op MAXLOC LONG_DOUBLE_INT fetched "
                             "from %d: (%Lg, %d)", k_name[kind], t, fv, fetched[t].i));
        }
        MPI_Barrier(w.comm);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w.win);
        for (int k = 0; k < 8; k++) {
            si_t want = {-7, -7};
            if (k % 2 == 0) {
                want = (si_t){1, 100 + k};
                for (int r = 0; r < n; r++) {
                    si_t c = {(short)((r * 3 + k / 2) % 4), r * 10 + k / 2};
                    if (c.v > want.v || (c.v == want.v && c.i < want.i))
                        want = c;
                }
            }
            CHECK_TRUE(si[k].v == want.v && si[k].i == want.i,
                       t_fmt(what, sizeof what, "%s: Accumulate MAXLOC SHORT_INT through a vector,"
                             " struct %d: expected (%d, %d), got (%d, %d)", k_name[kind], k,
                             want.v, want.i, si[k].v, si[k].i));
        }
        for (int r = 0; r < n; r++)
            for (int k = 0; k < 2; k++)
                CHECK_TRUE(di[r * 2 + k].v == r + k * 0.5 && di[r * 2 + k].i == r,
                           t_fmt(what, sizeof what, "%s: Get_accumulate MINLOC DOUBLE_INT by %d, "
                                 "element %d", k_name[kind], r, k));
        CHECK_TRUE(ldi->v == n - 1 && ldi->i == n - 1,
                   t_fmt(what, sizeof what, "%s: Fetch_and_op MAXLOC LONG_DOUBLE_INT total",
                         k_name[kind]));
        MPI_Win_unlock(me, w.win);

        CHECK_MPI(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
        di_t d = {1, 1};
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w.win));
        CHECK_CLASS(MPI_ERR_OP, MPI_Accumulate(&d, 1, MPI_DOUBLE_INT, me, twin_disp(&w, me, OFF_DI),
                                               1, MPI_DOUBLE_INT, MPI_SUM, w.win),
                    "Accumulate SUM on DOUBLE_INT");
        CHECK_MPI(MPI_Win_unlock(me, w.win));
        twin_free(&w);
    }
    MPI_Type_free(&vsi);
    MPI_Type_free(&vdi);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("pairs: OK\n");
    MPI_Finalize();
    return 0;
}
