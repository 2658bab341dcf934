/* Data representations: "external32" (big-endian on the file), "internal" (as native), and a
 * representation registered with MPI_Register_datarep whose conversion functions negate
 * every int on the way to the file and back.
 *
 * Each rank writes ints and doubles through an external32 view collectively; the raw bytes
 * read back through a native byte view must be the big-endian encoding, and reading through
 * the external32 view again gives the values. The registered representation's file holds
 * the negated ints, and reading through it gives the values. */
#include "mpi/io/t_io.h"

#define N 1000

static int neg_calls;

static int to_file(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset pos,
                   void *extra)
{
    (void)pos, (void)extra;
    if (dt != MPI_INT)
        return MPI_ERR_TYPE;
    for (int i = 0; i < count; i++)
        ((int *)filebuf)[i] = -((int *)userbuf)[i];
    neg_calls++;
    return MPI_SUCCESS;
}

static int from_file(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset pos,
                     void *extra)
{
    return to_file(filebuf, dt, count, userbuf, pos, extra);
}

static int extent_fn(MPI_Datatype dt, MPI_Aint *ext, void *extra)
{
    (void)extra;
    MPI_Aint lb;
    return MPI_Type_get_extent(dt, &lb, ext);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    char name[256];
    t_io_name(name, sizeof(name), "ext32");
    MPI_File fh;
    MPI_Status st;
    int *v = malloc(sizeof(int) * N), *in = malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++)
        v[i] = 0x01020304 * (t_rank + 1) + i;
    T_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Offset base = (MPI_Offset)t_rank * N * 4;
    T_OK(MPI_File_set_view(fh, base, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset d;
    MPI_Datatype e, f;
    T_OK(MPI_File_get_view(fh, &d, &e, &f, rep));
    if (strcmp(rep, "external32") != 0)
        t_fail("get_view: expected external32, got %s", rep);
    MPI_Aint ext;
    T_OK(MPI_File_get_type_extent(fh, MPI_INT, &ext));
    CHECK_INT(4, ext, "file extent of MPI_INT in external32");
    T_OK(MPI_File_write_all(fh, v, N, MPI_INT, &st));
    CHECK_INT(N * 4, t_io_count(&st), "bytes of an external32 write_all");
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    /* The raw bytes: big-endian. */
    T_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    unsigned char *raw = malloc(N * 4);
    T_OK(MPI_File_read_at(fh, base, raw, N * 4, MPI_BYTE, &st));
    for (int i = 0; i < N; i++) {
        unsigned x = (unsigned)v[i];
        unsigned char be[4] = {(unsigned char)(x >> 24), (unsigned char)(x >> 16),
                               (unsigned char)(x >> 8), (unsigned char)x};
        if (memcmp(raw + 4 * i, be, 4) != 0)
            t_fail("external32 int %d is not big-endian on the file", i);
    }
    /* Back through external32, independently, from another rank's part. */
    int other = (t_rank + 1) % t_size;
    T_OK(MPI_File_set_view(fh, (MPI_Offset)other * N * 4, MPI_INT, MPI_INT, "external32",
                           MPI_INFO_NULL));
    T_OK(MPI_File_read_at(fh, 0, in, N, MPI_INT, &st));
    for (int i = 0; i < N; i++)
        if (in[i] != 0x01020304 * (other + 1) + i)
            t_fail("external32 read of rank %d's int %d: expected %d, got %d", other, i,
                   0x01020304 * (other + 1) + i, in[i]);
    /* "internal" is native here. */
    T_OK(MPI_File_set_view(fh, base, MPI_INT, MPI_INT, "internal", MPI_INFO_NULL));
    T_OK(MPI_File_write_at(fh, 0, v, N, MPI_INT, &st));
    /* Bytes that make whole etypes do; a partial etype is MPI_ERR_TYPE. */
    T_CLASS(MPI_ERR_TYPE, MPI_File_read_at(fh, 0, raw, N * 4 - 1, MPI_BYTE, &st));
    T_OK(MPI_File_read_at(fh, 0, raw, N * 4, MPI_BYTE, &st));
    if (memcmp(raw, v, N * 4) != 0)
        t_fail("internal view read as bytes: not the native bytes");
    T_OK(MPI_File_set_view(fh, base, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    T_OK(MPI_File_read_at(fh, 0, raw, N * 4, MPI_BYTE, &st));
    if (memcmp(raw, v, N * 4) != 0)
        t_fail("the internal representation is not the native bytes");

    /* A registered representation: ints negated on the file. */
    T_OK(MPI_Register_datarep("ivc-negate", from_file, to_file, extent_fn, NULL));
    T_OK(MPI_File_set_view(fh, base, MPI_INT, MPI_INT, "ivc-negate", MPI_INFO_NULL));
    T_OK(MPI_File_write_at(fh, 0, v, N, MPI_INT, &st));
    if (neg_calls == 0)
        t_fail("the write conversion function was not called");
    T_OK(MPI_File_set_view(fh, base, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    T_OK(MPI_File_read_at(fh, 0, in, N, MPI_INT, &st));
    for (int i = 0; i < N; i++)
        if (in[i] != -v[i])
            t_fail("registered representation: int %d on the file: expected %d, got %d", i,
                   -v[i], in[i]);
    T_OK(MPI_File_set_view(fh, base, MPI_INT, MPI_INT, "ivc-negate", MPI_INFO_NULL));
    memset(in, 0, sizeof(int) * N);
    T_OK(MPI_File_read_at(fh, 0, in, N, MPI_INT, &st));
    for (int i = 0; i < N; i++)
        if (in[i] != v[i])
            t_fail("registered representation: int %d read back: expected %d, got %d", i, v[i],
                   in[i]);
    T_OK(MPI_File_close(&fh));
    if (t_rank == 0)
        T_OK(MPI_File_delete(name, MPI_INFO_NULL));
    free(v);
    free(in);
    free(raw);
    MPI_Finalize();
    return 0;
}
