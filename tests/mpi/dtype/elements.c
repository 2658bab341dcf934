/* MPI_Get_elements (and _x, _c) after receives that fill whole and partial derived types:
 * the standard's example (a contiguous pair of floats: 2 floats give count 1 and 2
 * elements, 3 give MPI_UNDEFINED and 3), a struct received partially, pair types counting
 * two basic elements per item (also partially: the value without its index), a message
 * that ends inside a basic element (MPI_UNDEFINED), zero bytes, and a zero-size type.
 * Rank 0 sends to rank 1; other ranks only check the errors. */
#include "../t_util.h"

typedef struct {
    int i;
    double d;
    char c;
} rec_t;

static void elements(const char *what, MPI_Status *st, MPI_Datatype dt, int count, int elems)
{
    char w[160];
    int n;
    MPI_Count x;
    CHECK_MPI(MPI_Get_count(st, dt, &n));
    CHECK_INT(count, n, t_fmt(w, sizeof w, "%s: Get_count", what));
    CHECK_MPI(MPI_Get_elements(st, dt, &n));
    CHECK_INT(elems, n, t_fmt(w, sizeof w, "%s: Get_elements", what));
    CHECK_MPI(MPI_Get_elements_x(st, dt, &x));
    CHECK_INT(elems, x, t_fmt(w, sizeof w, "%s: Get_elements_x", what));
    CHECK_MPI(MPI_Get_elements_c(st, dt, &x));
    CHECK_INT(elems, x, t_fmt(w, sizeof w, "%s: Get_elements_c", what));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (t_size < 2)
        t_skip("needs 2 ranks");
    int sender = t_rank == 0, receiver = t_rank == 1, to = 1, from = 0;

    /* Types: Type2 = 2 floats; rec = {int, double, char}; a struct of rec then an int and a
     * double (the sender's "one and a half records"); DOUBLE_INT pieces. */
    MPI_Datatype type2, rec, onehalf, pairhalf, empty;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_FLOAT, &type2));
    CHECK_MPI(MPI_Type_commit(&type2));
    int bl[] = {1, 1, 1};
    MPI_Aint disp[] = {offsetof(rec_t, i), offsetof(rec_t, d), offsetof(rec_t, c)};
    MPI_Datatype rt[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    CHECK_MPI(MPI_Type_create_struct(3, bl, disp, rt, &rec));
    CHECK_MPI(MPI_Type_commit(&rec));
    MPI_Aint d2[] = {0, sizeof(rec_t), sizeof(rec_t) + 8};
    MPI_Datatype t2[] = {rec, MPI_INT, MPI_DOUBLE};
    CHECK_MPI(MPI_Type_create_struct(3, bl, d2, t2, &onehalf));
    CHECK_MPI(MPI_Type_commit(&onehalf));
    MPI_Aint d3[] = {0, 2 * sizeof(double) * 2};
    MPI_Datatype t3[] = {MPI_DOUBLE_INT, MPI_DOUBLE};
    int bl3[] = {2, 1};
    CHECK_MPI(MPI_Type_create_struct(2, bl3, d3, t3, &pairhalf));
    CHECK_MPI(MPI_Type_commit(&pairhalf));
    CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &empty));
    CHECK_MPI(MPI_Type_commit(&empty));

    char sbuf[256] = {0}, rbuf[256];
    MPI_Status st;
    if (sender) {
        CHECK_MPI(MPI_Send(sbuf, 2, MPI_FLOAT, to, 1, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(sbuf, 3, MPI_FLOAT, to, 2, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(sbuf, 1, onehalf, to, 3, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(sbuf, 2, rec, to, 4, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(sbuf, 3, MPI_DOUBLE_INT, to, 5, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(sbuf, 1, pairhalf, to, 6, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(sbuf, 6, MPI_BYTE, to, 7, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(sbuf, 0, MPI_INT, to, 8, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(sbuf, 3, MPI_2INT, to, 9, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(sbuf, 5, MPI_INT, to, 10, MPI_COMM_WORLD));
    }
    if (receiver) {
        /* The standard's example. */
        CHECK_MPI(MPI_Recv(rbuf, 2, type2, from, 1, MPI_COMM_WORLD, &st));
        elements("2 floats as Type2", &st, type2, 1, 2);
        CHECK_MPI(MPI_Recv(rbuf, 2, type2, from, 2, MPI_COMM_WORLD, &st));
        elements("3 floats as Type2", &st, type2, MPI_UNDEFINED, 3);
        /* {int, double, char} + {int, double}: 5 elements, no whole count. */
        CHECK_MPI(MPI_Recv(rbuf, 2, rec, from, 3, MPI_COMM_WORLD, &st));
        elements("one and a half records", &st, rec, MPI_UNDEFINED, 5);
        CHECK_MPI(MPI_Recv(rbuf, 2, rec, from, 4, MPI_COMM_WORLD, &st));
        elements("two records", &st, rec, 2, 6);
        elements("two records as bytes", &st, MPI_BYTE, 2 * 13, 2 * 13);
        /* Pair types count two basic elements per item. */
        CHECK_MPI(MPI_Recv(rbuf, 3, MPI_DOUBLE_INT, from, 5, MPI_COMM_WORLD, &st));
        elements("3 DOUBLE_INT", &st, MPI_DOUBLE_INT, 3, 6);
        CHECK_MPI(MPI_Recv(rbuf, 3, MPI_DOUBLE_INT, from, 6, MPI_COMM_WORLD, &st));
        elements("2 DOUBLE_INT and a double", &st, MPI_DOUBLE_INT, MPI_UNDEFINED, 5);
        /* 6 bytes: one and a half ints. */
        CHECK_MPI(MPI_Recv(rbuf, 2, MPI_INT, from, 7, MPI_COMM_WORLD, &st));
        elements("6 bytes as ints", &st, MPI_INT, MPI_UNDEFINED, MPI_UNDEFINED);
        elements("6 bytes as a contiguous pair of floats", &st, type2, MPI_UNDEFINED,
                 MPI_UNDEFINED);
        CHECK_MPI(MPI_Recv(rbuf, 2, rec, from, 8, MPI_COMM_WORLD, &st));
        elements("0 bytes", &st, rec, 0, 0);
        elements("0 bytes, zero-size type", &st, empty, 0, 0);
        CHECK_MPI(MPI_Recv(rbuf, 3, MPI_2INT, from, 9, MPI_COMM_WORLD, &st));
        elements("3 2INT", &st, MPI_2INT, 3, 6);
        elements("3 2INT as ints", &st, MPI_INT, 6, 6);
        CHECK_MPI(MPI_Recv(rbuf, 3, MPI_2INT, from, 10, MPI_COMM_WORLD, &st));
        elements("5 ints as 2INT", &st, MPI_2INT, MPI_UNDEFINED, 5);
    }
    /* Errors. */
    int n;
    MPI_Status fake;
    memset(&fake, 0, sizeof fake);
    int rc = MPI_Get_elements(&fake, MPI_DATATYPE_NULL, &n);
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &rc);
    CHECK_INT(MPI_ERR_TYPE, rc, "Get_elements with MPI_DATATYPE_NULL");

    MPI_Type_free(&type2);
    MPI_Type_free(&rec);
    MPI_Type_free(&onehalf);
    MPI_Type_free(&pairhalf);
    MPI_Type_free(&empty);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("elements: OK\n");
    MPI_Finalize();
    return 0;
}
