/* The tool information interface (MPI_T):
 *  - every call but MPI_T_init_thread answers MPI_T_ERR_NOT_INITIALIZED outside
 *    init/finalize; init is counted (two inits need two finalizes); it works before
 *    MPI_Init and after MPI_Finalize; MPI_T_init_thread grants MULTIPLE when asked;
 *  - control variables: every IVC tunable is there under its environment name, the index and
 *    info agree, sizes are MPI_UNSIGNED_LONG_LONG (count 1), booleans MPI_INT with the
 *    "ivc_bool" enumeration, text MPI_CHAR; scope constant, bound to no object; values:
 *    before MPI_Init what the environment says now (IVC_EAGER_LIMIT changed by setenv is
 *    seen), unset ones their default, and from MPI_Init on the values MPI started with (a
 *    later setenv is not seen), also after MPI_Finalize; writes give CVAR_SET_NEVER;
 *  - strings follow the MPI_T convention (truncation, length with the NUL, length only);
 *  - categories: one per layer, their variables partition the variables;
 *  - enumerations, performance variables (none: sessions, ALL_HANDLES), events (none) and
 *    the one event source (a clock that agrees with MPI_Wtime), each with the error codes of
 *    bad indices, names and handles;
 *  - the variable count and values agree across ranks (Allgather);
 *  - MPI_Pcontrol returns MPI_SUCCESS.
 * Runs with IVC_EAGER_LIMIT=2K, IVC_COLL_SHM=no and IVC_COLL_ROOTED_P2P=off in the
 * environment (tests.cmake). */
#include "../t_util.h"

#define CHECK_T(expected, call)                                                                    \
    do {                                                                                           \
        int t_rc_ = (call);                                                                        \
        if (t_rc_ != (expected))                                                                   \
            t_fail("%s: expected %d, got %d", #call, (int)(expected), t_rc_);                      \
    } while (0)

static const char *const names[] = {
    "IVC_SPIN",          "IVC_STARTUP_TIMEOUT", "IVC_EAGER_LIMIT",     "IVC_RING_SIZE",
    "IVC_CHUNK_SIZE",    "IVC_CHUNKS",          "IVC_STREAM_MIN",      "IVC_COLL_SHM",
    "IVC_COLL_AREA",     "IVC_COLL_CHUNK",      "IVC_COLL_SPLIT_MIN",  "IVC_COLL_BCAST_P2P",
    "IVC_COLL_STREAM_MIN", "IVC_COLL_ROOTED_P2P", "IVC_RMA_ARENA"};
#define NNAMES ((int)(sizeof(names) / sizeof(names[0])))

static int cvar_index(const char *name)
{
    int idx = -1;
    CHECK_T(MPI_SUCCESS, MPI_T_cvar_get_index(name, &idx));
    return idx;
}

static unsigned long long read_ull(const char *name)
{
    MPI_T_cvar_handle h;
    int count = 0;
    unsigned long long v = 0;
    CHECK_T(MPI_SUCCESS, MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count));
    CHECK_INT(1, count, "count of a size variable");
    CHECK_T(MPI_SUCCESS, MPI_T_cvar_read(h, &v));
    CHECK_T(MPI_SUCCESS, MPI_T_cvar_handle_free(&h));
    CHECK_TRUE(h == MPI_T_CVAR_HANDLE_NULL, "cvar_handle_free sets the null handle");
    return v;
}

