/* Info objects, attribute caching, names:
 *  - Info_set/get/get_valuelen/get_nkeys/get_nthkey (insertion order)/delete/dup/free,
 *    replacing a value, truncation to valuelen, a missing key, errors for bad keys;
 *  - Comm_create_keyval with MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN / user callbacks:
 *    Comm_dup copies what the copy callbacks say (the user callback's output value), the
 *    delete callback runs exactly once per attribute on Comm_delete_attr, on replacing a
 *    value, on Comm_free, and for MPI_COMM_SELF at MPI_Finalize; a freed keyval keeps
 *    working for the attributes that use it; MPI_TAG_UB etc. still answer;
 *  - Comm_set_name/get_name, Type_set_name/get_name (predefined and derived); the null
 *    handles' names (MPI-4.1: MPI_COMM_NULL, MPI_DATATYPE_NULL, MPI_WIN_NULL). */
#include "t_util.h"

#include <unistd.h>

/* The error class of a call's return code (another MPI may return codes, not classes). */
#define CHECK_CLASS(expected, call, what)                                                          \
    do {                                                                                           \
        int t_c_ = (call);                                                                         \
        if (t_c_ != MPI_SUCCESS)                                                                   \
            MPI_Error_class(t_c_, &t_c_);                                                          \
        CHECK_INT((expected), t_c_, (what));                                                       \
    } while (0)

/* --lenient: skip checks of behaviour the standard allows but does not require (used to
 * validate the test itself against MPICH, see README.md). */
static int t_lenient;

static int deletes, copies, self_deleted;

static int my_copy(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c;
    (void)key;
    copies++;
    CHECK_INT(42, *(int *)extra, "extra_state reaches the copy callback");
    *(long *)out = (long)in + 1000; /* the copy gets a different value */
    *flag = 1;
    return MPI_SUCCESS;
}

