/* datatypes: derived datatypes.
 *
 *  - Type_size and Type_get_extent (lb, extent) of basic types and of contiguous,
 *    vector (also with a negative stride), hvector, indexed (also with lb > 0),
 *    create_struct (with gaps and padding), vector-of-struct and contiguous-of-vector.
 *  - Rank 0 <-> rank 1 transfers, derived on one side and contiguous on the other, in
 *    both directions, with counts large enough to cross any rendezvous threshold; the
 *    receiver checks every element and that gaps/padding it did not receive into are
 *    untouched.
 *  - Get_count with derived types: whole elements, and MPI_UNDEFINED for a partial one.
 *  - Freeing: a type built from a freed type still works; a type freed while an Isend
 *    using it is pending still delivers; Type_free sets the handle to MPI_DATATYPE_NULL.
 */
#include "t_util.h"

#define FILL_INT (-77777)

/* --lenient: leave out what MPICH 4.0.2/UCX gets wrong (see d1/d2 below). */
static int lenient = 0;
#define GAPBYTE 0xee

typedef struct {
    int a;
    double d;
    char c[3];
    char pad;
    int e;
} S;
#define S_PACKED 19 /* a + d + c[3] + e, without the padding and the gap after a */

static void check_type(MPI_Datatype t, int size, MPI_Aint lb, MPI_Aint extent, const char *name)
{
    int sz = -1;
    MPI_Aint l = -1, e = -1;
    char what[120];
    MPI_Type_size(t, &sz);
    MPI_Type_get_extent(t, &l, &e);
    CHECK_INT(size, sz, t_fmt(what, sizeof what, "Type_size(%s)", name));
    CHECK_INT(lb, l, t_fmt(what, sizeof what, "Type_get_extent(%s) lb", name));
    CHECK_INT(extent, e, t_fmt(what, sizeof what, "Type_get_extent(%s) extent", name));
}

static int ival(int i)
{
    return (int)(t_mix64((uint64_t)i + 12345) & 0x3fffffff);
}

static void s_make(S *s, int i)
{
    memset(s, GAPBYTE, sizeof *s);
    s->a = ival(4 * i);
    s->d = (double)ival(4 * i + 1) / 7.0;
    s->c[0] = (char)('a' + i % 26);
    s->c[1] = (char)('A' + i % 26);
    s->c[2] = (char)('0' + i % 10);
    s->e = ival(4 * i + 3);
}

static void s_pack(unsigned char *p, const S *s)
{
    memcpy(p, &s->a, 4);
    memcpy(p + 4, &s->d, 8);
    memcpy(p + 12, s->c, 3);
    memcpy(p + 15, &s->e, 4);
}

static void s_check(const S *got, int i, int check_gaps, const char *what)
{
    S want;
    char w[200];
    s_make(&want, i);
    CHECK_INT(want.a, got->a, t_fmt(w, sizeof w, "%s: element %d field a", what, i));
    CHECK_TRUE(want.d == got->d, t_fmt(w, sizeof w, "%s: element %d field d", what, i));
    CHECK_INT(want.c[0], got->c[0], t_fmt(w, sizeof w, "%s: element %d field c[0]", what, i));
    CHECK_INT(want.c[1], got->c[1], t_fmt(w, sizeof w, "%s: element %d field c[1]", what, i));
    CHECK_INT(want.c[2], got->c[2], t_fmt(w, sizeof w, "%s: element %d field c[2]", what, i));
    CHECK_INT(want.e, got->e, t_fmt(w, sizeof w, "%s: element %d field e", what, i));
    if (check_gaps) {
        CHECK_INT(GAPBYTE, (unsigned char)got->pad,
                  t_fmt(w, sizeof w, "%s: element %d padding byte", what, i));
        t_check_bytes((const unsigned char *)got + 4, 4, GAPBYTE,
                      t_fmt(w, sizeof w, "%s: element %d gap after a", what, i));
    }
}

static MPI_Datatype make_struct(void)
{
    MPI_Datatype t;
    int bl[4] = {1, 1, 3, 1};
    MPI_Aint disp[4] = {offsetof(S, a), offsetof(S, d), offsetof(S, c), offsetof(S, e)};
    MPI_Datatype types[4] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_INT};
    MPI_Type_create_struct(4, bl, disp, types, &t);
    return t;
}

