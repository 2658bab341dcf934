/* coll_comm: collectives on sub-communicators, which share the ranks' collective areas.
 *
 *  - Comm_split by parity with reversed keys, and Comm_dup: Bcast/Allreduce/Allgather/
 *    Alltoall/Scan/Barrier with communicator-relative ranks and roots, results checked.
 *  - Interleaving: collectives alternate between WORLD, a dup and a split, so a rank's area
 *    serves several communicators in turn.
 *  - Context reuse: 60 rounds of split (changing colors) / collectives / free; freed
 *    communicators' context ids come back, and a new communicator must never take a tag
 *    left in an area by an old one for its own (each round's results are checked, with
 *    ranks entering skewed in time).
 *  - A communicator of one rank (split with a unique color) and COMM_SELF.
 *  - Overlapping communicators used in an order every rank agrees on: pairs (r, r+1) in a
 *    ring, each rank in two pairs.
 */
#include "t_util.h"

static int me, np;

/* Checks a few collectives on comm; `salt` changes the data per call. */
static void exercise(MPI_Comm comm, int salt, const char *what)
{
    int r, n;
    char w[160];
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    int root = salt % n;
    /* Bcast of 3 sizes */
    size_t sizes[3] = {8, 5000, 300000};
    for (int k = 0; k < 3; k++) {
        unsigned char *b = t_malloc(sizes[k]);
        uint64_t seed = t_seed((uint64_t)salt, (uint64_t)k, (uint64_t)n);
        if (r == root)
            t_fill(b, sizes[k], seed);
        else
            memset(b, 0, sizes[k]);
        CHECK_MPI(MPI_Bcast(b, (int)sizes[k], MPI_BYTE, root, comm));
        t_check_fill(b, sizes[k], seed, t_fmt(w, sizeof w, "%s: bcast %zu", what, sizes[k]));
        free(b);
    }
    /* Allreduce: sum of world ranks and of comm ranks */
    long v[2] = {me + salt, r}, s[2];
    CHECK_MPI(MPI_Allreduce(v, s, 2, MPI_LONG, MPI_SUM, comm));
    CHECK_INT((long)n * (n - 1) / 2, s[1], t_fmt(w, sizeof w, "%s: allreduce of comm ranks", what));
    /* Allgather of world ranks: must be the group's members in comm order */
    int *all = t_malloc(sizeof(int) * (size_t)n);
    CHECK_MPI(MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, comm));
    CHECK_INT(me, all[r], t_fmt(w, sizeof w, "%s: allgather own slot", what));
    long sum = 0;
    for (int i = 0; i < n; i++)
        sum += all[i] + salt;
    CHECK_INT(sum, s[0], t_fmt(w, sizeof w, "%s: allreduce agrees with allgather", what));
    /* Alltoall: element to j is r * 100 + j */
    int *snd = t_malloc(sizeof(int) * (size_t)n), *rcv = t_malloc(sizeof(int) * (size_t)n);
    for (int j = 0; j < n; j++)
        snd[j] = r * 100 + j + salt;
    CHECK_MPI(MPI_Alltoall(snd, 1, MPI_INT, rcv, 1, MPI_INT, comm));
    for (int j = 0; j < n; j++)
        CHECK_INT(j * 100 + r + salt, rcv[j], t_fmt(w, sizeof w, "%s: alltoall from %d", what, j));
    /* Scan of ones = comm rank + 1 */
    int one = 1, pre = 0;
    CHECK_MPI(MPI_Scan(&one, &pre, 1, MPI_INT, MPI_SUM, comm));
    CHECK_INT(r + 1, pre, t_fmt(w, sizeof w, "%s: scan", what));
    /* Reduce to a rotating root */
    int red = -1;
    CHECK_MPI(MPI_Reduce(&r, &red, 1, MPI_INT, MPI_MAX, root, comm));
    if (r == root)
        CHECK_INT(n - 1, red, t_fmt(w, sizeof w, "%s: reduce max", what));
    CHECK_MPI(MPI_Barrier(comm));
    free(all);
    free(snd);
    free(rcv);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    me = t_rank;
    np = t_size;
    char w[160];

    MPI_Comm dup, half;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half));
    for (int i = 0; i < 20; i++) {
        exercise(MPI_COMM_WORLD, i, "world");
        exercise(half, i, "split by parity");
        exercise(dup, i, "dup");
    }

    /* Context reuse with skewed entry. */
    for (int round = 0; round < 60; round++) {
        MPI_Comm c;
        int color = (me / (1 + round % 3)) % 2;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, me, &c));
        if ((me + round) % 3 == 0)
            t_sleep_ms(1);
        exercise(c, round, t_fmt(w, sizeof w, "reuse round %d", round));
        CHECK_MPI(MPI_Comm_free(&c));
    }

    /* One-rank communicators. */
    MPI_Comm solo;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me, 0, &solo));
    exercise(solo, 3, "one-rank split");
    exercise(MPI_COMM_SELF, 4, "COMM_SELF");
    MPI_Comm_free(&solo);

    /* Overlapping pairs in a ring: rank r is in pair r (with r+1) and pair r-1. Each rank
     * uses its lower-numbered pair first; pair 0 wraps, so order by pair index. */
    if (np >= 3) {
        MPI_Comm pair_lo = MPI_COMM_NULL, pair_hi = MPI_COMM_NULL;
        for (int p = 0; p < np; p++) {
            int in = me == p || me == (p + 1) % np;
            MPI_Comm c;
            CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, me, &c));
            if (in && me == p)
                pair_hi = c;
            else if (in)
                pair_lo = c;
        }
        /* Pair p is used by p and p+1; go through pairs in index order. */
        for (int p = 0; p < np; p++) {
            MPI_Comm c = me == p ? pair_hi : me == (p + 1) % np ? pair_lo : MPI_COMM_NULL;
            if (c != MPI_COMM_NULL)
                exercise(c, p, t_fmt(w, sizeof w, "pair %d", p));
        }
        MPI_Comm_free(&pair_lo);
        MPI_Comm_free(&pair_hi);
    }

    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        printf("coll_comm: OK (%d ranks)\n", np);
    MPI_Finalize();
    return 0;
}
