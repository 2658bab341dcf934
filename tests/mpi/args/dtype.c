/* args_dtype: NULL arguments to the datatype calls under MPI_ERRORS_RETURN (local calls, any
 * number of ranks).
 *
 * Checked, each against MPICH's class:
 *  - every constructor with a NULL newtype, and the array constructors with NULL arrays
 *    (count > 0): MPI_ERR_ARG; Type_commit/Type_free of a NULL pointer: MPI_ERR_ARG;
 *  - every query with a NULL output (size, extent, true extent, envelope, contents arrays,
 *    name, attributes, Get_address, Pack_size, Type_match_size, f90 types, value_index, and
 *    the removed Type_extent/Type_lb/Type_ub): MPI_ERR_ARG;
 *  - Pack/Unpack (native and external32) with a NULL data buffer of count > 0 or a NULL packed
 *    buffer with bytes to move: MPI_ERR_BUFFER; a NULL position or datarep: MPI_ERR_ARG;
 *  - legal NULLs: Pack of 0 elements from NULL into NULL, Pack from MPI_BOTTOM with a type of
 *    absolute addresses (the value arrives), Get_address(MPI_BOTTOM).
 * The types built on the way still work afterwards (a vector packs its elements). */
#include "a_util.h"

int main(int argc, char **argv)
{
    a_init(&argc, &argv);
    int one = 1, two[2] = {1, 1}, n = 0, pos = 0, flag = 0;
    MPI_Aint disp[2] = {0, 8}, a = 0, b = 0;
    MPI_Count c1 = 0, c2 = 0, c3 = 0, c4 = 0;
    MPI_Datatype t = MPI_DATATYPE_NULL, types[2] = {MPI_INT, MPI_INT};
    MPI_Datatype vec;
    A_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    A_OK(MPI_Type_commit(&vec));

    /* ---- constructors ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Type_contiguous(2, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_contiguous_c(2, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_vector(2, 1, 2, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_hvector(2, 1, 8, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_indexed(2, two, (int[]){0, 2}, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_indexed(2, NULL, (int[]){0, 2}, MPI_INT, &t));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_indexed(2, two, NULL, MPI_INT, &t));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_hindexed(2, two, disp, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_hindexed(2, NULL, disp, MPI_INT, &t));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_hindexed(2, two, NULL, MPI_INT, &t));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_indexed_block(2, 1, (int[]){0, 2}, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_indexed_block(2, 1, NULL, MPI_INT, &t));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_hindexed_block(2, 1, disp, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_hindexed_block(2, 1, NULL, MPI_INT, &t));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_struct(2, two, disp, types, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_struct(2, NULL, disp, types, &t));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_struct(2, two, NULL, types, &t));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_struct(2, two, disp, NULL, &t));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_resized(MPI_INT, 0, 8, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_dup(MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_subarray(1, (int[]){4}, (int[]){2}, (int[]){1},
                                                   MPI_ORDER_C, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_subarray(1, NULL, (int[]){2}, (int[]){1}, MPI_ORDER_C,
                                                   MPI_INT, &t));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_darray(1, 0, 1, (int[]){4}, (int[]){MPI_DISTRIBUTE_BLOCK},
                                                 (int[]){MPI_DISTRIBUTE_DFLT_DARG}, (int[]){1},
                                                 MPI_ORDER_C, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_darray(1, 0, 1, NULL, (int[]){MPI_DISTRIBUTE_BLOCK},
                                                 (int[]){MPI_DISTRIBUTE_DFLT_DARG}, (int[]){1},
                                                 MPI_ORDER_C, MPI_INT, &t));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_f90_integer(9, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_f90_real(6, 30, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_create_f90_complex(6, 30, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_get_value_index(MPI_INT, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_commit(NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_free(NULL));
    CHECK_TRUE(t == MPI_DATATYPE_NULL, "no type handed out by a refused constructor");

    /* ---- queries ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Type_size(vec, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_size_x(vec, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_size_c(vec, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_get_extent(vec, NULL, &b));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_get_extent(vec, &a, NULL));
    /* The MPI-1 forms that MPI-3.0 removed (MPICH's errors/datatype/type_ub_nullarg). */
    A_EXPECT(MPI_ERR_ARG, MPI_Type_extent(vec, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_lb(vec, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_ub(vec, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_get_extent_x(vec, NULL, &c1));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_get_extent_c(vec, &c1, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_get_true_extent(vec, NULL, &b));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_get_true_extent(vec, &a, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_get_true_extent_x(vec, NULL, &c1));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_get_true_extent_c(vec, &c1, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_get_envelope(vec, NULL, &n, &n, &n));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_get_envelope(vec, &n, &n, &n, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_get_envelope_c(vec, &c1, &c2, &c3, &c4, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_get_envelope_c(vec, NULL, &c2, &c3, &c4, &n));
    {
        int ints[3];
        MPI_Datatype dts[1];
        A_EXPECT(MPI_ERR_ARG, MPI_Type_get_contents(vec, 3, 0, 1, NULL, NULL, dts));
        A_EXPECT(MPI_ERR_ARG, MPI_Type_get_contents(vec, 3, 0, 1, ints, NULL, NULL));
        A_OK(MPI_Type_get_contents(vec, 3, 0, 1, ints, NULL, dts));
        CHECK_INT(3, ints[0], "vector count from Type_get_contents");
    }
    A_EXPECT(MPI_ERR_ARG, MPI_Get_address(&n, NULL));
    A_OK(MPI_Get_address(MPI_BOTTOM, &a));
    CHECK_INT(0, a, "address of MPI_BOTTOM");
    A_EXPECT(MPI_ERR_ARG, MPI_Pack_size(2, MPI_INT, MPI_COMM_WORLD, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Pack_size_c(2, MPI_INT, MPI_COMM_WORLD, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Type_vector_c(2, 1, 2, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Pack_c(NULL, 2, MPI_INT, &(char[64]){0}, 64, &(MPI_Count){0},
                                        MPI_COMM_WORLD));
    A_EXPECT(MPI_ERR_ARG, MPI_Pack_external_size("external32", 2, MPI_INT, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Pack_external_size(NULL, 2, MPI_INT, &a));
    {
        char name[MPI_MAX_OBJECT_NAME];
        A_EXPECT(MPI_ERR_ARG, MPI_Type_get_name(vec, NULL, &n));
        A_EXPECT(MPI_ERR_ARG, MPI_Type_get_name(vec, name, NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Type_set_name(vec, NULL));
        int kv = MPI_KEYVAL_INVALID;
        A_EXPECT(MPI_ERR_ARG,
                 MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, NULL, NULL));
        A_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kv, NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Type_get_attr(vec, kv, NULL, &flag));
        A_EXPECT(MPI_ERR_ARG, MPI_Type_get_attr(vec, kv, &a, NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Type_free_keyval(NULL));
        A_OK(MPI_Type_free_keyval(&kv));
    }

    /* ---- pack and unpack ---- */
    {
        int in[6] = {10, 11, 12, 13, 14, 15}, out[6] = {0};
        char packed[64];
        MPI_Aint xpos = 0;
        A_EXPECT(MPI_ERR_BUFFER, MPI_Pack(NULL, 2, MPI_INT, packed, 64, &pos, MPI_COMM_WORLD));
        A_EXPECT(MPI_ERR_BUFFER, MPI_Pack(in, 2, MPI_INT, NULL, 64, &pos, MPI_COMM_WORLD));
        A_EXPECT(MPI_ERR_ARG, MPI_Pack(in, 2, MPI_INT, packed, 64, NULL, MPI_COMM_WORLD));
        A_EXPECT(MPI_ERR_BUFFER, MPI_Unpack(NULL, 64, &pos, out, 2, MPI_INT, MPI_COMM_WORLD));
        A_EXPECT(MPI_ERR_BUFFER, MPI_Unpack(packed, 64, &pos, NULL, 2, MPI_INT, MPI_COMM_WORLD));
        A_EXPECT(MPI_ERR_ARG, MPI_Unpack(packed, 64, NULL, out, 2, MPI_INT, MPI_COMM_WORLD));
        A_EXPECT(MPI_ERR_BUFFER, MPI_Pack_external("external32", NULL, 2, MPI_INT, packed, 64,
                                                   &xpos));
        A_EXPECT(MPI_ERR_BUFFER, MPI_Pack_external("external32", in, 2, MPI_INT, NULL, 64,
                                                   &xpos));
        A_EXPECT(MPI_ERR_ARG, MPI_Pack_external("external32", in, 2, MPI_INT, packed, 64, NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Pack_external(NULL, in, 2, MPI_INT, packed, 64, &xpos));
        A_EXPECT(MPI_ERR_BUFFER, MPI_Unpack_external("external32", NULL, 64, &xpos, out, 2,
                                                     MPI_INT));
        A_EXPECT(MPI_ERR_BUFFER, MPI_Unpack_external("external32", packed, 64, &xpos, NULL, 2,
                                                     MPI_INT));
        A_EXPECT(MPI_ERR_ARG, MPI_Unpack_external("external32", packed, 64, NULL, out, 2,
                                                  MPI_INT));
        A_EXPECT(MPI_ERR_ARG, MPI_Unpack_external(NULL, packed, 64, &xpos, out, 2, MPI_INT));
        CHECK_INT(0, pos, "position after refused calls");
        CHECK_INT(0, xpos, "external32 position after refused calls");

        /* Legal: nothing to move, and MPI_BOTTOM with absolute addresses. */
        A_OK(MPI_Pack(NULL, 0, MPI_INT, NULL, 0, &pos, MPI_COMM_WORLD));
        A_OK(MPI_Unpack(NULL, 0, &pos, NULL, 0, MPI_INT, MPI_COMM_WORLD));
        MPI_Datatype abs_t;
        A_OK(MPI_Get_address(&in[4], &a));
        A_OK(MPI_Type_create_struct(1, &one, &a, (MPI_Datatype[]){MPI_INT}, &abs_t));
        A_OK(MPI_Type_commit(&abs_t));
        A_OK(MPI_Pack(MPI_BOTTOM, 1, abs_t, packed, 64, &pos, MPI_COMM_WORLD));
        A_OK(MPI_Pack(in, 1, vec, packed, 64, &pos, MPI_COMM_WORLD));
        CHECK_INT(4 * (int)sizeof(int), pos, "bytes packed");
        pos = 0;
        A_OK(MPI_Unpack(packed, 64, &pos, out, 4, MPI_INT, MPI_COMM_WORLD));
        CHECK_INT(14, out[0], "element packed from MPI_BOTTOM");
        CHECK_INT(10, out[1], "vector element 0");
        CHECK_INT(12, out[2], "vector element 1");
        CHECK_INT(14, out[3], "vector element 2");
        A_OK(MPI_Type_free(&abs_t));
    }
    A_OK(MPI_Type_free(&vec));
    return a_finish("args_dtype");
}
