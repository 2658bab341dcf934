/* File views with derived filetypes, collective against independent access.
 *
 * 1. Vector filetype (each rank owns every size-th block of B ints, after a displacement of
 *    D bytes), etype MPI_INT: written collectively into file A and independently into file B,
 *    with several small cb_buffer_size rounds and every rank an aggregator (cb_nodes = size);
 *    A and B must be byte-identical and equal to the expected interleaving; the bytes before
 *    the displacement (prefilled) stay untouched. Read back with read_all and read (both
 *    must give every rank its own data), and each rank reads another rank's data through its
 *    view with read_at_all.
 * 2. Subarray filetype: a global N x M array of doubles split in 2-D blocks over a process
 *    grid, written with write_all, checked by rank 0 reading the whole file with the default
 *    view; holes: a view that skips every other element of a prefilled file leaves the
 *    skipped bytes as they were.
 * 3. get_view returns what set_view set; get_byte_offset follows the view; get_type_extent.
 * 4. A memory datatype that is not contiguous (a strided vector in memory) on a contiguous
 *    file view. */
#include "mpi/io/t_io.h"

#define B 7    /* ints per block */
#define NB 500 /* blocks per rank */
#define D 100  /* displacement in bytes */

static int expect_int(int owner, int k, int i)
{
    return owner * 1000003 + k * 101 + i;
}

