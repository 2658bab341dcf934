/* MPI_Win_shared_query on every flavor (MPI-4.1): each rank's own segment is its window
 * (base, size, disp_unit); a peer's segment that this rank can load (Win_allocate_shared,
 * and Win_allocate / Win_create over MPI_Alloc_mem memory of a peer on the same region)
 * gives that peer's size and disp_unit and a pointer through which the peer's bytes are
 * read; a peer's segment it cannot load (Win_create over malloc memory, a peer on another
 * host) gives size 0 and a NULL baseptr, not an error; MPI_PROC_NULL answers for the
 * lowest rank with a non-empty segment; a dynamic window gives MPI_ERR_RMA_FLAVOR.
 * Before the fix an unloadable segment raised MPI_ERR_RMA_SHARED. Ranks have segments of
 * different sizes (16 + 8 * rank bytes) and displacement units (1 + rank). */
#include "t_win.h"

static MPI_Aint seg_bytes(int r)
{
    return 16 + 8 * r;
}

static unsigned char pattern(int r, int i)
{
    return (unsigned char)(0x30 + 7 * r + i);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    char what[200];
    MPI_Comm node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Group node_g;
    MPI_Comm_group(node, &node_g);
    for (int kind = 0; kind < K_COUNT; kind++) {
        const char *kn = k_name[kind];
        twin_t w;
        memset(&w, 0, sizeof w);
        w.comm = kind == K_ALLOCATE_SHARED ? node : MPI_COMM_WORLD;
        MPI_Comm_rank(w.comm, &w.rank);
        MPI_Comm_size(w.comm, &w.size);
        MPI_Aint bytes = seg_bytes(w.rank);
        int unit = 1 + w.rank;
        switch (kind) {
        case K_CREATE_MALLOC:
            w.base = calloc(1, (size_t)bytes);
            CHECK_MPI(MPI_Win_create(w.base, bytes, unit, MPI_INFO_NULL, w.comm, &w.win));
            break;
        case K_CREATE_ALLOC_MEM:
            CHECK_MPI(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &w.base));
            CHECK_MPI(MPI_Win_create(w.base, bytes, unit, MPI_INFO_NULL, w.comm, &w.win));
            break;
        case K_ALLOCATE:
            CHECK_MPI(MPI_Win_allocate(bytes, unit, MPI_INFO_NULL, w.comm, &w.base, &w.win));
            break;
        case K_ALLOCATE_SHARED:
            CHECK_MPI(MPI_Win_allocate_shared(bytes, unit, MPI_INFO_NULL, w.comm, &w.base, &w.win));
            break;
        default: CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, w.comm, &w.win)); break;
        }
        CHECK_MPI(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
        MPI_Aint sz;
        int du;
        unsigned char *p;
        if (kind == K_DYNAMIC) {
            CHECK_CLASS(MPI_ERR_RMA_FLAVOR, MPI_Win_shared_query(w.win, 0, &sz, &du, &p),
                        "Win_shared_query on a dynamic window");
            CHECK_MPI(MPI_Win_free(&w.win));
            continue;
        }
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, w.rank, 0, w.win));
        for (int i = 0; i < bytes; i++)
            w.base[i] = pattern(w.rank, i);
        CHECK_MPI(MPI_Win_unlock(w.rank, w.win));
        MPI_Barrier(w.comm);
        MPI_Group wg;
        MPI_Comm_group(w.comm, &wg);
        CHECK_MPI(MPI_Win_lock_all(0, w.win));
        CHECK_MPI(MPI_Win_sync(w.win));
        for (int r = 0; r < w.size; r++) {
            int in_node;
            MPI_Group_translate_ranks(wg, 1, &r, node_g, &in_node);
            p = (unsigned char *)&sz; /* must be overwritten */
            sz = -1;
            du = -1;
            CHECK_MPI(MPI_Win_shared_query(w.win, r, &sz, &du, &p));
            /* Which segments IVC makes loadable: its own always; a co-located peer's when the
             * memory lies in the region (not malloc'ed). */
            int loadable = r == w.rank || (kind != K_CREATE_MALLOC && in_node != MPI_UNDEFINED);
            if (!loadable) {
                CHECK_INT(0, sz,
                          t_fmt(what, sizeof what, "%s: size of rank %d (not loadable)", kn, r));
                CHECK_TRUE(p == NULL,
                           t_fmt(what, sizeof what, "%s: baseptr of rank %d NULL", kn, r));
                continue;
            }
            CHECK_INT(seg_bytes(r), sz, t_fmt(what, sizeof what, "%s: size of rank %d", kn, r));
            CHECK_INT(1 + r, du, t_fmt(what, sizeof what, "%s: disp_unit of rank %d", kn, r));
            if (r == w.rank)
                CHECK_TRUE(p == w.base, t_fmt(what, sizeof what, "%s: own baseptr", kn));
            for (int i = 0; i < sz; i++)
                CHECK_INT(pattern(r, i), p[i],
                          t_fmt(what, sizeof what, "%s: byte %d of rank %d loaded", kn, i, r));
        }
        /* MPI_PROC_NULL: rank 0's segment (every segment is non-empty). */
        int zero = 0, z_in_node;
        MPI_Group_translate_ranks(wg, 1, &zero, node_g, &z_in_node);
        CHECK_MPI(MPI_Win_shared_query(w.win, MPI_PROC_NULL, &sz, &du, &p));
        int loadable0 = w.rank == 0 || (kind != K_CREATE_MALLOC && z_in_node != MPI_UNDEFINED);
        CHECK_INT(loadable0 ? seg_bytes(0) : 0, sz,
                  t_fmt(what, sizeof what, "%s: size for MPI_PROC_NULL", kn));
        if (loadable0)
            CHECK_INT(pattern(0, 0), p[0], t_fmt(what, sizeof what, "%s: MPI_PROC_NULL byte", kn));
        else
            CHECK_TRUE(p == NULL, t_fmt(what, sizeof what, "%s: MPI_PROC_NULL baseptr", kn));
        CHECK_MPI(MPI_Win_unlock_all(w.win));
        MPI_Group_free(&wg);
        CHECK_MPI(MPI_Win_free(&w.win));
        if (kind == K_CREATE_MALLOC)
            free(w.base);
        else if (kind == K_CREATE_ALLOC_MEM)
            CHECK_MPI(MPI_Free_mem(w.base));
    }
    /* Empty segments (Win_allocate_shared on the node, odd ranks ask for 0 bytes): their
     * query gives size 0 and a NULL baseptr (MPICH's rma/win_shared_noncontig_put checks
     * this); MPI_PROC_NULL gives rank 0's segment. */
    {
        int nrank, nsize, du;
        MPI_Aint sz;
        unsigned char *mine, *p;
        MPI_Win win;
        MPI_Comm_rank(node, &nrank);
        MPI_Comm_size(node, &nsize);
        CHECK_MPI(MPI_Win_allocate_shared(nrank % 2 ? 0 : 64, 1, MPI_INFO_NULL, node, &mine, &win));
        for (int r = 0; r < nsize; r++) {
            p = (unsigned char *)&sz; /* must be overwritten */
            CHECK_MPI(MPI_Win_shared_query(win, r, &sz, &du, &p));
            CHECK_INT(r % 2 ? 0 : 64, sz,
                      t_fmt(what, sizeof what, "empty segments: size of %d", r));
            if (r % 2)
                CHECK_TRUE(p == NULL,
                           t_fmt(what, sizeof what, "empty segments: baseptr of %d NULL", r));
            else
                CHECK_TRUE(p != NULL,
                           t_fmt(what, sizeof what, "empty segments: baseptr of %d set", r));
        }
        CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p));
        CHECK_INT(64, sz, "empty segments: size for MPI_PROC_NULL");
        CHECK_TRUE(p != NULL, "empty segments: baseptr for MPI_PROC_NULL set");
        CHECK_MPI(MPI_Win_free(&win));
    }
    MPI_Group_free(&node_g);
    MPI_Comm_free(&node);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("squery: OK\n");
    MPI_Finalize();
    return 0;
}
