/* Error classes, codes and strings the program adds and removes (MPI_Add_error_class/code/
 * string, MPI_Remove_error_class/code/string), MPI_Error_class/Error_string for them, the
 * MPI_LASTUSEDCODE attribute, and the error classes of their misuse:
 *  - before MPI_Init (they may be called at any time): a class added then is usable after;
 *  - new classes and codes lie above MPI_ERR_LASTCODE, are distinct, map to their class;
 *    codes may be added to predefined classes too;
 *  - Error_string is "" until a string is added, the string after, a replaced one after a
 *    second call, "" again after Remove_error_string;
 *  - MPI_LASTUSEDCODE >= every value in use;
 *  - with MPI_ERRORS_RETURN: MPI_ERR_ARG for a string on a predefined class, a too long
 *    string, a code added to a code or to an unknown class, removing a code that still has a
 *    string, a class that still has codes or its string, a predefined class or code, a value
 *    twice, and Error_class/Error_string of removed values;
 *  - a user communicator handler given a user code by Comm_call_errhandler sees that code;
 *  - communication still works afterwards (a ring exchange checks data). */
#include "../t_util.h"

static int last_code = -1;
static MPI_Comm last_comm = MPI_COMM_NULL;
static int calls;

static void comm_handler(MPI_Comm *comm, int *code, ...)
{
    last_comm = *comm;
    last_code = *code;
    calls++;
}

#define CHECK_CLASS(expected, call)                                                                \
    do {                                                                                           \
        int t_rc_ = (call), t_c_ = t_rc_;                                                          \
        if (t_rc_ != MPI_SUCCESS)                                                                  \
            MPI_Error_class(t_rc_, &t_c_);                                                         \
        if (t_c_ != (expected))                                                                    \
            t_fail("%s: expected class %d, got %d (rc %d)", #call, (expected), t_c_, t_rc_);       \
    } while (0)

static void check_string(int code, const char *expected, const char *what)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    memset(s, 'x', sizeof s);
    CHECK_MPI(MPI_Error_string(code, s, &len));
    if (strcmp(s, expected) != 0)
        t_fail("%s: Error_string(%d): expected \"%s\", got \"%s\"", what, code, expected, s);
    CHECK_INT((int)strlen(expected), len, what);
}

