/* comms: communicator management and isolation.
 *
 *  - Comm_compare: IDENT for a communicator with itself, CONGRUENT for a dup (and for a
 *    split that keeps order), SIMILAR for a split that reverses order, UNEQUAL for a
 *    subset; COMM_SELF against itself and WORLD.
 *  - Comm_dup isolation: a message on the dup is never matched by a (ANY_SOURCE,
 *    ANY_TAG) receive on the parent, even when it was sent first; 16 dups alive at once,
 *    same tag on each, drained in reverse order; 200 dup/use/free cycles.
 *  - Comm_split by parity with key = -rank (reversed order): size, rank, ranks in
 *    messages are communicator-relative (status.MPI_SOURCE under ANY_SOURCE too), and
 *    Barrier/Bcast/Allreduce/Gather/Allgather work inside; color MPI_UNDEFINED gives
 *    MPI_COMM_NULL; nested split and dup of a split communicator.
 *  - Comm_free sets the handle to MPI_COMM_NULL.
 *  - COMM_SELF: send to self, Sendrecv, isolation from self-messages on WORLD.
 */
#include "t_util.h"

static void check_compare(MPI_Comm a, MPI_Comm b, int want, const char *what)
{
    int res = -1;
    MPI_Comm_compare(a, b, &res);
    CHECK_INT(want, res, what);
}

/* Exchange in a ring of comm: send val to the right, get the left's val (ANY_SOURCE). */
static void ring_check(MPI_Comm comm, int val, int left_val, int tag, const char *what)
{
    int r, n, got = -1;
    MPI_Status st;
    MPI_Request req;
    char w[160];
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    MPI_Isend(&val, 1, MPI_INT, (r + 1) % n, tag, comm, &req);
    MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, tag, comm, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK_INT((r + n - 1) % n, st.MPI_SOURCE,
              t_fmt(w, sizeof w, "%s: status.MPI_SOURCE (communicator rank)", what));
    CHECK_INT(left_val, got, t_fmt(w, sizeof w, "%s: value from the left", what));
}

