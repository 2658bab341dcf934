/* What only the MPI-5 standard ABI has, through IVC's libmpi_abi.so.0 (built with
 * `mpicc -mpi-abi`): the ABI chapter's queries, MPI_<Handle>_toint/fromint round trips for
 * every handle kind (predefined and user objects), the layout of MPI_Status and the integer
 * types, and the constants whose values differ from IVC's own, each checked as the number
 * the standard fixes: thread levels, comparison results, topology types, MPI_PROC_NULL and
 * MPI_ANY_TAG in a status, window flavor and model attributes, combiners, MPI_IN_PLACE,
 * MPI_UNWEIGHTED, darray distributions, error classes (MPI_ERR_RANK, MPI_ERR_ABI). */
#include "abi_test.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef MPI_ABI_VERSION
#error "built without the standard ABI's header (mpicc -mpi-abi)"
#endif

_Static_assert(sizeof(MPI_Status) == 32, "MPI_Status: 8 ints");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == 0 && offsetof(MPI_Status, MPI_TAG) == 4 &&
                   offsetof(MPI_Status, MPI_ERROR) == 8,
               "public fields first");
_Static_assert(sizeof(MPI_Aint) == sizeof(void *) && sizeof(MPI_Offset) == 8 &&
                   sizeof(MPI_Count) == 8 && sizeof(MPI_Comm) == sizeof(void *),
               "integer and handle sizes");

static void info_check(MPI_Info info, const char *key, int want)
{
    char val[64];
    int flag = 0;
    OK(MPI_Info_get(info, key, sizeof(val) - 1, val, &flag));
    CHECK(flag, "key %s missing", key);
    CHECK_INT(atoi(val), want);
}

