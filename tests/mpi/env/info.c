/* Info objects valid at any time, MPI_Info_get_string, MPI_Info_create_env, MPI_INFO_ENV and
 * MPI_Get_hw_resource_info:
 *  - before MPI_Init: create, set, get_string, nkeys/nthkey, dup, delete, free and
 *    create_env work (MPI 4.1 sec. 11.4.1); after MPI_Finalize too;
 *  - Info_get_string: buflen 0 asks for the length only (value untouched), a short buffer
 *    gets a truncated, terminated value and the length needed, a long one the value; an
 *    absent key gives flag 0 and leaves buflen alone;
 *  - Info_create_env(argc, argv): command, argv (the rest, space separated), maxprocs (the
 *    job's size), host (gethostname), arch (uname), wdir (getcwd), each against local
 *    references; MPI_INFO_ENV the same plus thread_level, and it cannot be freed;
 *  - Get_hw_resource_info: mpi_hw_resource_type = mpi_shared_memory, ivc_cpus > 0;
 *  - errors: MPI_ERR_INFO (invalid object, freeing MPI_INFO_ENV), MPI_ERR_INFO_KEY (empty,
 *    too long), MPI_ERR_INFO_NOKEY (delete of an absent key), MPI_ERR_ARG (NULL buflen/flag,
 *    negative buflen, negative argc, NULL output);
 *  - the values are exchanged across ranks: maxprocs agrees everywhere.
 * Run with the arguments "alpha beta" (tests.cmake). */
#include "../t_util.h"

#include <sys/utsname.h>
#include <unistd.h>

#define CHECK_CLASS(expected, call)                                                                \
    do {                                                                                           \
        int t_rc_ = (call), t_c_ = t_rc_;                                                          \
        if (t_rc_ != MPI_SUCCESS)                                                                  \
            MPI_Error_class(t_rc_, &t_c_);                                                         \
        if (t_c_ != (expected))                                                                    \
            t_fail("%s: expected class %d, got %d (rc %d)", #call, (expected), t_c_, t_rc_);       \
    } while (0)

static void check_value(MPI_Info info, const char *key, const char *expected, const char *what)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int buflen = sizeof v, flag = 0;
    CHECK_MPI(MPI_Info_get_string(info, key, &buflen, v, &flag));
    if (expected == NULL) {
        if (flag)
            t_fail("%s: key %s: expected absent, got \"%s\"", what, key, v);
        return;
    }
    if (!flag)
        t_fail("%s: key %s: expected \"%s\", got no such key", what, key, expected);
    if (strcmp(v, expected) != 0)
        t_fail("%s: key %s: expected \"%s\", got \"%s\"", what, key, expected, v);
    CHECK_INT((int)strlen(expected) + 1, buflen, what);
}

/* The checks that hold before MPI_Init as well: returns 0 or prints and returns 1. */
static int pre_init_checks(void)
{
    MPI_Info info, dup;
    char v[16];
    int buflen, flag, n;
    if (MPI_Info_create(&info) != MPI_SUCCESS || MPI_Info_set(info, "k1", "0123456789") ||
        MPI_Info_set(info, "k2", "v2") || MPI_Info_dup(info, &dup) ||
        MPI_Info_delete(dup, "k1") || MPI_Info_get_nkeys(dup, &n) || n != 1) {
        fprintf(stderr, "info calls before MPI_Init: expected success, got a failure\n");
        return 1;
    }
    buflen = 5;
    memset(v, 'x', sizeof v);
    if (MPI_Info_get_string(info, "k1", &buflen, v, &flag) || !flag || buflen != 11 ||
        strcmp(v, "0123") != 0) {
        fprintf(stderr, "Info_get_string before MPI_Init: expected \"0123\", 11, got \"%.5s\", "
                        "%d\n",
                v, buflen);
        return 1;
    }
    MPI_Info env;
    char *args[] = {"/bin/prog", "x", "y z", NULL};
    if (MPI_Info_create_env(3, (void *)args, &env) != MPI_SUCCESS) {
        fprintf(stderr, "Info_create_env before MPI_Init failed\n");
        return 1;
    }
    buflen = sizeof v;
    if (MPI_Info_get_string(env, "argv", &buflen, v, &flag) || !flag || strcmp(v, "x y z")) {
        fprintf(stderr, "Info_create_env before MPI_Init: argv: expected \"x y z\", got \"%s\"\n",
                flag ? v : "(none)");
        return 1;
    }
    MPI_Info_free(&env);
    MPI_Info_free(&dup);
    MPI_Info_free(&info);
    return info != MPI_INFO_NULL;
}