static void check_same_files(const char *a, const char *b, long long len)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    if (fa == NULL || fb == NULL)
        t_fail("cannot open %s or %s", a, b);
    for (long long i = 0; i < len; i++) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb)
            t_fail("collective file and independent file differ at byte %lld: %d against %d",
                   i, ca, cb);
    }
    fclose(fa);
    fclose(fb);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    char na[256], nb[256];
    t_io_name(na, sizeof(na), "views-coll");
    t_io_name(nb, sizeof(nb), "views-indep");
    MPI_File fa, fb;
    MPI_Status st;
    MPI_Info info;
    MPI_Info_create(&info);
    char v[32];
    snprintf(v, sizeof(v), "%d", t_size);
    MPI_Info_set(info, "cb_nodes", v);
    MPI_Info_set(info, "cb_buffer_size", "8192");
    T_OK(MPI_File_open(MPI_COMM_WORLD, na, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fa));
    T_OK(MPI_File_open(MPI_COMM_WORLD, nb, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fb));
    MPI_Info used;
    int flag = 0;
    T_OK(MPI_File_get_info(fa, &used));
    MPI_Info_get(used, "cb_nodes", sizeof(v) - 1, v, &flag);
    CHECK_INT(1, flag, "cb_nodes reported by MPI_File_get_info");
    CHECK_INT(t_size, atoi(v), "cb_nodes honoured");
    MPI_Info_get(used, "cb_buffer_size", sizeof(v) - 1, v, &flag);
    CHECK_INT(8192, atoi(v), "cb_buffer_size honoured");
    MPI_Info_free(&used);

    /* Prefill the displacement with a pattern that must survive. */
    unsigned char pre[D];
    for (int i = 0; i < D; i++)
        pre[i] = t_io_byte(i, 9);
    if (t_rank == 0) {
        T_OK(MPI_File_write_at(fa, 0, pre, D, MPI_BYTE, &st));
        T_OK(MPI_File_write_at(fb, 0, pre, D, MPI_BYTE, &st));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 1. vector filetype */
    MPI_Datatype vec, ft;
    MPI_Type_vector(1, B, B * t_size, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)sizeof(int) * B * t_size, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&vec);
    MPI_Offset disp = D + (MPI_Offset)sizeof(int) * B * t_rank;
    T_OK(MPI_File_set_view(fa, disp, MPI_INT, ft, "native", MPI_INFO_NULL));
    T_OK(MPI_File_set_view(fb, disp, MPI_INT, ft, "native", MPI_INFO_NULL));
    int *data = malloc(sizeof(int) * 8192), *in = malloc(sizeof(int) * B * NB);
    for (int k = 0; k < NB; k++)
        for (int i = 0; i < B; i++)
            data[k * B + i] = expect_int(t_rank, k, i);
    T_OK(MPI_File_write_all(fa, data, B * NB, MPI_INT, &st));
    CHECK_INT(B * NB * (int)sizeof(int), t_io_count(&st), "bytes of write_all");
    /* independent, in two parts through the individual pointer */
    T_OK(MPI_File_write(fb, data, B * NB / 2, MPI_INT, &st));
    T_OK(MPI_File_write(fb, data + B * NB / 2, B * NB - B * NB / 2, MPI_INT, &st));
    MPI_Offset pos;
    T_OK(MPI_File_get_position(fa, &pos));
    CHECK_INT(B * NB, pos, "individual pointer after write_all, in etypes");
    MPI_File_sync(fa);
    MPI_File_sync(fb);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fa);
    MPI_File_sync(fb);
    long long total = D + (long long)sizeof(int) * B * NB * t_size;
    MPI_Offset size;
    T_OK(MPI_File_get_size(fa, &size));
    CHECK_INT(total, size, "size of the collectively written file");
    if (t_rank == 0) {
        check_same_files(na, nb, total);
        /* and the interleaving itself, through the default view */
        FILE *f = fopen(na, "rb");
        unsigned char head[D];
        if (fread(head, 1, D, f) != D || memcmp(head, pre, D) != 0)
            t_fail("the bytes before the view's displacement changed");
        for (int k = 0; k < NB; k++)
            for (int r = 0; r < t_size; r++)
                for (int i = 0; i < B; i++) {
                    int x;
                    if (fread(&x, sizeof(x), 1, f) != 1)
                        t_fail("short file");
                    if (x != expect_int(r, k, i))
                        t_fail("int %d of block %d of rank %d: expected %d, got %d", i, k, r,
                               expect_int(r, k, i), x);
                }
        fclose(f);
    }
    /* read back: collective with the individual pointer, independent, explicit offsets */
    T_OK(MPI_File_seek(fa, 0, MPI_SEEK_SET));
    memset(in, 0, sizeof(int) * B * NB);
    T_OK(MPI_File_read_all(fa, in, B * NB, MPI_INT, &st));
    CHECK_INT(B * NB * (int)sizeof(int), t_io_count(&st), "bytes of read_all");
    for (int j = 0; j < B * NB; j++)
        if (in[j] != data[j])
            t_fail("read_all: int %d: expected %d, got %d", j, data[j], in[j]);
    memset(in, 0, sizeof(int) * B * NB);
    T_OK(MPI_File_read_at(fb, 0, in, B * NB, MPI_INT, &st));
    for (int j = 0; j < B * NB; j++)
        if (in[j] != data[j])
            t_fail("read_at: int %d: expected %d, got %d", j, data[j], in[j]);
    /* another rank's data: its view, collectively, from etype 3 on */
    int other = (t_rank + 1) % t_size;
    T_OK(MPI_File_set_view(fa, D + (MPI_Offset)sizeof(int) * B * other, MPI_INT, ft, "native",
                           MPI_INFO_NULL));
    memset(in, 0, sizeof(int) * B * NB);
    T_OK(MPI_File_read_at_all(fa, 3, in, B * NB - 3, MPI_INT, &st));
    for (int j = 3; j < B * NB; j++)
        if (in[j - 3] != expect_int(other, j / B, j % B))
            t_fail("read_at_all of rank %d's data: int %d: expected %d, got %d", other, j,
                   expect_int(other, j / B, j % B), in[j - 3]);

    /* 3. get_view, get_byte_offset, get_type_extent */
    MPI_Offset gd;
    MPI_Datatype ge, gf;
    char rep[MPI_MAX_DATAREP_STRING];
    T_OK(MPI_File_get_view(fa, &gd, &ge, &gf, rep));
    CHECK_INT(D + (MPI_Offset)sizeof(int) * B * other, gd, "displacement of get_view");
    if (ge != MPI_INT || strcmp(rep, "native") != 0)
        t_fail("get_view: etype or representation differ (%s)", rep);
    int gsize;
    MPI_Aint glb, gext;
    MPI_Type_size(gf, &gsize);
    MPI_Type_get_extent(gf, &glb, &gext);
    CHECK_INT((int)sizeof(int) * B, gsize, "size of get_view's filetype");
    CHECK_INT((long)sizeof(int) * B * t_size, gext, "extent of get_view's filetype");
    MPI_Type_free(&gf);
    MPI_Offset bo;
    T_OK(MPI_File_get_byte_offset(fa, B + 2, &bo));
    CHECK_INT(gd + (long long)sizeof(int) * (B * t_size + 2), bo, "get_byte_offset of etype B+2");
    MPI_Aint fext;
    T_OK(MPI_File_get_type_extent(fa, ft, &fext));
    CHECK_INT(gext, fext, "MPI_File_get_type_extent");
    T_OK(MPI_File_close(&fa));
    T_OK(MPI_File_close(&fb));
    MPI_Type_free(&ft);
    if (t_rank == 0) {
        MPI_File_delete(na, MPI_INFO_NULL);
        MPI_File_delete(nb, MPI_INFO_NULL);
    }

    /* 2. subarray: a 2-D block distribution of a 60 x 84 array of doubles */
    int dims[2] = {0, 0};
    MPI_Dims_create(t_size, 2, dims);
    int gs[2] = {60, 84}, ls[2] = {60 / dims[0], 84 / dims[1]};
    int starts[2] = {(t_rank / dims[1]) * ls[0], (t_rank % dims[1]) * ls[1]};
    MPI_Datatype sub;
    MPI_Type_create_subarray(2, gs, ls, starts, MPI_ORDER_C, MPI_DOUBLE, &sub);
    MPI_Type_commit(&sub);
    double *loc = malloc(sizeof(double) * ls[0] * ls[1]);
    for (int i = 0; i < ls[0]; i++)
        for (int j = 0; j < ls[1]; j++)
            loc[i * ls[1] + j] = (starts[0] + i) * 1000.0 + starts[1] + j;
    T_OK(MPI_File_open(MPI_COMM_WORLD, na, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fa));
    T_OK(MPI_File_set_view(fa, 0, MPI_DOUBLE, sub, "native", MPI_INFO_NULL));
    T_OK(MPI_File_write_all(fa, loc, ls[0] * ls[1], MPI_DOUBLE, &st));
    MPI_File_sync(fa);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fa);
    if (t_rank == 0) {
        double *all = malloc(sizeof(double) * 60 * 84);
        FILE *f = fopen(na, "rb");
        if (fread(all, sizeof(double), 60 * 84, f) != 60 * 84)
            t_fail("subarray file is short");
        fclose(f);
        for (int i = 0; i < 60; i++)
            for (int j = 0; j < 84; j++)
                if (all[i * 84 + j] != i * 1000.0 + j)
                    t_fail("subarray element (%d,%d): expected %g, got %g", i, j,
                           i * 1000.0 + j, all[i * 84 + j]);
        free(all);
    }
    /* read it back collectively with a strided memory type: every other double */
    MPI_Datatype strided;
    MPI_Type_vector(ls[0] * ls[1], 1, 2, MPI_DOUBLE, &strided);
    MPI_Type_commit(&strided);
    double *wide = calloc((size_t)2 * ls[0] * ls[1], sizeof(double));
    for (int i = 0; i < 2 * ls[0] * ls[1]; i++)
        wide[i] = -1;
    T_OK(MPI_File_read_at_all(fa, 0, wide, 1, strided, &st));
    for (int i = 0; i < ls[0] * ls[1]; i++) {
        if (wide[2 * i] != loc[i])
            t_fail("strided read_at_all: element %d: expected %g, got %g", i, loc[i], wide[2 * i]);
        if (i + 1 < ls[0] * ls[1] && wide[2 * i + 1] != -1)
            t_fail("strided read_at_all wrote into a gap of the memory type at %d", i);
    }
    T_OK(MPI_File_close(&fa));
    MPI_Type_free(&sub);
    MPI_Type_free(&strided);

    /* Holes: prefill, then a view of every other int written collectively. */
    MPI_Barrier(MPI_COMM_WORLD);
    T_OK(MPI_File_open(MPI_COMM_WORLD, na, MPI_MODE_RDWR, MPI_INFO_NULL, &fa));
    T_OK(MPI_File_set_size(fa, 0));
    int n = 4096;
    if (t_rank == 0) {
        int *fill = malloc(sizeof(int) * 2 * n * t_size);
        for (int i = 0; i < 2 * n * t_size; i++)
            fill[i] = -i;
        T_OK(MPI_File_write_at(fa, 0, fill, 2 * n * t_size, MPI_INT, &st));
        free(fill);
    }
    MPI_File_sync(fa);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fa);
    MPI_Datatype every2, every2r;
    MPI_Type_vector(1, 1, 2, MPI_INT, &every2);
    MPI_Type_create_resized(every2, 0, 2 * sizeof(int), &every2r);
    MPI_Type_commit(&every2r);
    MPI_Type_free(&every2);
    T_OK(MPI_File_set_view(fa, (MPI_Offset)sizeof(int) * 2 * n * t_rank, MPI_INT, every2r,
                           "native", MPI_INFO_NULL));
    for (int i = 0; i < n; i++)
        data[i] = 7000000 + t_rank * n + i;
    T_OK(MPI_File_write_at_all(fa, 0, data, n, MPI_INT, &st));
    T_OK(MPI_File_close(&fa));
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0) {
        FILE *f = fopen(na, "rb");
        for (int i = 0; i < 2 * n * t_size; i++) {
            int x;
            if (fread(&x, sizeof(x), 1, f) != 1)
                t_fail("holes file short");
            int want = i % 2 ? -i : 7000000 + i / 2;
            if (x != want)
                t_fail("holes: int %d: expected %d, got %d", i, want, x);
        }
        fclose(f);
        T_OK(MPI_File_delete(na, MPI_INFO_NULL));
    }
    MPI_Type_free(&every2r);
    MPI_Info_free(&info);
    free(data);
    free(in);
    free(loc);
    free(wide);
    MPI_Finalize();
    return 0;
}