int main(int argc, char **argv)
{
    int provided = -1, n = -1, rc;
    /* Nothing before MPI_T_init_thread. */
    if (MPI_T_cvar_get_num(&n) != MPI_T_ERR_NOT_INITIALIZED ||
        MPI_T_finalize() != MPI_T_ERR_NOT_INITIALIZED) {
        fprintf(stderr, "MPI_T before MPI_T_init_thread: expected MPI_T_ERR_NOT_INITIALIZED\n");
        return 1;
    }
    /* Before MPI_Init: the environment now. */
    if ((rc = MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided)) != MPI_SUCCESS ||
        provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "MPI_T_init_thread before MPI_Init: expected 0, MULTIPLE; got %d, %d\n",
                rc, provided);
        return 1;
    }
    unsigned long long pre = read_ull("IVC_EAGER_LIMIT");
    if (pre != 2048) {
        fprintf(stderr, "IVC_EAGER_LIMIT before MPI_Init: expected 2048, got %llu\n", pre);
        return 1;
    }
    setenv("IVC_EAGER_LIMIT", "1K", 1); /* what MPI_Init will use */
    if ((pre = read_ull("IVC_EAGER_LIMIT")) != 1024) {
        fprintf(stderr, "IVC_EAGER_LIMIT after setenv: expected 1024, got %llu\n", pre);
        return 1;
    }

    MPI_Init(&argc, &argv);
    t_init();
    CHECK_T(MPI_SUCCESS, MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK_INT(MPI_THREAD_SINGLE, provided, "MPI_T_init_thread(SINGLE)");
    setenv("IVC_EAGER_LIMIT", "8K", 1); /* too late: MPI runs with 1K */

    /* Control variables. */
    int ncvar = -1;
    CHECK_T(MPI_SUCCESS, MPI_T_cvar_get_num(&ncvar));
    CHECK_TRUE(ncvar >= NNAMES, "cvar_get_num covers every tunable");
    for (int i = 0; i < NNAMES; i++) {
        int idx = cvar_index(names[i]), len = 64, dlen = 0, verb, bind, scope;
        char name[64], w[128];
        MPI_Datatype dt;
        MPI_T_enum en;
        CHECK_TRUE(idx >= 0 && idx < ncvar, t_fmt(w, sizeof w, "%s: index in range", names[i]));
        CHECK_T(MPI_SUCCESS, MPI_T_cvar_get_info(idx, name, &len, &verb, &dt, &en, NULL, &dlen,
                                                 &bind, &scope));
        if (strcmp(name, names[i]) != 0)
            t_fail("cvar %d: name: expected %s, got %s", idx, names[i], name);
        CHECK_INT((int)strlen(names[i]) + 1, len, t_fmt(w, sizeof w, "%s: name_len", names[i]));
        CHECK_TRUE(dlen > 10, t_fmt(w, sizeof w, "%s: a description", names[i]));
        CHECK_INT(MPI_T_BIND_NO_OBJECT, bind, t_fmt(w, sizeof w, "%s: bind", names[i]));
        CHECK_INT(MPI_T_SCOPE_CONSTANT, scope, t_fmt(w, sizeof w, "%s: scope", names[i]));
        CHECK_TRUE(verb >= MPI_T_VERBOSITY_USER_BASIC && verb <= MPI_T_VERBOSITY_MPIDEV_ALL,
                   t_fmt(w, sizeof w, "%s: verbosity", names[i]));
        int is_bool = strcmp(names[i], "IVC_COLL_SHM") == 0;
        int is_text = strcmp(names[i], "IVC_COLL_ROOTED_P2P") == 0 ||
                      strcmp(names[i], "IVC_STREAM_MIN") == 0 ||
                      strcmp(names[i], "IVC_COLL_STREAM_MIN") == 0;
        MPI_Datatype want = is_bool ? MPI_INT : is_text ? MPI_CHAR : MPI_UNSIGNED_LONG_LONG;
        CHECK_TRUE(dt == want, t_fmt(w, sizeof w, "%s: datatype", names[i]));
        CHECK_TRUE(is_bool ? en != MPI_T_ENUM_NULL : en == MPI_T_ENUM_NULL,
                   t_fmt(w, sizeof w, "%s: enumeration", names[i]));
    }
    /* Values MPI started with, and defaults. */
    CHECK_INT(1024, read_ull("IVC_EAGER_LIMIT"), "IVC_EAGER_LIMIT in use (set before MPI_Init)");
    CHECK_INT(128 * 1024, read_ull("IVC_RING_SIZE"), "IVC_RING_SIZE default");
    CHECK_INT(8 << 20, read_ull("IVC_RMA_ARENA"), "IVC_RMA_ARENA default");
    CHECK_INT(120, read_ull("IVC_STARTUP_TIMEOUT"), "IVC_STARTUP_TIMEOUT default");
    MPI_T_cvar_handle h;
    int count, bval = -1;
    CHECK_T(MPI_SUCCESS, MPI_T_cvar_handle_alloc(cvar_index("IVC_COLL_SHM"), NULL, &h, &count));
    CHECK_INT(1, count, "IVC_COLL_SHM count");
    CHECK_T(MPI_SUCCESS, MPI_T_cvar_read(h, &bval));
    CHECK_INT(0, bval, "IVC_COLL_SHM=no");
    CHECK_T(MPI_T_ERR_CVAR_SET_NEVER, MPI_T_cvar_write(h, &bval));
    CHECK_T(MPI_SUCCESS, MPI_T_cvar_handle_free(&h));
    CHECK_T(MPI_T_ERR_INVALID_HANDLE, MPI_T_cvar_handle_free(&h));
    CHECK_T(MPI_T_ERR_INVALID_HANDLE, MPI_T_cvar_read(h, &bval));
    char text[1024];
    CHECK_T(MPI_SUCCESS,
            MPI_T_cvar_handle_alloc(cvar_index("IVC_COLL_ROOTED_P2P"), NULL, &h, &count));
    CHECK_TRUE(count >= 4 && count <= (int)sizeof text, "IVC_COLL_ROOTED_P2P count");
    CHECK_T(MPI_SUCCESS, MPI_T_cvar_read(h, text));
    if (strcmp(text, "off") != 0)
        t_fail("IVC_COLL_ROOTED_P2P: expected \"off\", got \"%s\"", text);
    CHECK_T(MPI_SUCCESS, MPI_T_cvar_handle_free(&h));

    /* Bad indices and names. */
    char name[8];
    int len = sizeof name;
    CHECK_T(MPI_T_ERR_INVALID_INDEX, MPI_T_cvar_get_info(ncvar, name, &len, NULL, NULL, NULL,
                                                         NULL, NULL, NULL, NULL));
    CHECK_T(MPI_T_ERR_INVALID_INDEX, MPI_T_cvar_get_info(-1, name, &len, NULL, NULL, NULL, NULL,
                                                         NULL, NULL, NULL));
    CHECK_T(MPI_T_ERR_INVALID_INDEX, MPI_T_cvar_handle_alloc(ncvar, NULL, &h, &count));
    int idx;
    CHECK_T(MPI_T_ERR_INVALID_NAME, MPI_T_cvar_get_index("IVC_NO_SUCH_TUNABLE", &idx));
    CHECK_T(MPI_T_ERR_INVALID_NAME, MPI_T_cvar_get_index("EAGER_LIMIT", &idx));

    /* The string convention: truncation, and the length only. */
    len = 5;
    memset(name, '#', sizeof name);
    CHECK_T(MPI_SUCCESS, MPI_T_cvar_get_info(cvar_index("IVC_EAGER_LIMIT"), name, &len, NULL,
                                             NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK_TRUE(strcmp(name, "IVC_") == 0, "truncated name");
    CHECK_INT('#', name[5], "no byte past the buffer");
    CHECK_INT(16, len, "length of IVC_EAGER_LIMIT with the NUL");
    len = 0;
    CHECK_T(MPI_SUCCESS, MPI_T_cvar_get_info(cvar_index("IVC_RING_SIZE"), NULL, &len, NULL, NULL,
                                             NULL, NULL, NULL, NULL, NULL));
    CHECK_INT(14, len, "length only");

    /* Enumerations. */
    MPI_T_enum en;
    CHECK_T(MPI_SUCCESS, MPI_T_cvar_get_info(cvar_index("IVC_COLL_SHM"), NULL, NULL, NULL, NULL,
                                             &en, NULL, NULL, NULL, NULL));
    int items = 0, value = -1;
    char ename[32];
    len = sizeof ename;
    CHECK_T(MPI_SUCCESS, MPI_T_enum_get_info(en, &items, ename, &len));
    CHECK_INT(2, items, "ivc_bool items");
    CHECK_TRUE(strcmp(ename, "ivc_bool") == 0, "enumeration name");
    for (int i = 0; i < 2; i++) {
        len = sizeof ename;
        CHECK_T(MPI_SUCCESS, MPI_T_enum_get_item(en, i, &value, ename, &len));
        CHECK_INT(i, value, "enumeration item value");
        CHECK_TRUE(strcmp(ename, i ? "yes" : "no") == 0, "enumeration item name");
    }
    CHECK_T(MPI_T_ERR_INVALID_ITEM, MPI_T_enum_get_item(en, 2, &value, ename, &len));
    CHECK_T(MPI_T_ERR_INVALID_HANDLE, MPI_T_enum_get_info(MPI_T_ENUM_NULL, &items, ename, &len));

    /* Categories partition the variables. */
    int ncat = -1, total = 0, seen[256] = {0};
    CHECK_T(MPI_SUCCESS, MPI_T_category_get_num(&ncat));
    CHECK_TRUE(ncat >= 4, "a category per layer");
    CHECK_TRUE(ncvar <= 256, "few variables");
    for (int c = 0; c < ncat; c++) {
        int nc = -1, np = -1, nsub = -1, ne = -1, back = -1;
        char cname[64];
        len = sizeof cname;
        CHECK_T(MPI_SUCCESS,
                MPI_T_category_get_info(c, cname, &len, NULL, NULL, &nc, &np, &nsub));
        CHECK_INT(0, np, "performance variables of a category");
        CHECK_T(MPI_SUCCESS, MPI_T_category_get_index(cname, &back));
        CHECK_INT(c, back, "category_get_index(category_get_info name)");
        CHECK_T(MPI_SUCCESS, MPI_T_category_get_num_events(c, &ne));
        CHECK_INT(0, ne, "events of a category");
        int ids[256];
        CHECK_T(MPI_SUCCESS, MPI_T_category_get_cvars(c, nc, ids));
        for (int i = 0; i < nc; i++) {
            CHECK_TRUE(ids[i] >= 0 && ids[i] < ncvar, "category's variable in range");
            seen[ids[i]]++;
        }
        total += nc;
    }
    CHECK_INT(ncvar, total, "variables over all categories");
    for (int i = 0; i < ncvar; i++)
        CHECK_INT(1, seen[i], "each variable in exactly one category");
    CHECK_T(MPI_T_ERR_INVALID_INDEX,
            MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK_T(MPI_T_ERR_INVALID_NAME, MPI_T_category_get_index("no_such_category", &idx));
    int upd = -1;
    CHECK_T(MPI_SUCCESS, MPI_T_category_changed(&upd));
    CHECK_TRUE(upd >= 0, "category_changed");

    /* Performance variables: none. */
    int np = -1;
    CHECK_T(MPI_SUCCESS, MPI_T_pvar_get_num(&np));
    CHECK_INT(0, np, "pvar_get_num");
    CHECK_T(MPI_T_ERR_INVALID_INDEX, MPI_T_pvar_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL,
                                                         NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK_T(MPI_T_ERR_INVALID_NAME, MPI_T_pvar_get_index("x", MPI_T_PVAR_CLASS_COUNTER, &idx));
    MPI_T_pvar_session ps;
    MPI_T_pvar_handle ph = MPI_T_PVAR_HANDLE_NULL;
    CHECK_T(MPI_SUCCESS, MPI_T_pvar_session_create(&ps));
    CHECK_T(MPI_T_ERR_INVALID_INDEX, MPI_T_pvar_handle_alloc(ps, 0, NULL, &ph, &count));
    CHECK_T(MPI_SUCCESS, MPI_T_pvar_start(ps, MPI_T_PVAR_ALL_HANDLES));
    CHECK_T(MPI_SUCCESS, MPI_T_pvar_stop(ps, MPI_T_PVAR_ALL_HANDLES));
    CHECK_T(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_read(ps, MPI_T_PVAR_ALL_HANDLES, &value));
    CHECK_T(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_handle_free(ps, &ph));
    CHECK_T(MPI_SUCCESS, MPI_T_pvar_session_free(&ps));
    CHECK_TRUE(ps == MPI_T_PVAR_SESSION_NULL, "pvar_session_free sets the null session");
    CHECK_T(MPI_T_ERR_INVALID_SESSION, MPI_T_pvar_session_free(&ps));
    CHECK_T(MPI_T_ERR_INVALID_SESSION, MPI_T_pvar_start(ps, MPI_T_PVAR_ALL_HANDLES));

    /* Events: none; one source, the clock. */
    int nev = -1, nsrc = -1;
    CHECK_T(MPI_SUCCESS, MPI_T_event_get_num(&nev));
    CHECK_INT(0, nev, "event_get_num");
    CHECK_T(MPI_T_ERR_INVALID_INDEX, MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL,
                                                          NULL, NULL, NULL, NULL, NULL));
    CHECK_T(MPI_T_ERR_INVALID_NAME, MPI_T_event_get_index("x", &idx));
    MPI_T_event_registration reg;
    CHECK_T(MPI_T_ERR_INVALID_INDEX, MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg));
    CHECK_T(MPI_SUCCESS, MPI_T_source_get_num(&nsrc));
    CHECK_INT(1, nsrc, "source_get_num");
    MPI_T_source_order ord;
    MPI_Count tps = 0, maxt = 0, t0 = 0, t1 = 0;
    MPI_Info sinfo;
    char sname[64];
    len = sizeof sname;
    CHECK_T(MPI_SUCCESS, MPI_T_source_get_info(0, sname, &len, NULL, NULL, &ord, &tps, &maxt,
                                               &sinfo));
    CHECK_INT(1000000000, tps, "ticks per second");
    CHECK_TRUE(ord == MPI_T_SOURCE_ORDERED && maxt > 0, "source ordering and range");
    CHECK_MPI(MPI_Info_free(&sinfo));
    CHECK_T(MPI_SUCCESS, MPI_T_source_get_timestamp(0, &t0));
    double wt = MPI_Wtime();
    CHECK_T(MPI_SUCCESS, MPI_T_source_get_timestamp(0, &t1));
    CHECK_TRUE(t1 >= t0, "timestamps do not go back");
    CHECK_TRUE(wt >= (double)t0 / 1e9 - 0.5 && wt <= (double)t1 / 1e9 + 0.5,
               "the source agrees with MPI_Wtime");
    CHECK_T(MPI_T_ERR_INVALID_INDEX, MPI_T_source_get_timestamp(1, &t0));

    /* Every rank sees the same variables and values. */
    unsigned long long mine[2] = {(unsigned long long)ncvar, read_ull("IVC_EAGER_LIMIT")},
                       all[2 * 64];
    CHECK_TRUE(t_size <= 64, "at most 64 ranks");
    CHECK_MPI(MPI_Allgather(mine, 2, MPI_UNSIGNED_LONG_LONG, all, 2, MPI_UNSIGNED_LONG_LONG,
                            MPI_COMM_WORLD));
    for (int r = 0; r < t_size; r++) {
        CHECK_INT(ncvar, all[2 * r], "variables at another rank");
        CHECK_INT(1024, all[2 * r + 1], "IVC_EAGER_LIMIT at another rank");
    }
    CHECK_MPI(MPI_Pcontrol(1));
    CHECK_MPI(MPI_Pcontrol(0, "ignored"));

    /* Two inits, two finalizes. */
    CHECK_T(MPI_SUCCESS, MPI_T_finalize());
    CHECK_T(MPI_SUCCESS, MPI_T_cvar_get_num(&n));
    CHECK_T(MPI_SUCCESS, MPI_T_finalize());
    CHECK_T(MPI_T_ERR_NOT_INITIALIZED, MPI_T_cvar_get_num(&n));
    CHECK_T(MPI_T_ERR_NOT_INITIALIZED, MPI_T_finalize());
    MPI_Finalize();

    /* After MPI_Finalize: the values MPI ran with. */
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_T_init_thread after MPI_Finalize failed\n");
        return 1;
    }
    unsigned long long post = read_ull("IVC_EAGER_LIMIT");
    if (post != 1024) {
        fprintf(stderr, "IVC_EAGER_LIMIT after MPI_Finalize: expected 1024, got %llu\n", post);
        return 1;
    }
    return MPI_T_finalize() == MPI_SUCCESS ? 0 : 1;
}