int main(int argc, char **argv)
{
    if (pre_init_checks() != 0)
        return 1;
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (argc != 3 || strcmp(argv[1], "alpha") != 0 || strcmp(argv[2], "beta") != 0)
        t_fail("arguments: expected \"alpha beta\", got %d arguments", argc - 1);

    /* Info_get_string. */
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "key", "abcdefghij"));
    char v[32];
    int buflen = 0, flag = 0;
    memset(v, '#', sizeof v);
    CHECK_MPI(MPI_Info_get_string(info, "key", &buflen, v, &flag));
    CHECK_INT(1, flag, "get_string(buflen 0): flag");
    CHECK_INT(11, buflen, "get_string(buflen 0): length needed");
    t_check_bytes(v, sizeof v, '#', "get_string(buflen 0) leaves the buffer alone");
    buflen = 0;
    CHECK_MPI(MPI_Info_get_string(info, "key", &buflen, NULL, &flag));
    CHECK_INT(11, buflen, "get_string(buflen 0, value NULL)");
    buflen = 4;
    CHECK_MPI(MPI_Info_get_string(info, "key", &buflen, v, &flag));
    CHECK_INT(11, buflen, "get_string(buflen 4): length needed");
    CHECK_TRUE(strcmp(v, "abc") == 0, "get_string(buflen 4) gives \"abc\"");
    CHECK_INT('#', v[4], "get_string(buflen 4) writes 4 bytes");
    buflen = 11;
    CHECK_MPI(MPI_Info_get_string(info, "key", &buflen, v, &flag));
    CHECK_TRUE(strcmp(v, "abcdefghij") == 0, "get_string(buflen 11) gives the whole value");
    CHECK_INT(11, buflen, "get_string(buflen 11)");
    buflen = 9;
    flag = 1;
    CHECK_MPI(MPI_Info_get_string(info, "nokey", &buflen, v, &flag));
    CHECK_INT(0, flag, "get_string of an absent key: flag");
    CHECK_INT(9, buflen, "get_string of an absent key leaves buflen");
    CHECK_MPI(MPI_Info_set(info, "key", ""));
    buflen = sizeof v;
    CHECK_MPI(MPI_Info_get_string(info, "key", &buflen, v, &flag));
    CHECK_INT(1, buflen, "empty value: buflen");
    CHECK_TRUE(flag && v[0] == '\0', "empty value");

    /* Errors. */
    char longkey[MPI_MAX_INFO_KEY + 8];
    memset(longkey, 'k', sizeof longkey);
    longkey[MPI_MAX_INFO_KEY + 4] = '\0';
    buflen = sizeof v;
    CHECK_CLASS(MPI_ERR_INFO, MPI_Info_get_string(MPI_INFO_NULL, "key", &buflen, v, &flag));
    CHECK_CLASS(MPI_ERR_INFO_KEY, MPI_Info_get_string(info, "", &buflen, v, &flag));
    CHECK_CLASS(MPI_ERR_INFO_KEY, MPI_Info_get_string(info, longkey, &buflen, v, &flag));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Info_get_string(info, "key", NULL, v, &flag));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Info_get_string(info, "key", &buflen, v, NULL));
    buflen = -1;
    CHECK_CLASS(MPI_ERR_ARG, MPI_Info_get_string(info, "key", &buflen, v, &flag));
    CHECK_CLASS(MPI_ERR_INFO_NOKEY, MPI_Info_delete(info, "nokey"));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Info_create_env(-1, NULL, &info));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Info_create_env(argc, (void *)argv, NULL));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Get_hw_resource_info(NULL));
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_CLASS(MPI_ERR_INFO, MPI_Info_free(&info));

    /* Info_create_env and MPI_INFO_ENV against local references. */
    char host[MPI_MAX_INFO_VAL], cwd[MPI_MAX_INFO_VAL], size_s[16];
    struct utsname u;
    CHECK_TRUE(gethostname(host, sizeof host) == 0, "gethostname");
    CHECK_TRUE(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
    CHECK_TRUE(uname(&u) == 0, "uname");
    snprintf(size_s, sizeof size_s, "%d", t_size);
    MPI_Info env;
    CHECK_MPI(MPI_Info_create_env(argc, (void *)argv, &env));
    check_value(env, "command", argv[0], "create_env");
    check_value(env, "argv", "alpha beta", "create_env");
    check_value(env, "maxprocs", size_s, "create_env");
    check_value(env, "host", host, "create_env");
    check_value(env, "arch", u.machine, "create_env");
    check_value(env, "wdir", cwd, "create_env");
    CHECK_MPI(MPI_Info_free(&env));
    check_value(MPI_INFO_ENV, "command", argv[0], "MPI_INFO_ENV");
    check_value(MPI_INFO_ENV, "argv", "alpha beta", "MPI_INFO_ENV");
    check_value(MPI_INFO_ENV, "maxprocs", size_s, "MPI_INFO_ENV");
    check_value(MPI_INFO_ENV, "thread_level", "MPI_THREAD_SINGLE", "MPI_INFO_ENV");
    MPI_Info envh = MPI_INFO_ENV;
    CHECK_CLASS(MPI_ERR_INFO, MPI_Info_free(&envh));
    check_value(MPI_INFO_ENV, "host", host, "MPI_INFO_ENV after a refused free");

    /* Every rank reports the same maxprocs. */
    int mp = atoi(size_s), all[64];
    CHECK_MPI(MPI_Allgather(&mp, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < t_size && i < 64; i++)
        CHECK_INT(t_size, all[i], "maxprocs of another rank");

    /* Hardware resources. */
    MPI_Info hw;
    CHECK_MPI(MPI_Get_hw_resource_info(&hw));
    check_value(hw, "mpi_hw_resource_type", "mpi_shared_memory", "hw resource info");
    buflen = sizeof v;
    CHECK_MPI(MPI_Info_get_string(hw, "ivc_cpus", &buflen, v, &flag));
    CHECK_TRUE(flag && atoi(v) > 0, "hw resource info: ivc_cpus > 0");
    CHECK_MPI(MPI_Info_free(&hw));

    MPI_Finalize();
    /* After MPI_Finalize the info functions still work. */
    MPI_Info after;
    char w[8];
    buflen = sizeof w;
    if (MPI_Info_create(&after) || MPI_Info_set(after, "a", "b") ||
        MPI_Info_get_string(after, "a", &buflen, w, &flag) || !flag || strcmp(w, "b") ||
        MPI_Info_free(&after)) {
        fprintf(stderr, "rank %d: info calls after MPI_Finalize: expected success\n", t_rank);
        return 1;
    }
    return 0;
}