int main(int argc, char **argv)
{
    MPI_Comm dup, par, rev, same, undef, dups[16], sub2, subdup;
    int i, left, right, v[2], got, n, r;
    MPI_Request reqs[32];
    MPI_Status st;
    char what[160];

    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    left = (t_rank + t_size - 1) % t_size;
    right = (t_rank + 1) % t_size;

    /* ---- compare ------------------------------------------------------------------- */
    check_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, MPI_IDENT, "compare(WORLD, WORLD)");
    check_compare(MPI_COMM_SELF, MPI_COMM_SELF, MPI_IDENT, "compare(SELF, SELF)");
    check_compare(MPI_COMM_WORLD, MPI_COMM_SELF, t_size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL,
                  "compare(WORLD, SELF)");
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    check_compare(MPI_COMM_WORLD, dup, MPI_CONGRUENT, "compare(WORLD, dup(WORLD))");
    check_compare(dup, dup, MPI_IDENT, "compare(dup, dup)");
    MPI_Comm_size(dup, &n);
    MPI_Comm_rank(dup, &r);
    CHECK_INT(t_size, n, "dup: Comm_size");
    CHECK_INT(t_rank, r, "dup: Comm_rank");

    /* ---- dup isolation: dup message sent first, parent receive with wildcards ------ */
    v[0] = 2000 + t_rank; /* on dup */
    v[1] = 1000 + t_rank; /* on WORLD */
    MPI_Isend(&v[0], 1, MPI_INT, right, 5, dup, &reqs[0]);
    MPI_Isend(&v[1], 1, MPI_INT, right, 5, MPI_COMM_WORLD, &reqs[1]);
    MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    CHECK_INT(1000 + left, got,
              "WORLD (ANY_SOURCE, ANY_TAG) receive with a same-tag dup message pending: value");
    CHECK_INT(left, st.MPI_SOURCE, "WORLD receive: MPI_SOURCE");
    MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &st);
    CHECK_INT(2000 + left, got, "dup receive: value");
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);

    /* 16 dups alive at once, same tag on each; receive in reverse order. */
    for (i = 0; i < 16; i++)
        MPI_Comm_dup(i % 2 ? dup : MPI_COMM_WORLD, &dups[i]);
    {
        int out[16], in[16];
        for (i = 0; i < 16; i++) {
            out[i] = t_rank * 100 + i;
            MPI_Isend(&out[i], 1, MPI_INT, right, 9, dups[i], &reqs[i]);
        }
        for (i = 15; i >= 0; i--) {
            MPI_Recv(&in[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dups[i], &st);
            CHECK_INT(left * 100 + i, in[i],
                      t_fmt(what, sizeof what, "message on dup %d of 16: value", i));
        }
        MPI_Waitall(16, reqs, MPI_STATUSES_IGNORE);
    }
    for (i = 0; i < 16; i++) {
        MPI_Comm_free(&dups[i]);
        CHECK_TRUE(dups[i] == MPI_COMM_NULL, "Comm_free sets the handle to MPI_COMM_NULL");
    }

    /* 200 dup/use/free cycles (context ids get reused). */
    for (i = 0; i < 200; i++) {
        MPI_Comm c;
        MPI_Comm_dup(i % 3 ? MPI_COMM_WORLD : dup, &c);
        ring_check(c, t_rank * 1000 + i, left * 1000 + i, 0,
                   t_fmt(what, sizeof what, "dup/free cycle %d", i));
        MPI_Comm_free(&c);
    }

    /* ---- split by parity, reversed order ------------------------------------------- */
    MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, -t_rank, &par);
    {
        int members[1024], nm = 0, me = -1, sum = 0, root_val, *gathered;
        for (i = t_size - 1; i >= 0; i--) /* key -rank: descending world rank */
            if (i % 2 == t_rank % 2) {
                if (i == t_rank)
                    me = nm;
                members[nm++] = i;
                sum += i;
            }
        MPI_Comm_size(par, &n);
        MPI_Comm_rank(par, &r);
        CHECK_INT(nm, n, "parity split: Comm_size");
        CHECK_INT(me, r, "parity split: Comm_rank (key reverses the order)");
        check_compare(MPI_COMM_WORLD, par, MPI_UNEQUAL, "compare(WORLD, parity split)");
        ring_check(par, t_rank, members[(me + nm - 1) % nm], 3, "parity split ring");

        /* Collectives inside. */
        MPI_Barrier(par);
        root_val = t_rank;
        MPI_Bcast(&root_val, 1, MPI_INT, 0, par);
        CHECK_INT(members[0], root_val, "parity split: Bcast from communicator rank 0");
        MPI_Allreduce(&t_rank, &got, 1, MPI_INT, MPI_SUM, par);
        CHECK_INT(sum, got, "parity split: Allreduce(SUM) of world ranks");
        gathered = t_malloc(sizeof(int) * (size_t)nm);
        MPI_Allgather(&t_rank, 1, MPI_INT, gathered, 1, MPI_INT, par);
        for (i = 0; i < nm; i++)
            CHECK_INT(members[i], gathered[i],
                      t_fmt(what, sizeof what, "parity split: Allgather slot %d", i));
        for (i = 0; i < nm; i++)
            gathered[i] = -1;
        MPI_Gather(&t_rank, 1, MPI_INT, gathered, 1, MPI_INT, nm - 1, par);
        if (r == nm - 1)
            for (i = 0; i < nm; i++)
                CHECK_INT(members[i], gathered[i],
                          t_fmt(what, sizeof what, "parity split: Gather slot %d", i));
        free(gathered);

        /* Nested: split the parity communicator in halves, keep order; and dup it. */
        MPI_Comm_split(par, r < nm / 2, 0, &sub2);
        {
            int n2, r2, lo = r < nm / 2 ? 0 : nm / 2, cnt = r < nm / 2 ? nm / 2 : nm - nm / 2;
            MPI_Comm_size(sub2, &n2);
            MPI_Comm_rank(sub2, &r2);
            CHECK_INT(cnt, n2, "nested split: Comm_size");
            CHECK_INT(r - lo, r2, "nested split: Comm_rank");
            ring_check(sub2, t_rank, members[lo + (r2 + n2 - 1) % n2], 4, "nested split ring");
            MPI_Comm_free(&sub2);
        }
        MPI_Comm_dup(par, &subdup);
        check_compare(par, subdup, MPI_CONGRUENT, "compare(split, dup(split))");
        ring_check(subdup, -t_rank, -members[(me + nm - 1) % nm], 3, "dup of parity split ring");
        MPI_Comm_free(&subdup);
    }

    /* ---- split keeping everyone: key -rank gives SIMILAR, key 0 gives CONGRUENT ------ */
    MPI_Comm_split(MPI_COMM_WORLD, 7, -t_rank, &rev);
    MPI_Comm_rank(rev, &r);
    CHECK_INT(t_size - 1 - t_rank, r, "split(all, key -rank): Comm_rank");
    check_compare(MPI_COMM_WORLD, rev, t_size > 1 ? MPI_SIMILAR : MPI_CONGRUENT,
                  "compare(WORLD, reversed split)");
    ring_check(rev, t_rank, right, 6, "reversed split ring"); /* rev's left is world's right */
    MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &same);
    MPI_Comm_rank(same, &r);
    CHECK_INT(t_rank, r, "split(all, key 0): Comm_rank (ties keep parent order)");
    check_compare(MPI_COMM_WORLD, same, MPI_CONGRUENT, "compare(WORLD, order-keeping split)");

    /* ---- MPI_UNDEFINED color ------------------------------------------------------- */
    MPI_Comm_split(MPI_COMM_WORLD, t_rank == t_size - 1 ? MPI_UNDEFINED : 1, t_rank, &undef);
    if (t_rank == t_size - 1) {
        CHECK_TRUE(undef == MPI_COMM_NULL, "split with color MPI_UNDEFINED gives MPI_COMM_NULL");
    } else {
        CHECK_TRUE(undef != MPI_COMM_NULL, "split with a real color gives a communicator");
        MPI_Comm_size(undef, &n);
        CHECK_INT(t_size - 1, n, "split without the last rank: Comm_size");
        ring_check(undef, t_rank, (t_rank + t_size - 2) % (t_size - 1), 2,
                   "split without the last rank: ring");
        MPI_Comm_free(&undef);
    }

    /* ---- COMM_SELF ----------------------------------------------------------------- */
    MPI_Comm_size(MPI_COMM_SELF, &n);
    MPI_Comm_rank(MPI_COMM_SELF, &r);
    CHECK_INT(1, n, "COMM_SELF: Comm_size");
    CHECK_INT(0, r, "COMM_SELF: Comm_rank");
    v[0] = 111 + t_rank; /* on WORLD to myself, sent first */
    v[1] = 222 + t_rank; /* on SELF */
    MPI_Isend(&v[0], 1, MPI_INT, t_rank, 9, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&v[1], 1, MPI_INT, 0, 9, MPI_COMM_SELF, &reqs[1]);
    MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &st);
    CHECK_INT(222 + t_rank, got, "COMM_SELF receive with a WORLD self-message pending: value");
    CHECK_INT(0, st.MPI_SOURCE, "COMM_SELF receive: MPI_SOURCE");
    MPI_Recv(&got, 1, MPI_INT, t_rank, 9, MPI_COMM_WORLD, &st);
    CHECK_INT(111 + t_rank, got, "WORLD self receive: value");
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    {
        unsigned char *a = t_malloc(300000), *b = t_malloc(300000);
        t_fill(a, 300000, t_seed(9, (uint64_t)t_rank, 0));
        MPI_Sendrecv(a, 300000, MPI_BYTE, 0, 1, b, 300000, MPI_BYTE, 0, 1, MPI_COMM_SELF, &st);
        t_check_fill(b, 300000, t_seed(9, (uint64_t)t_rank, 0),
                     "COMM_SELF Sendrecv of 300000 bytes");
        free(a);
        free(b);
    }

    MPI_Comm_free(&par);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&same);
    MPI_Comm_free(&dup);
    CHECK_TRUE(par == MPI_COMM_NULL && dup == MPI_COMM_NULL,
               "handles are MPI_COMM_NULL after Comm_free");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