int main(int argc, char **argv)
{
    /* Valid before MPI_Init (MPI 4.1 sec. 11.4.1). */
    int early = -1, early_code = -1;
    if (MPI_Add_error_class(&early) != MPI_SUCCESS || MPI_Add_error_code(early, &early_code) !=
                                                          MPI_SUCCESS ||
        MPI_Add_error_string(early_code, "added before MPI_Init") != MPI_SUCCESS) {
        fprintf(stderr, "adding an error class, code and string before MPI_Init failed\n");
        return 1;
    }
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls;

    CHECK_TRUE(early > MPI_ERR_LASTCODE, "class added before MPI_Init > MPI_ERR_LASTCODE");
    CHECK_MPI(MPI_Error_class(early_code, &cls));
    CHECK_INT(early, cls, "Error_class of the code added before MPI_Init");
    check_string(early_code, "added before MPI_Init", "string added before MPI_Init");

    /* New classes and codes. */
    int c1, c2, e1, e2, e3;
    CHECK_MPI(MPI_Add_error_class(&c1));
    CHECK_MPI(MPI_Add_error_class(&c2));
    CHECK_MPI(MPI_Add_error_code(c1, &e1));
    CHECK_MPI(MPI_Add_error_code(c1, &e2));
    CHECK_MPI(MPI_Add_error_code(MPI_ERR_ARG, &e3));
    int vals[] = {early, early_code, c1, c2, e1, e2, e3}, nv = 7, maxv = 0;
    for (int i = 0; i < nv; i++) {
        if (vals[i] <= MPI_ERR_LASTCODE)
            t_fail("value %d: expected > MPI_ERR_LASTCODE=%d, got %d", i, MPI_ERR_LASTCODE,
                   vals[i]);
        for (int j = 0; j < i; j++)
            if (vals[j] == vals[i])
                t_fail("values %d and %d: expected distinct, got both %d", j, i, vals[i]);
        maxv = vals[i] > maxv ? vals[i] : maxv;
    }
    CHECK_MPI(MPI_Error_class(c1, &cls));
    CHECK_INT(c1, cls, "Error_class(c1)");
    CHECK_MPI(MPI_Error_class(c2, &cls));
    CHECK_INT(c2, cls, "Error_class(c2)");
    CHECK_MPI(MPI_Error_class(e1, &cls));
    CHECK_INT(c1, cls, "Error_class(e1)");
    CHECK_MPI(MPI_Error_class(e2, &cls));
    CHECK_INT(c1, cls, "Error_class(e2)");
    CHECK_MPI(MPI_Error_class(e3, &cls));
    CHECK_INT(MPI_ERR_ARG, cls, "Error_class(e3) (a code of a predefined class)");

    /* MPI_LASTUSEDCODE covers every value in use. */
    int *last = NULL, flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK_TRUE(flag, "MPI_LASTUSEDCODE is set");
    if (*last < maxv || *last < MPI_ERR_LASTCODE)
        t_fail("MPI_LASTUSEDCODE: expected >= %d (and >= MPI_ERR_LASTCODE), got %d", maxv, *last);

    /* Strings. */
    check_string(e1, "", "no string yet");
    check_string(c2, "", "class without a string");
    CHECK_MPI(MPI_Add_error_string(e1, "first text"));
    check_string(e1, "first text", "after Add_error_string");
    CHECK_MPI(MPI_Add_error_string(e1, "second text"));
    check_string(e1, "second text", "after a second Add_error_string");
    CHECK_MPI(MPI_Add_error_string(c1, "class one"));
    check_string(c1, "class one", "class string");
    check_string(e2, "", "other code of the class keeps no string");
    char big[MPI_MAX_ERROR_STRING + 8];
    memset(big, 'a', sizeof big);
    big[MPI_MAX_ERROR_STRING] = '\0'; /* MPI_MAX_ERROR_STRING characters: one too many */
    CHECK_CLASS(MPI_ERR_ARG, MPI_Add_error_string(e2, big));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Add_error_string(MPI_ERR_ARG, "predefined"));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Add_error_string(maxv + 100, "unknown"));
    check_string(MPI_ERR_ARG, "invalid argument", "predefined string unchanged");

    /* Misuse of codes and classes. */
    int bad = -1;
    CHECK_CLASS(MPI_ERR_ARG, MPI_Add_error_code(e1, &bad));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Add_error_code(maxv + 100, &bad));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Remove_error_class(MPI_ERR_ARG));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Remove_error_code(MPI_ERR_ARG));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Remove_error_string(MPI_ERR_ARG));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Remove_error_code(c1)); /* a class, not a code */
    CHECK_CLASS(MPI_ERR_ARG, MPI_Remove_error_class(e1)); /* a code, not a class */
    CHECK_CLASS(MPI_ERR_ARG, MPI_Remove_error_code(e1));  /* still has its string */
    CHECK_CLASS(MPI_ERR_ARG, MPI_Remove_error_class(c1)); /* still has codes */
    CHECK_CLASS(MPI_ERR_ARG, MPI_Remove_error_string(e2)); /* has none */

    /* A user handler sees the code it is given. */
    MPI_Errhandler eh;
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Comm_create_errhandler(comm_handler, &eh));
    CHECK_MPI(MPI_Comm_set_errhandler(dup, eh));
    CHECK_MPI(MPI_Comm_call_errhandler(dup, e1));
    CHECK_INT(1, calls, "handler calls after Comm_call_errhandler");
    CHECK_INT(e1, last_code, "code seen by the handler");
    CHECK_TRUE(last_comm == dup, "handler gets the communicator");
    /* A real error on dup: the handler gets the class, the call returns it. */
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, t_size + 5, 0, dup);
    CHECK_INT(MPI_ERR_RANK, rc, "Send to an invalid rank through a user handler");
    CHECK_INT(2, calls, "handler calls after the failed Send");
    CHECK_INT(MPI_ERR_RANK, last_code, "class seen by the handler");
    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK_TRUE(eh == MPI_ERRHANDLER_NULL, "Errhandler_free sets MPI_ERRHANDLER_NULL");
    /* Still attached to dup: freeing only dropped the user's reference. */
    CHECK_MPI(MPI_Comm_call_errhandler(dup, c2));
    CHECK_INT(3, calls, "handler still called after Errhandler_free");
    CHECK_INT(c2, last_code, "class seen by the freed handler");
    CHECK_MPI(MPI_Comm_free(&dup));

    /* Removing, in the required order. */
    CHECK_MPI(MPI_Remove_error_string(e1));
    check_string(e1, "", "after Remove_error_string");
    CHECK_CLASS(MPI_ERR_ARG, MPI_Remove_error_string(e1));
    CHECK_MPI(MPI_Remove_error_code(e1));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Error_class(e1, &cls));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Remove_error_code(e1));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Remove_error_class(c1)); /* e2 remains */
    CHECK_MPI(MPI_Remove_error_code(e2));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Remove_error_class(c1)); /* still has its string */
    CHECK_MPI(MPI_Remove_error_string(c1));
    check_string(c1, "", "class string after Remove_error_string");
    CHECK_MPI(MPI_Remove_error_class(c1));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Error_class(c1, &cls));
    CHECK_CLASS(MPI_ERR_ARG, MPI_Error_class(e2, &cls));
    char s[MPI_MAX_ERROR_STRING];
    int len;
    CHECK_CLASS(MPI_ERR_ARG, MPI_Error_string(c1, s, &len));
    CHECK_MPI(MPI_Error_class(c2, &cls));
    CHECK_INT(c2, cls, "c2 survives the removal of c1");
    CHECK_MPI(MPI_Error_class(e3, &cls));
    CHECK_INT(MPI_ERR_ARG, cls, "e3 survives");
    CHECK_MPI(MPI_Remove_error_code(e3));
    CHECK_MPI(MPI_Remove_error_class(c2));
    /* A new class after removals is distinct from every value still in use. */
    int c4;
    CHECK_MPI(MPI_Add_error_class(&c4));
    CHECK_TRUE(c4 > MPI_ERR_LASTCODE && c4 != early && c4 != early_code, "new class distinct");
    CHECK_MPI(MPI_Error_class(c4, &cls));
    CHECK_INT(c4, cls, "Error_class(c4)");

    /* Communication still works: a ring exchange of rank-dependent values. */
    int next = (t_rank + 1) % t_size, prev = (t_rank + t_size - 1) % t_size, got = -1,
        mine = 1000 + t_rank;
    CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, next, 7, &got, 1, MPI_INT, prev, 7, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK_INT(1000 + prev, got, "ring value");
    MPI_Finalize();
    /* Valid after MPI_Finalize as well. */
    if (MPI_Error_class(early_code, &cls) != MPI_SUCCESS || cls != early) {
        fprintf(stderr, "rank %d: Error_class after MPI_Finalize: expected %d, got %d\n", t_rank,
                early, cls);
        return 1;
    }
    return 0;
}
