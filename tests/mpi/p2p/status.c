/* status: the status accessors and MPI_Get_count_c.
 *
 * Checked:
 *  - Status_set_source/tag/error/cancelled and Status_get_source/tag/error round trips;
 *    Test_cancelled sees Status_set_cancelled.
 *  - Status_set_elements(MPI_INT, 5): Get_count 5, Get_elements 5, Get_count with
 *    MPI_DOUBLE MPI_UNDEFINED; with a contiguous type of 3 ints and 7 elements: Get_count
 *    of that type MPI_UNDEFINED, Get_elements 7.
 *  - Status_set_elements_x / _c with 3e9 bytes: Get_count_c gives 3e9 (no narrowing),
 *    Get_count MPI_UNDEFINED; 1.5e9 MPI_SHORTs: Get_count_c of MPI_SHORT 1.5e9, of MPI_INT
 *    7.5e8.
 *  - Get_count_c of a received message (ranks 0 and 1): 1234 ints.
 *  - Errors: negative count (MPI_ERR_COUNT), MPI_DATATYPE_NULL (MPI_ERR_TYPE),
 *    MPI_STATUS_IGNORE as the status (MPI_ERR_ARG).
 */
#include "../t_util.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Status st;
    memset(&st, 0, sizeof st);
    int v, flag, n;
    MPI_Count c;

    CHECK_MPI(MPI_Status_set_source(&st, 17));
    CHECK_MPI(MPI_Status_set_tag(&st, 4711));
    CHECK_MPI(MPI_Status_set_error(&st, MPI_ERR_TAG));
    CHECK_MPI(MPI_Status_get_source(&st, &v));
    CHECK_INT(17, v, "Status_get_source");
    CHECK_INT(17, st.MPI_SOURCE, "MPI_SOURCE field");
    CHECK_MPI(MPI_Status_get_tag(&st, &v));
    CHECK_INT(4711, v, "Status_get_tag");
    CHECK_MPI(MPI_Status_get_error(&st, &v));
    CHECK_INT(MPI_ERR_TAG, v, "Status_get_error");
    CHECK_MPI(MPI_Status_set_cancelled(&st, 1));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK_INT(1, flag, "Test_cancelled after set_cancelled(1)");
    CHECK_MPI(MPI_Status_set_cancelled(&st, 0));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK_INT(0, flag, "Test_cancelled after set_cancelled(0)");

    CHECK_MPI(MPI_Status_set_elements(&st, MPI_INT, 5));
    CHECK_INT(5, t_count(&st, MPI_INT), "Get_count after set_elements(INT, 5)");
    CHECK_MPI(MPI_Get_elements(&st, MPI_INT, &n));
    CHECK_INT(5, n, "Get_elements after set_elements(INT, 5)");
    CHECK_INT(MPI_UNDEFINED, t_count(&st, MPI_DOUBLE), "Get_count(DOUBLE) of 5 ints");
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_INT, &three);
    MPI_Type_commit(&three);
    CHECK_MPI(MPI_Status_set_elements(&st, three, 7));
    CHECK_INT(MPI_UNDEFINED, t_count(&st, three), "Get_count of 7 ints in 3-int elements");
    CHECK_MPI(MPI_Get_elements(&st, three, &n));
    CHECK_INT(7, n, "Get_elements of 7 ints in 3-int elements");
    CHECK_MPI(MPI_Status_set_elements(&st, three, 6));
    CHECK_INT(2, t_count(&st, three), "Get_count of 6 ints in 3-int elements");
    MPI_Type_free(&three);

    CHECK_MPI(MPI_Status_set_elements_x(&st, MPI_BYTE, 3000000000LL));
    CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &c));
    CHECK_INT(3000000000LL, c, "Get_count_c of 3e9 bytes");
    CHECK_INT(MPI_UNDEFINED, t_count(&st, MPI_BYTE), "Get_count (int) of 3e9 bytes");
    CHECK_MPI(MPI_Status_set_elements_c(&st, MPI_SHORT, 1500000000LL));
    CHECK_MPI(MPI_Get_count_c(&st, MPI_SHORT, &c));
    CHECK_INT(1500000000LL, c, "Get_count_c of 1.5e9 shorts");
    CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &c));
    CHECK_INT(750000000LL, c, "Get_count_c(INT) of 1.5e9 shorts");

    CHECK_INT(MPI_ERR_COUNT, MPI_Status_set_elements(&st, MPI_INT, -1), "set_elements -1");
    CHECK_INT(MPI_ERR_TYPE, MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1),
              "set_elements with MPI_DATATYPE_NULL");
    CHECK_INT(MPI_ERR_ARG, MPI_Status_set_tag(MPI_STATUS_IGNORE, 1),
              "set_tag on MPI_STATUS_IGNORE");
    CHECK_INT(MPI_ERR_TYPE, MPI_Get_count_c(&st, MPI_DATATYPE_NULL, &c),
              "Get_count_c with MPI_DATATYPE_NULL");

    if (t_size >= 2 && t_rank < 2) {
        int buf[1234];
        if (t_rank == 0) {
            for (int i = 0; i < 1234; i++)
                buf[i] = i;
            CHECK_MPI(MPI_Send(buf, 1234, MPI_INT, 1, 3, MPI_COMM_WORLD));
        } else {
            CHECK_MPI(MPI_Recv(buf, 1234, MPI_INT, 0, 3, MPI_COMM_WORLD, &st));
            CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &c));
            CHECK_INT(1234, c, "Get_count_c of a received message");
            CHECK_MPI(MPI_Get_count_c(&st, MPI_SHORT, &c));
            CHECK_INT(2468, c, "Get_count_c(SHORT) of a received message");
            CHECK_INT(1233, buf[1233], "received payload");
        }
    }
    MPI_Finalize();
    return 0;
}