static int my_delete(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c;
    (void)key;
    (void)val;
    (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static int self_delete(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c;
    (void)key;
    (void)extra;
    self_deleted++;
    /* Runs at the start of MPI_Finalize: MPI still works. */
    int flag;
    MPI_Initialized(&flag);
    if (!flag || (long)val != 77)
        _exit(3);
    return MPI_SUCCESS;
}

static void info_tests(void)
{
    MPI_Info info, dup;
    int n, flag, len;
    char val[64], key[MPI_MAX_INFO_KEY + 1];
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_get_nkeys(info, &n));
    CHECK_INT(0, n, "new info is empty");
    CHECK_MPI(MPI_Info_set(info, "alpha", "1"));
    CHECK_MPI(MPI_Info_set(info, "beta", "two"));
    CHECK_MPI(MPI_Info_set(info, "gamma", "three3"));
    CHECK_MPI(MPI_Info_set(info, "alpha", "uno")); /* replace keeps the position */
    CHECK_MPI(MPI_Info_get_nkeys(info, &n));
    CHECK_INT(3, n, "nkeys");
    const char *order[3] = {"alpha", "beta", "gamma"};
    for (int i = 0; i < 3; i++) {
        CHECK_MPI(MPI_Info_get_nthkey(info, i, key));
        CHECK_TRUE(strcmp(key, order[i]) == 0, "get_nthkey follows insertion order");
    }
    CHECK_MPI(MPI_Info_get(info, "alpha", sizeof val - 1, val, &flag));
    CHECK_TRUE(flag && strcmp(val, "uno") == 0, "replaced value");
    CHECK_MPI(MPI_Info_get_valuelen(info, "gamma", &len, &flag));
    CHECK_INT(6, len, "valuelen");
    if (!t_lenient) { /* MPICH 4.0 refuses instead of truncating */
        CHECK_MPI(MPI_Info_get(info, "gamma", 3, val, &flag));
        CHECK_TRUE(flag && strcmp(val, "thr") == 0, "value truncated to valuelen");
    }
    CHECK_MPI(MPI_Info_get(info, "delta", sizeof val - 1, val, &flag));
    CHECK_INT(0, flag, "missing key");
    CHECK_MPI(MPI_Info_dup(info, &dup));
    CHECK_MPI(MPI_Info_delete(info, "beta"));
    CHECK_MPI(MPI_Info_get_nkeys(info, &n));
    CHECK_INT(2, n, "nkeys after delete");
    CHECK_MPI(MPI_Info_get_nkeys(dup, &n));
    CHECK_INT(3, n, "the duplicate is independent");
    CHECK_MPI(MPI_Info_get(dup, "beta", sizeof val - 1, val, &flag));
    CHECK_TRUE(flag && strcmp(val, "two") == 0, "duplicate value");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_CLASS(MPI_ERR_INFO_NOKEY, MPI_Info_delete(info, "beta"), "delete a missing key");
    CHECK_CLASS(MPI_ERR_INFO_KEY, MPI_Info_set(info, "", "x"), "empty key");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_TRUE(info == MPI_INFO_NULL, "Info_free nulls the handle");
    CHECK_MPI(MPI_Info_free(&dup));
}

static void attr_tests(void)
{
    int extra = 42, kdup, knull, kuser, flag;
    void *v;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, my_delete, &kdup, &extra));
    CHECK_MPI(
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knull, &extra));
    CHECK_MPI(MPI_Comm_create_keyval(my_copy, my_delete, &kuser, &extra));
    CHECK_TRUE(kdup != knull && knull != kuser && kdup != MPI_KEYVAL_INVALID, "distinct keyvals");

    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    CHECK_MPI(MPI_Comm_get_attr(a, kdup, &v, &flag));
    CHECK_INT(0, flag, "no attribute yet");
    CHECK_MPI(MPI_Comm_set_attr(a, kdup, (void *)11L));
    CHECK_MPI(MPI_Comm_set_attr(a, knull, (void *)22L));
    CHECK_MPI(MPI_Comm_set_attr(a, kuser, (void *)33L));
    CHECK_MPI(MPI_Comm_set_attr(a, kdup, (void *)12L)); /* replacing deletes the old value */
    CHECK_INT(1, deletes, "delete callback on replace");
    CHECK_MPI(MPI_Comm_get_attr(a, kdup, &v, &flag));
    CHECK_TRUE(flag && (long)v == 12, "replaced value");

    CHECK_MPI(MPI_Comm_dup(a, &b));
    CHECK_INT(1, copies, "user copy callback ran once");
    CHECK_MPI(MPI_Comm_get_attr(b, kdup, &v, &flag));
    CHECK_TRUE(flag && (long)v == 12, "MPI_COMM_DUP_FN copies the value");
    CHECK_MPI(MPI_Comm_get_attr(b, knull, &v, &flag));
    CHECK_INT(0, flag, "MPI_COMM_NULL_COPY_FN does not copy");
    CHECK_MPI(MPI_Comm_get_attr(b, kuser, &v, &flag));
    CHECK_TRUE(flag && (long)v == 1033, "user copy callback's value");
    CHECK_MPI(MPI_Comm_get_attr(a, kuser, &v, &flag));
    CHECK_TRUE(flag && (long)v == 33, "the original keeps its value");

    /* A freed keyval still serves its attributes. */
    CHECK_MPI(MPI_Comm_free_keyval(&kuser));
    CHECK_INT(MPI_KEYVAL_INVALID, kuser, "free_keyval nulls the keyval");

    deletes = 0;
    CHECK_MPI(MPI_Comm_delete_attr(a, kdup));
    CHECK_INT(1, deletes, "delete callback on delete_attr");
    CHECK_MPI(MPI_Comm_get_attr(a, kdup, &v, &flag));
    CHECK_INT(0, flag, "deleted attribute is gone");
    deletes = 0;
    MPI_Comm_free(&a); /* kuser's attribute: 1 delete */
    CHECK_INT(1, deletes, "delete callbacks on Comm_free of a");
    deletes = 0;
    MPI_Comm_free(&b); /* kdup and kuser: 2 deletes */
    CHECK_INT(2, deletes, "delete callbacks on Comm_free of b");

    /* Predefined keys still answer. */
    int *tag_ub;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK_TRUE(flag && *tag_ub >= 32767, "MPI_TAG_UB");
    /* COMM_SELF's attribute is deleted at the start of MPI_Finalize. */
    int kself;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &kself, NULL));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kself, (void *)77L));
    CHECK_MPI(MPI_Comm_free_keyval(&kdup));
    CHECK_MPI(MPI_Comm_free_keyval(&knull));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Comm_set_attr(MPI_COMM_WORLD, kdup, NULL),
                "set_attr with a freed keyval handle");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void name_tests(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    CHECK_MPI(MPI_Comm_set_name(c, "solver"));
    CHECK_MPI(MPI_Comm_get_name(c, name, &len));
    CHECK_TRUE(strcmp(name, "solver") == 0 && len == 6, "communicator name");
    MPI_Comm_free(&c);
    CHECK_MPI(MPI_Type_get_name(MPI_DOUBLE, name, &len));
    CHECK_TRUE(strcmp(name, "MPI_DOUBLE") == 0, "predefined type name");
    MPI_Datatype t;
    MPI_Type_contiguous(3, MPI_INT, &t);
    CHECK_MPI(MPI_Type_set_name(t, "triple"));
    CHECK_MPI(MPI_Type_get_name(t, name, &len));
    CHECK_TRUE(strcmp(name, "triple") == 0 && len == 6, "derived type name");
    MPI_Type_free(&t);
    len = -1;
    CHECK_MPI(MPI_Comm_get_name(MPI_COMM_NULL, name, &len));
    CHECK_TRUE(strcmp(name, "MPI_COMM_NULL") == 0 && len == 13, "MPI_COMM_NULL's name");
    len = -1;
    CHECK_MPI(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len));
    CHECK_TRUE(strcmp(name, "MPI_DATATYPE_NULL") == 0 && len == 17, "MPI_DATATYPE_NULL's name");
    len = -1;
    CHECK_MPI(MPI_Win_get_name(MPI_WIN_NULL, name, &len));
    CHECK_TRUE(strcmp(name, "MPI_WIN_NULL") == 0 && len == 12, "MPI_WIN_NULL's name");
    MPI_Aint a1, a2;
    double d[2];
    MPI_Get_address(&d[0], &a1);
    MPI_Get_address(&d[1], &a2);
    CHECK_INT(sizeof(double), a2 - a1, "Get_address difference");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_lenient = argc > 1 && strcmp(argv[1], "--lenient") == 0;
    info_tests();
    attr_tests();
    name_tests();
    MPI_Finalize();
    return self_deleted == 1 ? 0 : 4;
}
