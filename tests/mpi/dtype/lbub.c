/* dtype_lbub: MPI_LB and MPI_UB, the bound markers MPI-3.0 removed that old codes (and
 * MPICH's datatype/lbub_oldapi, struct_no_real_types, typename_oldapi and the Fortran
 * allctypesf) still use. Rank 0 alone (local calls) plus one exchange with rank 1:
 *  - their names are MPI_LB and MPI_UB, their size and extent 0;
 *  - a struct {MPI_LB at -4, 1 int at 0, MPI_UB at 16}: size 4, lb -4, extent 20, true lb
 *    0, true extent 4 (Type_get_extent, Type_lb, Type_ub, Type_extent, Type_size);
 *  - two of them sent from an array of 10 ints (ints 0 and 5 move) and received packed
 *    into 2 ints: the values arrive;
 *  - markers only (MPI_LB at 8, MPI_UB at 40): size 0, lb 8, extent 32;
 *  - several markers: the lowest MPI_LB and the highest MPI_UB count;
 *  - an MPI_UB alone sets the upper bound (no alignment padding added).
 */
#include "../t_util.h"

static void bounds(MPI_Datatype t, MPI_Aint lb, MPI_Aint extent, int size, const char *what)
{
    MPI_Aint l, e, x;
    int s;
    char w[160];
    CHECK_MPI(MPI_Type_get_extent(t, &l, &e));
    CHECK_MPI(MPI_Type_size(t, &s));
    CHECK_INT((long)lb, (long)l, t_fmt(w, sizeof w, "%s: lb", what));
    CHECK_INT((long)extent, (long)e, t_fmt(w, sizeof w, "%s: extent", what));
    CHECK_INT(size, s, t_fmt(w, sizeof w, "%s: size", what));
    CHECK_MPI(MPI_Type_lb(t, &x));
    CHECK_INT((long)lb, (long)x, t_fmt(w, sizeof w, "%s: Type_lb", what));
    CHECK_MPI(MPI_Type_ub(t, &x));
    CHECK_INT((long)(lb + extent), (long)x, t_fmt(w, sizeof w, "%s: Type_ub", what));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK_MPI(MPI_Type_get_name(MPI_LB, name, &len));
    CHECK_TRUE(strcmp(name, "MPI_LB") == 0, "MPI_LB's name");
    CHECK_MPI(MPI_Type_get_name(MPI_UB, name, &len));
    CHECK_TRUE(strcmp(name, "MPI_UB") == 0, "MPI_UB's name");
    bounds(MPI_LB, 0, 0, 0, "MPI_LB");
    bounds(MPI_UB, 0, 0, 0, "MPI_UB");

    int bl[3] = {1, 1, 1};
    MPI_Aint d[3] = {-4, 0, 16};
    MPI_Datatype ty[3] = {MPI_LB, MPI_INT, MPI_UB}, s1, s2, s3, s4;
    CHECK_MPI(MPI_Type_create_struct(3, bl, d, ty, &s1));
    CHECK_MPI(MPI_Type_commit(&s1));
    bounds(s1, -4, 20, 4, "{LB -4, int 0, UB 16}");
    MPI_Aint tl, te;
    CHECK_MPI(MPI_Type_get_true_extent(s1, &tl, &te));
    CHECK_INT(0, (int)tl, "true lb");
    CHECK_INT(4, (int)te, "true extent");
    int buf[10], got[2] = {-1, -1};
    for (int i = 0; i < 10; i++)
        buf[i] = 100 + i;
    if (t_rank == 0)
        CHECK_MPI(MPI_Send(buf, 2, s1, 1, 0, MPI_COMM_WORLD));
    else if (t_rank == 1) {
        CHECK_MPI(MPI_Recv(got, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_INT(100, got[0], "first element");
        CHECK_INT(105, got[1], "second element, one extent (20 bytes) on");
    }

    MPI_Aint dm[2] = {8, 40};
    MPI_Datatype tm[2] = {MPI_LB, MPI_UB};
    CHECK_MPI(MPI_Type_create_struct(2, bl, dm, tm, &s2));
    bounds(s2, 8, 32, 0, "markers only");

    MPI_Aint d3[5] = {12, 4, 0, 24, 32};
    MPI_Datatype t3[5] = {MPI_LB, MPI_LB, MPI_INT, MPI_UB, MPI_UB};
    int bl5[5] = {1, 1, 1, 1, 1};
    CHECK_MPI(MPI_Type_create_struct(5, bl5, d3, t3, &s3));
    bounds(s3, 4, 28, 4, "the lowest LB and the highest UB");

    MPI_Aint d4[2] = {0, 9};
    MPI_Datatype t4[2] = {MPI_DOUBLE, MPI_UB};
    CHECK_MPI(MPI_Type_create_struct(2, bl, d4, t4, &s4));
    bounds(s4, 0, 9, 8, "an UB alone, no padding");

    MPI_Type_free(&s1);
    MPI_Type_free(&s2);
    MPI_Type_free(&s3);
    MPI_Type_free(&s4);
    MPI_Finalize();
    return 0;
}
