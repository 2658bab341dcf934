/* MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size with "external32":
 * byte-exact big-endian IEEE encodings written out here by hand (integers of every width,
 * float, double, long double as binary128, complex, wchar, bool, a pair type, a struct with
 * a gap, a strided vector), the sizes, round trips, the packed bytes sent to the next rank
 * and unpacked there, and the error classes of a bad representation and short buffers. */
#include "../t_util.h"

#include <complex.h>
#include <stdbool.h>
#include <wchar.h>

static void check_bytes(const char *what, const unsigned char *want, const unsigned char *got,
                        int n)
{
    char w[160];
    for (int i = 0; i < n; i++)
        CHECK_INT(want[i], got[i], t_fmt(w, sizeof w, "%s: byte %d", what, i));
}

/* Packs count elements of dt from in, checks size and bytes, unpacks into out. */
static void one(const char *what, const void *in, int count, MPI_Datatype dt,
                const unsigned char *want, int nwant, void *out)
{
    char w[160];
    unsigned char buf[256];
    MPI_Aint size, pos = 0;
    CHECK_MPI(MPI_Pack_external_size("external32", count, dt, &size));
    CHECK_INT(nwant, size, t_fmt(w, sizeof w, "%s: Pack_external_size", what));
    CHECK_MPI(MPI_Pack_external("external32", in, count, dt, buf, sizeof buf, &pos));
    CHECK_INT(nwant, pos, t_fmt(w, sizeof w, "%s: position after packing", what));
    check_bytes(what, want, buf, nwant);
    pos = 0;
    CHECK_MPI(MPI_Unpack_external("external32", buf, nwant, &pos, out, count, dt));
    CHECK_INT(nwant, pos, t_fmt(w, sizeof w, "%s: position after unpacking", what));
}