int main(int argc, char **argv)
{
    MPI_Datatype contig5, vec, hvec, idx, idx_lb, negvec, st, vecst, contvec, vint, ct3;
    MPI_Status status;
    char what[160];
    int i;

    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    if (argc > 1 && strcmp(argv[1], "--lenient") == 0)
        lenient = 1;

    /* ---- sizes and extents -------------------------------------------------------- */
    check_type(MPI_CHAR, 1, 0, 1, "MPI_CHAR");
    check_type(MPI_BYTE, 1, 0, 1, "MPI_BYTE");
    check_type(MPI_SHORT, sizeof(short), 0, sizeof(short), "MPI_SHORT");
    check_type(MPI_INT, sizeof(int), 0, sizeof(int), "MPI_INT");
    check_type(MPI_UNSIGNED, sizeof(unsigned), 0, sizeof(unsigned), "MPI_UNSIGNED");
    check_type(MPI_LONG, sizeof(long), 0, sizeof(long), "MPI_LONG");
    check_type(MPI_LONG_LONG, sizeof(long long), 0, sizeof(long long), "MPI_LONG_LONG");
    check_type(MPI_FLOAT, sizeof(float), 0, sizeof(float), "MPI_FLOAT");
    check_type(MPI_DOUBLE, sizeof(double), 0, sizeof(double), "MPI_DOUBLE");

    MPI_Type_contiguous(5, MPI_INT, &contig5);
    MPI_Type_commit(&contig5);
    check_type(contig5, 20, 0, 20, "contiguous(5, INT)");

    MPI_Type_vector(4, 3, 5, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    check_type(vec, 4 * 3 * 8, 0, (3 * 5 + 3) * 8, "vector(4, 3, 5, DOUBLE)");

    MPI_Type_create_hvector(3, 2, 40, MPI_INT, &hvec);
    MPI_Type_commit(&hvec);
    check_type(hvec, 3 * 2 * 4, 0, 2 * 40 + 8, "hvector(3, 2, 40 B, INT)");

    {
        int bl[3] = {2, 1, 3}, dp[3] = {0, 5, 9};
        MPI_Type_indexed(3, bl, dp, MPI_INT, &idx);
        MPI_Type_commit(&idx);
        check_type(idx, 6 * 4, 0, 12 * 4, "indexed({2,1,3}, {0,5,9}, INT)");
    }
    {
        int bl[2] = {1, 2}, dp[2] = {2, 6};
        MPI_Type_indexed(2, bl, dp, MPI_INT, &idx_lb);
        MPI_Type_commit(&idx_lb);
        check_type(idx_lb, 3 * 4, 8, 6 * 4, "indexed({1,2}, {2,6}, INT)");
    }
    MPI_Type_vector(3, 1, -2, MPI_INT, &negvec);
    MPI_Type_commit(&negvec);
    check_type(negvec, 12, -16, 20, "vector(3, 1, -2, INT)");

    st = make_struct();
    MPI_Type_commit(&st);
    check_type(st, S_PACKED, 0, sizeof(S), "struct{int; double; char[3]; int}");
    CHECK_INT(24, sizeof(S), "sizeof(S) on this ABI");

    MPI_Type_vector(3, 2, 3, st, &vecst);
    MPI_Type_commit(&vecst);
    check_type(vecst, 3 * 2 * S_PACKED, 0, (2 * 3 + 2) * (MPI_Aint)sizeof(S),
               "vector(3, 2, 3, struct)");

    MPI_Type_contiguous(2, vec, &contvec);
    MPI_Type_commit(&contvec);
    check_type(contvec, 2 * 96, 0, 2 * 144, "contiguous(2, vector)");

    MPI_Type_contiguous(3, MPI_INT, &ct3);
    MPI_Type_commit(&ct3);

    /* ---- a) vector of ints -> contiguous ints (rank 0 -> 1), 240 KB --------------- */
    {
        enum { NB = 20000, BL = 3, STRIDE = 7 };
        MPI_Type_vector(NB, BL, STRIDE, MPI_INT, &vint);
        MPI_Type_commit(&vint);
        check_type(vint, NB * BL * 4, 0, ((NB - 1) * STRIDE + BL) * 4, "vector(20000, 3, 7, INT)");
        if (t_rank == 0) {
            int *src = t_malloc(sizeof(int) * NB * STRIDE);
            for (i = 0; i < NB * STRIDE; i++)
                src[i] = ival(i);
            MPI_Send(src, 1, vint, 1, 1, MPI_COMM_WORLD);
            /* b) reverse: contiguous -> vector, gaps untouched */
            for (i = 0; i < NB * STRIDE; i++)
                src[i] = FILL_INT;
            MPI_Recv(src, 1, vint, 1, 2, MPI_COMM_WORLD, &status);
            CHECK_INT(1, t_count(&status, vint), "b) Get_count(vector) of contiguous ints");
            CHECK_INT(NB * BL, t_count(&status, MPI_INT), "b) Get_count(INT)");
            for (i = 0; i < NB * STRIDE; i++) {
                int blk = i / STRIDE, off = i % STRIDE;
                int want = off < BL ? -ival(blk * BL + off) : FILL_INT;
                CHECK_INT(want, src[i],
                          t_fmt(what, sizeof what, "b) contiguous->vector: int %d", i));
            }
            free(src);
        } else if (t_rank == 1) {
            int *dst = t_malloc(sizeof(int) * NB * BL);
            MPI_Recv(dst, NB * BL, MPI_INT, 0, 1, MPI_COMM_WORLD, &status);
            CHECK_INT(NB * BL, t_count(&status, MPI_INT), "a) Get_count(INT) of a vector message");
            CHECK_INT(NB, t_count(&status, ct3), "a) Get_count(contiguous(3, INT))");
            for (i = 0; i < NB * BL; i++)
                CHECK_INT(ival((i / BL) * STRIDE + i % BL), dst[i],
                          t_fmt(what, sizeof what, "a) vector->contiguous: int %d", i));
            for (i = 0; i < NB * BL; i++)
                dst[i] = -ival(i);
            MPI_Send(dst, NB * BL, MPI_INT, 0, 2, MPI_COMM_WORLD);
            free(dst);
        }
    }

    /* ---- c) struct array -> packed bytes (0 -> 1), 95 KB;
     *      d1) bytes -> struct array (1 -> 0), 95 KB;
     *      d2) packed data described by a 20000-block struct type (same signature, but
     *          contiguous) -> struct array (1 -> 0), 95 KB.
     * MPICH 4.0.2 over UCX fails d1 and d2 with a false MPI_ERR_TRUNCATE once the message
     * is above ~16 KB; with --lenient, d1 sends only 400 structs and d2 is left out. --- */
    {
        enum { NS = 5000 };
        int NSB = lenient ? 400 : NS;
        if (t_rank == 0) {
            S *arr = t_malloc(sizeof(S) * NS);
            for (i = 0; i < NS; i++)
                s_make(&arr[i], i);
            MPI_Send(arr, NS, st, 1, 3, MPI_COMM_WORLD);
            memset(arr, GAPBYTE, sizeof(S) * NS);
            MPI_Recv(arr, NS, st, 1, 4, MPI_COMM_WORLD, &status);
            CHECK_INT(NSB, t_count(&status, st), "d1) Get_count(struct)");
            CHECK_INT(NSB * S_PACKED, t_count(&status, MPI_BYTE), "d1) Get_count(BYTE)");
            for (i = 0; i < NSB; i++)
                s_check(&arr[i], i, 1, "d1) bytes->struct");
            t_check_bytes(arr + NSB, sizeof(S) * (NS - NSB), GAPBYTE,
                          "d1) structs past the message");
            if (!lenient) {
                memset(arr, GAPBYTE, sizeof(S) * NS);
                MPI_Recv(arr, NS, st, 1, 5, MPI_COMM_WORLD, &status);
                CHECK_INT(NS, t_count(&status, st), "d2) Get_count(struct)");
                for (i = 0; i < NS; i++)
                    s_check(&arr[i], i, 1, "d2) packed struct->struct");
            }
            free(arr);
        } else if (t_rank == 1) {
            unsigned char *b = t_malloc((size_t)NS * S_PACKED);
            S tmp;
            MPI_Datatype packed;
            int *bl = t_malloc(sizeof(int) * 4 * NS);
            MPI_Aint *dp = t_malloc(sizeof(MPI_Aint) * 4 * NS);
            MPI_Datatype *ty = t_malloc(sizeof(MPI_Datatype) * 4 * NS);
            MPI_Recv(b, NS * S_PACKED, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &status);
            CHECK_INT(NS * S_PACKED, t_count(&status, MPI_BYTE),
                      "c) Get_count(BYTE) of a struct message");
            for (i = 0; i < NS; i++) {
                unsigned char want[S_PACKED];
                s_make(&tmp, i);
                s_pack(want, &tmp);
                if (memcmp(want, b + (size_t)i * S_PACKED, S_PACKED) != 0) {
                    int j;
                    for (j = 0; want[j] == b[(size_t)i * S_PACKED + j]; j++) {
                    }
                    t_fail("c) struct->bytes: element %d byte %d: expected 0x%02x, got 0x%02x", i,
                           j, want[j], b[(size_t)i * S_PACKED + j]);
                }
            }
            MPI_Send(b, NSB * S_PACKED, MPI_BYTE, 0, 4, MPI_COMM_WORLD);
            for (i = 0; i < NS; i++) {
                MPI_Aint base = (MPI_Aint)i * S_PACKED;
                bl[4 * i] = 1, dp[4 * i] = base, ty[4 * i] = MPI_INT;
                bl[4 * i + 1] = 1, dp[4 * i + 1] = base + 4, ty[4 * i + 1] = MPI_DOUBLE;
                bl[4 * i + 2] = 3, dp[4 * i + 2] = base + 12, ty[4 * i + 2] = MPI_CHAR;
                bl[4 * i + 3] = 1, dp[4 * i + 3] = base + 15, ty[4 * i + 3] = MPI_INT;
            }
            MPI_Type_create_struct(4 * NS, bl, dp, ty, &packed);
            MPI_Type_commit(&packed);
            {
                int sz;
                MPI_Type_size(packed, &sz);
                CHECK_INT(NS * S_PACKED, sz, "Type_size of a 20000-block struct");
            }
            if (!lenient)
                MPI_Send(b, 1, packed, 0, 5, MPI_COMM_WORLD);
            MPI_Type_free(&packed);
            free(bl);
            free(dp);
            free(ty);
            free(b);
        }
    }

    /* ---- e) vector of struct (struct type freed first) -> contiguous structs (0 -> 1) - */
    {
        enum { NV = 1000 }; /* 2 * NV structs selected out of 3 * NV */
        MPI_Datatype st2 = make_struct(), vs;
        MPI_Type_vector(NV, 2, 3, st2, &vs);
        MPI_Type_free(&st2); /* vs must keep working */
        CHECK_TRUE(st2 == MPI_DATATYPE_NULL, "Type_free sets the handle to MPI_DATATYPE_NULL");
        MPI_Type_commit(&vs);
        check_type(vs, NV * 2 * S_PACKED, 0, ((NV - 1) * 3 + 2) * (MPI_Aint)sizeof(S),
                   "vector(1000, 2, 3, struct)");
        if (t_rank == 0) {
            S *arr = t_malloc(sizeof(S) * 3 * NV);
            for (i = 0; i < 3 * NV; i++)
                s_make(&arr[i], i);
            MPI_Send(arr, 1, vs, 1, 15, MPI_COMM_WORLD);
            free(arr);
        } else if (t_rank == 1) {
            S *arr = t_malloc(sizeof(S) * 2 * NV);
            memset(arr, GAPBYTE, sizeof(S) * 2 * NV);
            MPI_Recv(arr, 2 * NV, st, 0, 15, MPI_COMM_WORLD, &status);
            CHECK_INT(2 * NV, t_count(&status, st),
                      "e) Get_count(struct) of a vector-of-struct message");
            CHECK_INT(1, t_count(&status, vs), "e) Get_count(vector-of-struct)");
            for (i = 0; i < 2 * NV; i++)
                s_check(&arr[i], (i / 2) * 3 + i % 2, 1, "e) vector-of-struct->structs");
            free(arr);
        }
        MPI_Type_free(&vs);
    }

    /* ---- f) hvector and indexed on both sides, count > 1 (1 -> 0) ------------------ */
    {
        enum { NH = 3000, NI = 3000 };
        /* hvec: extent 88 B = 22 ints; elements at ints {0,1, 10,11, 20,21} of each 22.
         * idx: extent 48 B = 12 ints; ints {0,1, 5, 9,10,11} of each 12. */
        static const int hsel[6] = {0, 1, 10, 11, 20, 21}, isel[6] = {0, 1, 5, 9, 10, 11};
        int nh = NH * 22, ni = NI * 12;
        int *hb = t_malloc(sizeof(int) * (size_t)nh), *ib = t_malloc(sizeof(int) * (size_t)ni);
        if (t_rank == 1) {
            for (i = 0; i < nh; i++)
                hb[i] = ival(i);
            for (i = 0; i < ni; i++)
                ib[i] = ival(i + 1000000);
            MPI_Send(hb, NH, hvec, 0, 6, MPI_COMM_WORLD);
            MPI_Send(ib, NI, idx, 0, 7, MPI_COMM_WORLD);
        } else if (t_rank == 0) {
            int k;
            for (i = 0; i < nh; i++)
                hb[i] = FILL_INT;
            for (i = 0; i < ni; i++)
                ib[i] = FILL_INT;
            MPI_Recv(hb, NH, hvec, 1, 6, MPI_COMM_WORLD, &status);
            CHECK_INT(NH, t_count(&status, hvec), "f) Get_count(hvector)");
            MPI_Recv(ib, NI, idx, 1, 7, MPI_COMM_WORLD, &status);
            CHECK_INT(NI, t_count(&status, idx), "f) Get_count(indexed)");
            for (i = 0; i < nh; i++) {
                int sel = 0;
                for (k = 0; k < 6; k++)
                    sel |= (i % 22) == hsel[k];
                CHECK_INT(sel ? ival(i) : FILL_INT, hb[i],
                          t_fmt(what, sizeof what, "f) hvector: int %d", i));
            }
            for (i = 0; i < ni; i++) {
                int sel = 0;
                for (k = 0; k < 6; k++)
                    sel |= (i % 12) == isel[k];
                CHECK_INT(sel ? ival(i + 1000000) : FILL_INT, ib[i],
                          t_fmt(what, sizeof what, "f) indexed: int %d", i));
            }
        }
        free(hb);
        free(ib);
    }

    /* ---- g) indexed with lb > 0, count 1000 -> ints; h) negative stride (0 -> 1) ---- */
    {
        enum { NL = 1000 };
        if (t_rank == 0) {
            int *src = t_malloc(sizeof(int) * (NL * 6 + 2)), arr[5];
            for (i = 0; i < NL * 6 + 2; i++)
                src[i] = ival(i + 2000000);
            MPI_Send(src, NL, idx_lb, 1, 8, MPI_COMM_WORLD);
            for (i = 0; i < 5; i++)
                arr[i] = 100 + i;
            MPI_Send(arr + 4, 1, negvec, 1, 9, MPI_COMM_WORLD); /* arr[4], arr[2], arr[0] */
            free(src);
        } else if (t_rank == 1) {
            int *dst = t_malloc(sizeof(int) * NL * 3), arr[3];
            MPI_Recv(dst, NL * 3, MPI_INT, 0, 8, MPI_COMM_WORLD, &status);
            CHECK_INT(NL * 3, t_count(&status, MPI_INT), "g) Get_count(INT)");
            for (i = 0; i < NL; i++) {
                /* element i starts at int 6*i: ints 6i+2, 6i+6, 6i+7 */
                CHECK_INT(ival(6 * i + 2 + 2000000), dst[3 * i],
                          t_fmt(what, sizeof what, "g) lb>0 element %d int 0", i));
                CHECK_INT(ival(6 * i + 6 + 2000000), dst[3 * i + 1],
                          t_fmt(what, sizeof what, "g) lb>0 element %d int 1", i));
                CHECK_INT(ival(6 * i + 7 + 2000000), dst[3 * i + 2],
                          t_fmt(what, sizeof what, "g) lb>0 element %d int 2", i));
            }
            MPI_Recv(arr, 3, MPI_INT, 0, 9, MPI_COMM_WORLD, &status);
            CHECK_INT(104, arr[0], "h) negative stride: int 0");
            CHECK_INT(102, arr[1], "h) negative stride: int 1");
            CHECK_INT(100, arr[2], "h) negative stride: int 2");
            free(dst);
        }
    }

    /* ---- i) Get_count with derived types, partial elements (0 -> 1) ---------------- */
    {
        int v[12];
        if (t_rank == 0) {
            for (i = 0; i < 12; i++)
                v[i] = i * 11;
            MPI_Send(v, 7, MPI_INT, 1, 10, MPI_COMM_WORLD);
            MPI_Send(v, 6, MPI_INT, 1, 11, MPI_COMM_WORLD);
            MPI_Send(v, 0, ct3, 1, 12, MPI_COMM_WORLD);
            MPI_Send(v, 2, contig5, 1, 13, MPI_COMM_WORLD);
        } else if (t_rank == 1) {
            MPI_Recv(v, 4, ct3, 0, 10, MPI_COMM_WORLD, &status);
            CHECK_INT(MPI_UNDEFINED, t_count(&status, ct3),
                      "i) Get_count(contiguous(3)) of 7 ints");
            CHECK_INT(7, t_count(&status, MPI_INT), "i) Get_count(INT) of 7 ints");
            CHECK_INT(28, t_count(&status, MPI_BYTE), "i) Get_count(BYTE) of 7 ints");
            for (i = 0; i < 7; i++)
                CHECK_INT(i * 11, v[i], t_fmt(what, sizeof what, "i) partial element: int %d", i));
            MPI_Probe(0, 11, MPI_COMM_WORLD, &status);
            CHECK_INT(2, t_count(&status, ct3),
                      "i) Get_count(contiguous(3)) of a probed 6-int message");
            MPI_Recv(v, 4, ct3, 0, 11, MPI_COMM_WORLD, &status);
            CHECK_INT(2, t_count(&status, ct3), "i) Get_count(contiguous(3)) of 6 ints");
            MPI_Recv(v, 4, ct3, 0, 12, MPI_COMM_WORLD, &status);
            CHECK_INT(0, t_count(&status, ct3), "i) Get_count of an empty derived-type message");
            MPI_Recv(v, 12, MPI_INT, 0, 13, MPI_COMM_WORLD, &status);
            CHECK_INT(10, t_count(&status, MPI_INT), "i) Get_count(INT) of 2 x contiguous(5)");
            CHECK_INT(2, t_count(&status, contig5), "i) Get_count(contiguous(5))");
            CHECK_INT(MPI_UNDEFINED, t_count(&status, ct3),
                      "i) Get_count(contiguous(3)) of 10 ints");
        }
    }

    /* ---- j) type freed while an Isend that uses it is pending (0 -> 1); count 3 of
     *         a vector of doubles, elements one extent apart ------------------------- */
    {
        enum { NVD = 3 * 18 }; /* 3 elements of vec, 18 doubles of extent each */
        double src[NVD], dst[36];
        MPI_Datatype vtmp;
        MPI_Type_vector(4, 3, 5, MPI_DOUBLE, &vtmp);
        MPI_Type_commit(&vtmp);
        if (t_rank == 0) {
            MPI_Request r;
            for (i = 0; i < NVD; i++)
                src[i] = i + 0.5;
            MPI_Isend(src, 3, vtmp, 1, 14, MPI_COMM_WORLD, &r);
            MPI_Type_free(&vtmp);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            MPI_Type_free(&vtmp);
            if (t_rank == 1) {
                MPI_Recv(dst, 36, MPI_DOUBLE, 0, 14, MPI_COMM_WORLD, &status);
                CHECK_INT(36, t_count(&status, MPI_DOUBLE), "j) Get_count(DOUBLE)");
                for (i = 0; i < 36; i++) {
                    int elem = i / 12, blk = (i % 12) / 3, off = i % 3;
                    double want = elem * 18 + blk * 5 + off + 0.5;
                    CHECK_TRUE(want == dst[i],
                               t_fmt(what, sizeof what, "j) freed-type Isend: double %d", i));
                }
            }
        }
    }

    MPI_Type_free(&contig5);
    MPI_Type_free(&vec);
    MPI_Type_free(&hvec);
    MPI_Type_free(&idx);
    MPI_Type_free(&idx_lb);
    MPI_Type_free(&negvec);
    MPI_Type_free(&st);
    MPI_Type_free(&vecst);
    MPI_Type_free(&contvec);
    MPI_Type_free(&vint);
    MPI_Type_free(&ct3);
    CHECK_TRUE(vint == MPI_DATATYPE_NULL && st == MPI_DATATYPE_NULL,
               "handles are MPI_DATATYPE_NULL after Type_free");

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
