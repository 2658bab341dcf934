/* abi_native: MPI-5.0's ABI queries and integer handle conversions in IVC's own library
 * (libivcmpi, IVC's ABI, not the standard one): MPI_Abi_get_version answers -1.-1, the info
 * objects name IVC's integer sizes, setting the Fortran ABI fails with MPI_ERR_ABI, and
 * MPI_<Handle>_toint/fromint round-trip predefined and user handles of every kind, agreeing
 * with c2f/f2c. The standard ABI's library has its own test (tests/abi/std_abi.c). */
#include "t_util.h"

#define ROUND_TRIP(Kind, h)                                                                        \
    do {                                                                                           \
        int i_ = MPI_##Kind##_toint(h);                                                            \
        CHECK_TRUE(MPI_##Kind##_fromint(i_) == (h), #Kind " fromint(toint(" #h "))");            \
        CHECK_INT(MPI_##Kind##_c2f(h), i_, #Kind " c2f(" #h ") == toint");                        \
    } while (0)

static void info_has(MPI_Info info, const char *key, int want)
{
    char val[32];
    int flag = 0;
    CHECK_MPI(MPI_Info_get(info, key, sizeof(val) - 1, val, &flag));
    CHECK_TRUE(flag, key);
    CHECK_INT(want, atoi(val), key);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int major = 0, minor = 0;
    CHECK_MPI(MPI_Abi_get_version(&major, &minor));
    CHECK_INT(-1, major, "MPI_Abi_get_version major (IVC's own ABI)");
    CHECK_INT(-1, minor, "MPI_Abi_get_version minor");
    MPI_Info info = MPI_INFO_NULL;
    CHECK_MPI(MPI_Abi_get_info(&info));
    info_has(info, "mpi_aint_size", (int)sizeof(MPI_Aint));
    info_has(info, "mpi_count_size", (int)sizeof(MPI_Count));
    info_has(info, "mpi_offset_size", (int)sizeof(MPI_Offset));
    ROUND_TRIP(Info, info);
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_MPI(MPI_Abi_get_fortran_info(&info));
    info_has(info, "mpi_integer_size", 4);
    CHECK_MPI(MPI_Info_free(&info));
    int cls = -1, rc = MPI_Abi_set_fortran_info(MPI_INFO_NULL);
    CHECK_MPI(MPI_Error_class(rc, &cls));
    CHECK_INT(MPI_ERR_ABI, cls, "MPI_Abi_set_fortran_info");
    CHECK_TRUE(MPI_ERR_ABI < MPI_ERR_LASTCODE, "MPI_ERR_ABI is a predefined class");
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    CHECK_MPI(MPI_Error_string(MPI_ERR_ABI, s, &len));
    CHECK_TRUE(len > 0 && strstr(s, "ABI") != NULL, "MPI_Error_string(MPI_ERR_ABI)");

    ROUND_TRIP(Comm, MPI_COMM_WORLD);
    ROUND_TRIP(Comm, MPI_COMM_NULL);
    ROUND_TRIP(Type, MPI_INT);
    ROUND_TRIP(Op, MPI_MAXLOC);
    ROUND_TRIP(Errhandler, MPI_ERRORS_RETURN);
    ROUND_TRIP(Group, MPI_GROUP_EMPTY);
    ROUND_TRIP(Request, MPI_REQUEST_NULL);
    ROUND_TRIP(Message, MPI_MESSAGE_NO_PROC);
    ROUND_TRIP(Win, MPI_WIN_NULL);
    ROUND_TRIP(Session, MPI_SESSION_NULL);
    ROUND_TRIP(File, MPI_FILE_NULL);
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    ROUND_TRIP(Comm, dup);
    int n = 0;
    CHECK_MPI(MPI_Comm_size(MPI_Comm_fromint(MPI_Comm_toint(dup)), &n));
    CHECK_INT(t_size, n, "size of the communicator back from an int");
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
    ROUND_TRIP(Type, t);
    MPI_Group g;
    CHECK_MPI(MPI_Comm_group(dup, &g));
    ROUND_TRIP(Group, g);
    MPI_Request r;
    int x = 1, y = 0;
    CHECK_MPI(MPI_Irecv(&y, 1, MPI_INT, t_rank, 5, dup, &r));
    ROUND_TRIP(Request, r);
    CHECK_MPI(MPI_Send(&x, 1, MPI_INT, t_rank, 5, dup));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_INT(1, y, "self message");
    CHECK_MPI(MPI_Group_free(&g));
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Comm_free(&dup));
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("abi_native ok\n");
    MPI_Finalize();
    return 0;
}