static void check_class(int expected, int rc, const char *what)
{
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &rc);
    CHECK_INT(expected, rc, what);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    int i32 = 0x01020304, i32b;
    one("int", &i32, 1, MPI_INT, (const unsigned char[]){1, 2, 3, 4}, 4, &i32b);
    CHECK_INT(i32, i32b, "int round trip");

    short sh[2] = {-2, 0x1234}, shb[2];
    one("short", sh, 2, MPI_SHORT, (const unsigned char[]){0xff, 0xfe, 0x12, 0x34}, 4, shb);
    CHECK_INT(sh[1], shb[1], "short round trip");

    long l = 0x0102030405060708L, lb;
    one("long", &l, 1, MPI_LONG, (const unsigned char[]){1, 2, 3, 4, 5, 6, 7, 8}, 8, &lb);
    CHECK_INT(l, lb, "long round trip");

    uint64_t u = 0xfedcba9876543210ull, ub;
    one("uint64_t", &u, 1, MPI_UINT64_T,
        (const unsigned char[]){0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10}, 8, &ub);
    CHECK_TRUE(u == ub, "uint64_t round trip");

    float f = -2.5f, fb;
    one("float", &f, 1, MPI_FLOAT, (const unsigned char[]){0xc0, 0x20, 0, 0}, 4, &fb);
    CHECK_TRUE(f == fb, "float round trip");

    double d = 1.0, db;
    one("double", &d, 1, MPI_DOUBLE, (const unsigned char[]){0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, 8,
        &db);
    CHECK_TRUE(d == db, "double round trip");

    long double ld[2] = {1.0L, -0.375L}, ldb[2];
    one("long double", ld, 2, MPI_LONG_DOUBLE,
        (const unsigned char[]){0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                0xbf, 0xfd, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        32, ldb);
    CHECK_TRUE(ld[0] == ldb[0] && ld[1] == ldb[1], "long double round trip");
    long double third = 1.0L / 3.0L, thirdb;
    unsigned char tmp[16];
    MPI_Aint pos = 0;
    CHECK_MPI(MPI_Pack_external("external32", &third, 1, MPI_LONG_DOUBLE, tmp, 16, &pos));
    pos = 0;
    CHECK_MPI(MPI_Unpack_external("external32", tmp, 16, &pos, &thirdb, 1, MPI_LONG_DOUBLE));
    CHECK_TRUE(third == thirdb, "long double 1/3 round trip (binary128 holds it exactly)");

    double complex z = 1.0 + 2.0 * I, zb;
    one("double complex", &z, 1, MPI_C_DOUBLE_COMPLEX,
        (const unsigned char[]){0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0}, 16,
        &zb);
    CHECK_TRUE(z == zb, "complex round trip");

    wchar_t wc = L'A', wcb;
    one("wchar", &wc, 1, MPI_WCHAR, (const unsigned char[]){0, 0, 0, 0x41}, 4, &wcb);
    bool bo = true, bob = false;
    one("bool", &bo, 1, MPI_C_BOOL, (const unsigned char[]){1}, 1, &bob);
    CHECK_TRUE(bob, "bool round trip");

    struct {
        double v;
        int i;
    } di = {2.0, 7}, dib;
    one("DOUBLE_INT", &di, 1, MPI_DOUBLE_INT,
        (const unsigned char[]){0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7}, 12, &dib);
    CHECK_TRUE(dib.v == 2.0 && dib.i == 7, "DOUBLE_INT round trip");

    /* {char, (gap), int} */
    struct {
        char c;
        int i;
    } s = {'x', 5}, sb = {0, 0};
    int bl[] = {1, 1};
    MPI_Aint disp[] = {0, 4};
    MPI_Datatype ts[] = {MPI_CHAR, MPI_INT}, st;
    CHECK_MPI(MPI_Type_create_struct(2, bl, disp, ts, &st));
    CHECK_MPI(MPI_Type_commit(&st));
    one("struct {char, int}", &s, 1, st, (const unsigned char[]){'x', 0, 0, 0, 5}, 5, &sb);
    CHECK_TRUE(sb.c == 'x' && sb.i == 5, "struct round trip");

    /* Every other short of 3 (the vector's extent), twice: shorts 0, 2, 3, 5. */
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_SHORT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    short arr[8] = {0x0102, -1, 0x0304, 0x0506, -1, 0x0708, -1, -1}, arrb[8] = {0};
    one("vector of shorts", arr, 2, vec, (const unsigned char[]){1, 2, 3, 4, 5, 6, 7, 8}, 8,
        arrb);
    CHECK_INT(0, arrb[1], "vector unpack leaves the gap");
    CHECK_INT(0, arrb[4], "vector unpack leaves the gap");
    CHECK_INT(0x0708, arrb[5], "vector round trip");

    /* The external bytes travel to the next rank and are unpacked there. */
    int vals[5] = {t_rank, -t_rank, 0x7fffffff, 42, t_rank * 1000}, rv[5];
    unsigned char out[20], in[20];
    pos = 0;
    CHECK_MPI(MPI_Pack_external("external32", vals, 5, MPI_INT, out, 20, &pos));
    int next = (t_rank + 1) % t_size, prev = (t_rank + t_size - 1) % t_size;
    CHECK_MPI(MPI_Sendrecv(out, 20, MPI_BYTE, next, 0, in, 20, MPI_BYTE, prev, 0, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK_INT(prev * 1000 >> 24 & 0xff, in[16], "received external32 int: first byte");
    pos = 0;
    CHECK_MPI(MPI_Unpack_external("external32", in, 20, &pos, rv, 5, MPI_INT));
    CHECK_INT(-prev, rv[1], "unpacked from the previous rank");
    CHECK_INT(prev * 1000, rv[4], "unpacked from the previous rank");

    /* Errors. */
    MPI_Aint sz;
    pos = 0;
    check_class(MPI_ERR_ARG, MPI_Pack_external("native", vals, 1, MPI_INT, out, 20, &pos),
                "Pack_external(\"native\")");
    check_class(MPI_ERR_ARG, MPI_Pack_external_size("big-endian", 1, MPI_INT, &sz),
                "Pack_external_size(\"big-endian\")");
    pos = 8;
    check_class(MPI_ERR_TRUNCATE,
                MPI_Pack_external("external32", vals, 4, MPI_INT, out, 20, &pos),
                "Pack_external past the buffer's end");
    CHECK_INT(8, pos, "position unchanged by a failed pack");
    pos = 0;
    check_class(MPI_ERR_TRUNCATE,
                MPI_Unpack_external("external32", in, 19, &pos, rv, 5, MPI_INT),
                "Unpack_external of more than the buffer holds");
    check_class(MPI_ERR_TYPE,
                MPI_Pack_external("external32", vals, 1, MPI_DATATYPE_NULL, out, 20, &pos),
                "Pack_external of MPI_DATATYPE_NULL");
    check_class(MPI_ERR_COUNT, MPI_Pack_external("external32", vals, -1, MPI_INT, out, 20, &pos),
                "Pack_external with a negative count");

    MPI_Type_free(&st);
    MPI_Type_free(&vec);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("external32: OK\n");
    MPI_Finalize();
    return 0;
}