#define ROUND_TRIP(Kind, h)                                                                        \
    do {                                                                                           \
        int i_ = MPI_##Kind##_toint(h);                                                            \
        CHECK(MPI_##Kind##_fromint(i_) == (h), "%s fromint(toint) of %s", #Kind, #h);             \
        CHECK_INT(MPI_##Kind##_c2f(h), i_);                                                        \
        CHECK(MPI_##Kind##_f2c(i_) == (h), "%s f2c of %s", #Kind, #h);                            \
    } while (0)

int main(int argc, char **argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &abi_rank_);
    int rank = abi_rank_, size = 0;
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 2, "needs 2 ranks, got %d", size);
    /* Thread levels: the standard's 0/1024/2048/4096 through the call and back. */
    CHECK_INT(MPI_THREAD_MULTIPLE, 4096);
    CHECK_INT(provided, MPI_THREAD_MULTIPLE);
    int q = -1;
    OK(MPI_Query_thread(&q));
    CHECK_INT(q, 4096);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    OK(MPI_Get_library_version(lib, &len));
    CHECK(len > 3 && !strncmp(lib, "IVC", 3), "library version: %s", lib);

    /* ---- the ABI chapter's queries ---- */
    int major = 0, minor = -5;
    OK(MPI_Abi_get_version(&major, &minor));
    CHECK_INT(major, MPI_ABI_VERSION);
    CHECK_INT(minor, MPI_ABI_SUBVERSION);
    CHECK_INT(major, 1);
    CHECK_INT(minor, 0);
    MPI_Info info = MPI_INFO_NULL;
    OK(MPI_Abi_get_info(&info));
    CHECK(info != MPI_INFO_NULL, "MPI_Abi_get_info gave MPI_INFO_NULL");
    info_check(info, "mpi_aint_size", (int)sizeof(MPI_Aint));
    info_check(info, "mpi_count_size", (int)sizeof(MPI_Count));
    info_check(info, "mpi_offset_size", (int)sizeof(MPI_Offset));
    ROUND_TRIP(Info, info);
    OK(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL, "MPI_Info_free");
    MPI_Info finfo = MPI_INFO_NULL;
    OK(MPI_Abi_get_fortran_info(&finfo));
    if (finfo != MPI_INFO_NULL)
        OK(MPI_Info_free(&finfo));
    int is_set = -1;
    char t4[4], f4[4];
    OK(MPI_Abi_get_fortran_booleans(4, t4, f4, &is_set));
    CHECK(is_set == 0 || is_set == 1, "is_set %d", is_set);
    /* Setting the Fortran ABI: MPI_ERR_ABI (62), returned under MPI_ERRORS_RETURN. */
    CHECK_INT(MPI_ERR_ABI, 62);
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Abi_set_fortran_info(MPI_INFO_NULL), cls = -1;
    OK(MPI_Error_class(rc, &cls));
    CHECK_INT(cls, MPI_ERR_ABI);

    /* ---- handles: toint/fromint for every kind, predefined and user ---- */
    ROUND_TRIP(Comm, MPI_COMM_WORLD);
    ROUND_TRIP(Comm, MPI_COMM_SELF);
    ROUND_TRIP(Comm, MPI_COMM_NULL);
    ROUND_TRIP(Type, MPI_INT);
    ROUND_TRIP(Type, MPI_DOUBLE_INT);
    ROUND_TRIP(Op, MPI_SUM);
    ROUND_TRIP(Group, MPI_GROUP_EMPTY);
    ROUND_TRIP(Errhandler, MPI_ERRORS_RETURN);
    ROUND_TRIP(Info, MPI_INFO_ENV);
    ROUND_TRIP(Request, MPI_REQUEST_NULL);
    ROUND_TRIP(Message, MPI_MESSAGE_NO_PROC);
    ROUND_TRIP(Win, MPI_WIN_NULL);
    CHECK(MPI_COMM_WORLD == (MPI_Comm)0x101 && MPI_INT == (MPI_Datatype)0x209 &&
              MPI_SUM == (MPI_Op)0x21,
          "predefined handle values");
    MPI_Comm dup;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    ROUND_TRIP(Comm, dup);
    CHECK((intptr_t)dup >= 0x400, "a user handle in the predefined range: %p", (void *)dup);
    MPI_Datatype vec;
    OK(MPI_Type_vector(3, 2, 4, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    ROUND_TRIP(Type, vec);
    MPI_Group grp;
    OK(MPI_Comm_group(dup, &grp));
    ROUND_TRIP(Group, grp);
    MPI_Errhandler eh;
    OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    ROUND_TRIP(Errhandler, eh);
    OK(MPI_Errhandler_free(&eh));
    /* The comm received through an int is the same communicator. */
    MPI_Comm back = MPI_Comm_fromint(MPI_Comm_toint(dup));
    int csize = 0;
    OK(MPI_Comm_size(back, &csize));
    CHECK_INT(csize, size);

    /* ---- comparisons, topologies (values 201-204, 211-213) ---- */
    int res = -1;
    OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &res));
    CHECK_INT(res, MPI_CONGRUENT);
    CHECK_INT(MPI_CONGRUENT, 202);
    OK(MPI_Comm_compare(dup, dup, &res));
    CHECK_INT(res, 201);
    MPI_Group wgrp;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &wgrp));
    OK(MPI_Group_compare(wgrp, grp, &res));
    CHECK_INT(res, MPI_IDENT);
    OK(MPI_Group_free(&wgrp));
    OK(MPI_Group_free(&grp));
    CHECK(grp == MPI_GROUP_NULL, "MPI_Group_free");
    int dims[1] = {size}, periods[1] = {0};
    MPI_Comm cart;
    OK(MPI_Cart_create(dup, 1, dims, periods, 0, &cart));
    int topo = -1;
    OK(MPI_Topo_test(cart, &topo));
    CHECK_INT(topo, 211);
    OK(MPI_Topo_test(dup, &topo));
    CHECK_INT(topo, MPI_UNDEFINED);
    int src = 0, dst = 0;
    OK(MPI_Cart_shift(cart, 0, 1, &src, &dst));
    if (rank == 0)
        CHECK_INT(src, -3); /* MPI_PROC_NULL */
    if (rank == size - 1)
        CHECK_INT(dst, MPI_PROC_NULL);
    OK(MPI_Comm_free(&cart));

    /* ---- statuses: fields, MPI_PROC_NULL, MPI_ANY_TAG, the count ---- */
    MPI_Status st;
    memset(&st, 0x5a, sizeof(st));
    OK(MPI_Recv(NULL, 0, MPI_INT, MPI_PROC_NULL, 3, dup, &st));
    CHECK_INT(st.MPI_SOURCE, -3);
    CHECK_INT(st.MPI_TAG, -2); /* MPI_ANY_TAG */
    int count = -1;
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK_INT(count, 0);
    int buf[12];
    if (rank == 0) {
        for (int i = 0; i < 12; i++)
            buf[i] = 100 + i;
        OK(MPI_Send(buf, 1, vec, 1, 21, dup));
        MPI_Request r;
        OK(MPI_Isend(buf, 5, MPI_INT, 1, 22, dup, &r));
        ROUND_TRIP(Request, r);
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(r == MPI_REQUEST_NULL, "request after MPI_Wait");
    } else if (rank == 1) {
        memset(buf, 0, sizeof(buf));
        OK(MPI_Recv(buf, 6, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &st));
        CHECK_INT(st.MPI_SOURCE, 0);
        CHECK_INT(st.MPI_TAG, 21);
        OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK_INT(count, 6);
        static const int want[6] = {100, 101, 104, 105, 108, 109};
        for (int i = 0; i < 6; i++)
            CHECK_INT(buf[i], want[i]);
        MPI_Message msg;
        int flag = 0;
        do
            OK(MPI_Improbe(0, MPI_ANY_TAG, dup, &flag, &msg, &st));
        while (!flag);
        ROUND_TRIP(Message, msg);
        CHECK_INT(st.MPI_TAG, 22);
        OK(MPI_Mrecv(buf, 5, MPI_INT, &msg, &st));
        OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK_INT(count, 5);
        CHECK_INT(buf[4], 104);
        int cancelled = -1;
        OK(MPI_Test_cancelled(&st, &cancelled));
        CHECK_INT(cancelled, 0);
    }
    /* An error class through a return code: MPI_ERR_RANK is 6. */
    rc = MPI_Send(buf, 1, MPI_INT, size + 3, 0, dup);
    OK(MPI_Error_class(rc, &cls));
    CHECK_INT(cls, 6);

    /* ---- MPI_BUFFER_AUTOMATIC (2): attached, then handed back by the detach ---- */
    OK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
    OK(MPI_Bsend(&rank, 1, MPI_INT, 0, 31, MPI_COMM_SELF));
    int self = -1;
    OK(MPI_Recv(&self, 1, MPI_INT, 0, 31, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    CHECK_INT(self, rank);
    void *detached = NULL;
    int dsz = -1;
    OK(MPI_Buffer_detach(&detached, &dsz));
    CHECK(detached == MPI_BUFFER_AUTOMATIC && (intptr_t)detached == 2, "detached %p",
          detached);

    /* ---- MPI_IN_PLACE (1) and a user op ---- */
    int v[2] = {rank, 2 * rank};
    OK(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, dup));
    CHECK_INT(v[0], size * (size - 1) / 2);
    CHECK_INT(v[1], size * (size - 1));
    /* An address, not a buffer: the sentinel's own value comes back (mpi4py's test_objmodel). */
    MPI_Aint in_place_addr = 0;
    OK(MPI_Get_address(MPI_IN_PLACE, &in_place_addr));
    CHECK(in_place_addr == 1, "MPI_Get_address(MPI_IN_PLACE) gave %ld", (long)in_place_addr);

    /* ---- datatypes: combiner values, darray with the standard's distributions ---- */
    int ni, na, nd, comb;
    OK(MPI_Type_get_envelope(vec, &ni, &na, &nd, &comb));
    CHECK_INT(comb, 104); /* MPI_COMBINER_VECTOR */
    OK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb));
    CHECK_INT(comb, MPI_COMBINER_NAMED);
    int gs[2] = {4, 6}, distrib[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE},
        dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {2, 1};
    MPI_Datatype darr;
    OK(MPI_Type_create_darray(2, rank % 2, 2, gs, distrib, dargs, ps, MPI_ORDER_C, MPI_INT,
                              &darr));
    int dsize = 0;
    OK(MPI_Type_size(darr, &dsize));
    CHECK_INT(dsize, 2 * 6 * (int)sizeof(int));
    OK(MPI_Type_free(&darr));
    MPI_Datatype m4;
    OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &m4));
    OK(MPI_Type_size(m4, &dsize));
    CHECK_INT(dsize, 4);

    /* ---- graph topology with MPI_UNWEIGHTED (10) ---- */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Comm ring;
    OK(MPI_Dist_graph_create_adjacent(dup, 1, &left, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED,
                                      MPI_INFO_NULL, 0, &ring));
    OK(MPI_Topo_test(ring, &topo));
    CHECK_INT(topo, 213);
    int indeg = -1, outdeg = -1, weighted = -1;
    OK(MPI_Dist_graph_neighbors_count(ring, &indeg, &outdeg, &weighted));
    CHECK_INT(indeg, 1);
    CHECK_INT(weighted, 0);
    int nb_in = -1, nb_out = -1;
    OK(MPI_Dist_graph_neighbors(ring, 1, &nb_in, MPI_UNWEIGHTED, 1, &nb_out, MPI_UNWEIGHTED));
    CHECK_INT(nb_in, left);
    CHECK_INT(nb_out, right);
    OK(MPI_Comm_free(&ring));

    /* ---- windows: flavor and model attributes (311..., 321...), lock types ---- */
    int wbuf[4] = {0, 0, 0, 0};
    MPI_Win win;
    OK(MPI_Win_create(wbuf, sizeof(wbuf), sizeof(int), MPI_INFO_NULL, dup, &win));
    ROUND_TRIP(Win, win);
    int *fl = NULL, flag = 0;
    OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag));
    CHECK(flag && fl != NULL, "no MPI_WIN_CREATE_FLAVOR");
    CHECK_INT(*fl, 311);
    int *model = NULL;
    OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && model != NULL, "no MPI_WIN_MODEL");
    CHECK(*model == MPI_WIN_UNIFIED || *model == MPI_WIN_SEPARATE, "model %d", *model);
    CHECK(*model == 321 || *model == 322, "model %d", *model);
    OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    int one = rank + 1;
    OK(MPI_Put(&one, 1, MPI_INT, right, rank % 4, 1, MPI_INT, win));
    OK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win));
    CHECK_INT(wbuf[left % 4], left + 1);
    OK(MPI_Barrier(dup));
    OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    int got = -1;
    OK(MPI_Get(&got, 1, MPI_INT, right, rank % 4, 1, MPI_INT, win));
    OK(MPI_Win_unlock(right, win));
    CHECK_INT(got, rank + 1);
    OK(MPI_Barrier(dup));
    OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free");

    /* ---- split types (221...) ---- */
    MPI_Comm shm;
    OK(MPI_Comm_split_type(dup, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm));
    CHECK(shm != MPI_COMM_NULL, "MPI_COMM_TYPE_SHARED gave MPI_COMM_NULL");
    OK(MPI_Comm_free(&shm));

    OK(MPI_Type_free(&vec));
    CHECK(vec == MPI_DATATYPE_NULL, "MPI_Type_free");
    OK(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL, "MPI_Comm_free");
    abi_test_done("std_abi");
    return 0;
}
