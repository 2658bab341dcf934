/* Derived datatypes through the MPICH ABI: user datatype handles (IVC objects behind
 * MPICH-style integers), MPICH's combiner values from MPI_Type_get_envelope, the handles
 * MPI_Type_get_contents returns (predefined ones compare equal to MPICH's constants),
 * sizes and extents, pack/unpack, and MPI_Type_free setting MPI_DATATYPE_NULL. */
#include <stddef.h>
#include <string.h>

#include "abi_test.h"

#include <stdint.h>

typedef struct {
    int id;
    double x[2];
    char tag;
} item_t;

int main(int argc, char **argv)
{
    abi_test_init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;

    /* A vector: every other int of 10. */
    MPI_Datatype vec;
    OK(MPI_Type_vector(5, 1, 2, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    int size = 0;
    MPI_Aint lb = -1, extent = 0;
    OK(MPI_Type_size(vec, &size));
    CHECK_INT(size, 5 * sizeof(int));
    OK(MPI_Type_get_extent(vec, &lb, &extent));
    CHECK_INT(lb, 0);
    CHECK_INT(extent, 9 * sizeof(int));
    int ni, na, nd, comb;
    OK(MPI_Type_get_envelope(vec, &ni, &na, &nd, &comb));
    CHECK_INT(comb, MPI_COMBINER_VECTOR);
    CHECK_INT(ni, 3);
    CHECK_INT(nd, 1);
    int ints[3];
    MPI_Aint addrs[1];
    MPI_Datatype types[1];
    OK(MPI_Type_get_contents(vec, 3, 0, 1, ints, addrs, types));
    CHECK(ints[0] == 5 && ints[1] == 1 && ints[2] == 2, "contents %d %d %d", ints[0], ints[1],
          ints[2]);
    CHECK_INT(types[0], MPI_INT);
    OK(MPI_Type_get_envelope(MPI_DOUBLE, &ni, &na, &nd, &comb));
    CHECK_INT(comb, MPI_COMBINER_NAMED);

    int a[10], b[10];
    for (int i = 0; i < 10; i++)
        a[i] = rank * 1000 + i, b[i] = -1;
    OK(MPI_Sendrecv(a, 1, vec, peer, 0, b, 1, vec, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 10; i++)
        CHECK_INT(b[i], i % 2 == 0 ? peer * 1000 + i : -1);

    /* A struct with a hole, resized to the C struct's size; an array of them. */
    int bl[3] = {1, 2, 1};
    MPI_Aint disp[3] = {offsetof(item_t, id), offsetof(item_t, x), offsetof(item_t, tag)};
    MPI_Datatype tys[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, st, item;
    OK(MPI_Type_create_struct(3, bl, disp, tys, &st));
    OK(MPI_Type_create_resized(st, 0, sizeof(item_t), &item));
    OK(MPI_Type_commit(&item));
    CHECK(item != st && item != vec, "distinct handles");
    OK(MPI_Type_get_envelope(st, &ni, &na, &nd, &comb));
    CHECK_INT(comb, MPI_COMBINER_STRUCT);
    MPI_Datatype got_types[3];
    int got_ints[4];
    MPI_Aint got_addrs[3];
    OK(MPI_Type_get_contents(st, 4, 3, 3, got_ints, got_addrs, got_types));
    CHECK(got_types[0] == MPI_INT && got_types[1] == MPI_DOUBLE && got_types[2] == MPI_CHAR,
          "types 0x%llx 0x%llx 0x%llx", (long long)(intptr_t)got_types[0],
          (long long)(intptr_t)got_types[1], (long long)(intptr_t)got_types[2]);
    OK(MPI_Type_get_envelope(item, &ni, &na, &nd, &comb));
    CHECK_INT(comb, MPI_COMBINER_RESIZED);
    item_t in[4], out[4];
    memset(in, 0, sizeof(in));
    for (int i = 0; i < 4; i++)
        out[i] = (item_t){rank * 10 + i, {i + 0.25, -i - 0.5}, (char)('a' + i)};
    OK(MPI_Sendrecv(out, 4, item, peer, 1, in, 4, item, peer, 1, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++) {
        CHECK_INT(in[i].id, peer * 10 + i);
        CHECK(in[i].x[0] == i + 0.25 && in[i].x[1] == -i - 0.5, "x %g %g", in[i].x[0], in[i].x[1]);
        CHECK_INT(in[i].tag, 'a' + i);
    }

    /* Indexed + pack/unpack. */
    int blens[2] = {2, 3}, displs[2] = {0, 5};
    MPI_Datatype idx;
    OK(MPI_Type_indexed(2, blens, displs, MPI_INT, &idx));
    OK(MPI_Type_commit(&idx));
    char packbuf[256];
    int pos = 0, psize = 0;
    OK(MPI_Pack_size(1, idx, MPI_COMM_WORLD, &psize));
    CHECK(psize >= 5 * (int)sizeof(int), "pack size %d", psize);
    OK(MPI_Pack(a, 1, idx, packbuf, sizeof(packbuf), &pos, MPI_COMM_WORLD));
    CHECK_INT(pos, 5 * sizeof(int));
    int unp[5];
    pos = 0;
    OK(MPI_Unpack(packbuf, sizeof(packbuf), &pos, unp, 5, MPI_INT, MPI_COMM_WORLD));
    CHECK(unp[0] == a[0] && unp[1] == a[1] && unp[2] == a[5] && unp[4] == a[7], "unpacked");

    /* A name on a datatype, a dup, and frees. */
    OK(MPI_Type_set_name(item, "item_t"));
    char nm[MPI_MAX_OBJECT_NAME];
    int nlen = 0;
    OK(MPI_Type_get_name(item, nm, &nlen));
    CHECK(nlen == 6 && !strcmp(nm, "item_t"), "name %s", nm);
    MPI_Datatype dup;
    OK(MPI_Type_dup(vec, &dup));
    OK(MPI_Type_size(dup, &size));
    CHECK_INT(size, 5 * sizeof(int));
    MPI_Datatype *all[] = {&vec, &st, &item, &idx, &dup};
    for (int i = 0; i < 5; i++) {
        OK(MPI_Type_free(all[i]));
        CHECK_INT(*all[i], MPI_DATATYPE_NULL);
    }
    /* The optional Fortran datatypes of gfortran's 16-byte kinds: the ABI's constants map to
     * IVC's types both ways. MPI_REAL16 (binary128) and MPI_COMPLEX32 in both ABIs; the
     * standard ABI has MPI_INTEGER16 too (MPICH 4.0.2 defines it as MPI_DATATYPE_NULL). */
    static const struct {
        MPI_Datatype t;
        const char *name;
        int size, cls;
    } opt[] = {{MPI_REAL16, "MPI_REAL16", 16, MPI_TYPECLASS_REAL},
               {MPI_COMPLEX32, "MPI_COMPLEX32", 32, MPI_TYPECLASS_COMPLEX},
               {MPI_INTEGER16, "MPI_INTEGER16", 16, MPI_TYPECLASS_INTEGER}};
    for (int i = 0; i < 3; i++) {
        if (opt[i].t == MPI_DATATYPE_NULL)
            continue;
        OK(MPI_Type_get_name(opt[i].t, nm, &nlen));
        CHECK(!strcmp(nm, opt[i].name), "name %s, expected %s", nm, opt[i].name);
        OK(MPI_Type_size(opt[i].t, &size));
        CHECK_INT(size, opt[i].size);
        MPI_Datatype m = MPI_DATATYPE_NULL;
        OK(MPI_Type_match_size(opt[i].cls, opt[i].size, &m));
        CHECK(m == opt[i].t, "Type_match_size(%d, %d) is not %s", opt[i].cls, opt[i].size,
              opt[i].name);
    }
    /* REAL16 (IEEE binary128, written out bit by bit) sent and summed over the 2 ranks:
     * {1 + 2^-100, -1}, which no double holds, gives {2 + 2^-99, -2}. */
    unsigned char q[2][16], qs[2][16];
    memset(q, 0, sizeof q);
    q[0][15] = 0x3f, q[0][14] = 0xff, q[0][1] = 0x10; /* 1 + 2^-100, little-endian */
    q[1][15] = 0xbf, q[1][14] = 0xff;                 /* -1 */
    if (rank == 0)
        OK(MPI_Send(q, 2, MPI_REAL16, peer, 9, MPI_COMM_WORLD));
    else
        OK(MPI_Recv(qs, 2, MPI_REAL16, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (rank == 1)
        CHECK(!memcmp(q, qs, sizeof q), "REAL16 message changed");
    OK(MPI_Allreduce(q, qs, 2, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD));
    unsigned char two_eps[16] = {0}, minus2[16] = {0};
    two_eps[15] = 0x40, two_eps[1] = 0x10; /* 2 + 2^-99: exponent +1, the same fraction bit */
    minus2[15] = 0xc0;
    CHECK(!memcmp(qs[0], two_eps, 16) && !memcmp(qs[1], minus2, 16), "REAL16 sum of 2 ranks");

    /* Many create/free cycles: the handle table reuses its slots. */
    for (int i = 0; i < 5000; i++) {
        MPI_Datatype t;
        OK(MPI_Type_contiguous(i % 7 + 1, MPI_INT, &t));
        OK(MPI_Type_free(&t));
    }
    abi_test_done("datatypes");
    return 0;
}
