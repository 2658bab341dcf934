/* Attribute caching on datatypes and windows, the MPI-1 keyval forms, and keyval kinds:
 * - datatype keyvals with user callbacks, MPI_TYPE_DUP_FN and MPI_TYPE_NULL_COPY_FN: what
 *   Type_dup copies (values the copy callback made), delete callbacks exactly once on
 *   replace / Type_delete_attr / Type_free, attributes on a predefined type, a freed keyval
 *   still serving its attributes;
 * - window keyvals: set/get/delete next to the predefined MPI_WIN_* keys, delete callback
 *   at Win_free, MPI_WIN_DUP_FN / MPI_WIN_NULL_COPY_FN results;
 * - MPI_Keyval_create / Attr_put / Attr_get / Attr_delete / Keyval_free with MPI_DUP_FN,
 *   MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN and user MPI_Copy_function / MPI_Delete_function;
 * - a keyval of one kind used on another object kind: MPI_ERR_KEYVAL (also the predefined
 *   communicator keys on a datatype, and freeing with the wrong kind's call);
 * - MPI_LASTUSEDCODE at least MPI_ERR_LASTCODE, and at least a code added by
 *   MPI_Add_error_code;
 * - MPI_ERR_TYPE / MPI_ERR_WIN for null handles. Any NP >= 1; data exchanged with messages
 *   through a window attribute's value at NP >= 2. */
#include "../t_util.h"

#define CHECK_CLASS(expected, call, what)                                                          \
    do {                                                                                           \
        int t_c_ = (call);                                                                         \
        if (t_c_ != MPI_SUCCESS)                                                                   \
            MPI_Error_class(t_c_, &t_c_);                                                          \
        CHECK_INT((expected), t_c_, (what));                                                       \
    } while (0)

static int t_copies, t_deletes, w_deletes, c_copies, c_deletes;
static long last_deleted;

/* Copies value v as v + 100 (so a copy is told apart from a shared pointer value). */
static int type_copy(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    t_copies++;
    CHECK_INT(7, *(int *)extra, "datatype copy callback: extra_state");
    *(long *)out = (long)in + 100;
    *flag = 1;
    return MPI_SUCCESS;
}

static int type_delete(MPI_Datatype t, int k, void *val, void *extra)
{
    t_deletes++;
    last_deleted = (long)val;
    return MPI_SUCCESS;
}

static int win_delete(MPI_Win w, int k, void *val, void *extra)
{
    w_deletes++;
    last_deleted = (long)val;
    return MPI_SUCCESS;
}

static int old_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    c_copies++;
    *(long *)out = (long)in * 2;
    *flag = 1;
    return MPI_SUCCESS;
}

static int old_delete(MPI_Comm c, int k, void *val, void *extra)
{
    c_deletes++;
    return MPI_SUCCESS;
}

static long get_type_attr(MPI_Datatype t, int key, int *flag)
{
    void *v = NULL;
    *flag = -1;
    CHECK_MPI(MPI_Type_get_attr(t, key, &v, flag));
    return (long)v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int flag;
    static int extra = 7;

    /* ---- datatypes ---- */
    int kuser, kdup, knull;
    CHECK_MPI(MPI_Type_create_keyval(type_copy, type_delete, &kuser, &extra));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, type_delete, &kdup, NULL));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &knull, NULL));
    CHECK_TRUE(kuser != kdup && kdup != knull && kuser != knull, "distinct keyvals");
    MPI_Datatype vec, dup;
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    get_type_attr(vec, kuser, &flag);
    CHECK_INT(0, flag, "Type_get_attr before set");
    CHECK_MPI(MPI_Type_set_attr(vec, kuser, (void *)1L));
    CHECK_MPI(MPI_Type_set_attr(vec, kuser, (void *)2L)); /* replaces: deletes value 1 */
    CHECK_INT(1, t_deletes, "delete callback on replace");
    CHECK_INT(1, last_deleted, "delete callback got the replaced value");
    CHECK_MPI(MPI_Type_set_attr(vec, kdup, (void *)3L));
    CHECK_MPI(MPI_Type_set_attr(vec, knull, (void *)4L));
    CHECK_INT(2, get_type_attr(vec, kuser, &flag), "Type_get_attr value");
    CHECK_INT(1, flag, "Type_get_attr flag");

    CHECK_MPI(MPI_Type_dup(vec, &dup));
    CHECK_INT(1, t_copies, "copy callback runs once at Type_dup");
    CHECK_INT(102, get_type_attr(dup, kuser, &flag), "user-copied attribute on the dup");
    CHECK_INT(1, flag, "user-copied attribute present");
    CHECK_INT(3, get_type_attr(dup, kdup, &flag), "MPI_TYPE_DUP_FN attribute on the dup");
    CHECK_INT(1, flag, "MPI_TYPE_DUP_FN attribute present");
    get_type_attr(dup, knull, &flag);
    CHECK_INT(0, flag, "MPI_TYPE_NULL_COPY_FN attribute not copied");
    CHECK_INT(2, get_type_attr(vec, kuser, &flag), "original keeps its value");
    {
        /* the dup still describes the same data */
        int src[12], dst[12];
        for (int i = 0; i < 12; i++)
            src[i] = 10 + i, dst[i] = -1;
        MPI_Sendrecv(src, 1, dup, 0, 0, dst, 1, vec, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
        for (int i = 0; i < 12; i++)
            CHECK_INT(i % 4 < 2 && i < 10 ? 10 + i : -1, dst[i], "data through the dup type");
    }

    CHECK_MPI(MPI_Type_delete_attr(vec, kuser));
    CHECK_INT(2, t_deletes, "delete callback at Type_delete_attr");
    CHECK_INT(2, last_deleted, "Type_delete_attr deleted value");
    get_type_attr(vec, kuser, &flag);
    CHECK_INT(0, flag, "attribute gone after Type_delete_attr");
    CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Type_delete_attr(vec, kuser),
                "Type_delete_attr of an absent attribute");

    /* A freed keyval keeps serving attributes set with it. */
    CHECK_MPI(MPI_Type_free_keyval(&kuser));
    CHECK_INT(MPI_KEYVAL_INVALID, kuser, "Type_free_keyval sets MPI_KEYVAL_INVALID");
    t_deletes = 0;
    CHECK_MPI(MPI_Type_free(&vec)); /* deletes kdup's (3); knull has no callback */
    CHECK_INT(1, t_deletes, "delete callbacks at Type_free");
    CHECK_INT(3, last_deleted, "Type_free deleted value");
    CHECK_MPI(MPI_Type_free(&dup)); /* deletes the user copy (102) and kdup's (3) */
    CHECK_INT(3, t_deletes, "delete callbacks at Type_free of the dup");

    /* Predefined datatype. */
    CHECK_MPI(MPI_Type_set_attr(MPI_INT, kdup, (void *)55L));
    CHECK_INT(55, get_type_attr(MPI_INT, kdup, &flag), "attribute on MPI_INT");
    CHECK_MPI(MPI_Type_delete_attr(MPI_INT, kdup));
    CHECK_INT(4, t_deletes, "delete callback for MPI_INT's attribute");

    /* ---- windows ---- */
    int kw, kw2;
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_DUP_FN, win_delete, &kw, NULL));
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &kw2, NULL));
    MPI_Win win;
    int winbuf[4] = {0, 0, 0, 0};
    CHECK_MPI(
        MPI_Win_create(winbuf, sizeof winbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    void *v = NULL;
    CHECK_MPI(MPI_Win_get_attr(win, kw, &v, &flag));
    CHECK_INT(0, flag, "Win_get_attr before set");
    CHECK_MPI(MPI_Win_set_attr(win, kw, (void *)(long)(500 + t_rank)));
    CHECK_MPI(MPI_Win_set_attr(win, kw2, (void *)9L));
    CHECK_MPI(MPI_Win_get_attr(win, kw, &v, &flag));
    CHECK_INT(1, flag, "Win_get_attr flag");
    CHECK_INT(500 + t_rank, (long)v, "Win_get_attr value");
    MPI_Aint *sizep = NULL;
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sizep, &flag));
    CHECK_INT(1, flag, "MPI_WIN_SIZE flag next to user attributes");
    CHECK_INT((long)sizeof winbuf, (long)*sizep, "MPI_WIN_SIZE");
    CHECK_MPI(MPI_Win_delete_attr(win, kw2));
    CHECK_MPI(MPI_Win_get_attr(win, kw2, &v, &flag));
    CHECK_INT(0, flag, "window attribute gone after Win_delete_attr");
    CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Win_delete_attr(win, kw2), "Win_delete_attr of an absent one");
    {
        /* The attribute value travels: every rank puts its value into its right neighbour. */
        int val = 0;
        CHECK_MPI(MPI_Win_get_attr(win, kw, &v, &flag));
        val = (int)(long)v;
        MPI_Win_fence(0, win);
        CHECK_MPI(MPI_Put(&val, 1, MPI_INT, (t_rank + 1) % t_size, 1, 1, MPI_INT, win));
        MPI_Win_fence(0, win);
        CHECK_INT(500 + (t_rank + t_size - 1) % t_size, winbuf[1], "value put from the neighbour");
    }
    void *out = NULL;
    flag = -1;
    CHECK_MPI(MPI_WIN_DUP_FN(win, kw, NULL, (void *)5L, &out, &flag));
    CHECK_INT(1, flag, "MPI_WIN_DUP_FN flag");
    CHECK_INT(5, (long)out, "MPI_WIN_DUP_FN value");
    CHECK_MPI(MPI_WIN_NULL_COPY_FN(win, kw, NULL, (void *)5L, &out, &flag));
    CHECK_INT(0, flag, "MPI_WIN_NULL_COPY_FN flag");
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_INT(1, w_deletes, "delete callback at Win_free");
    CHECK_INT(500 + t_rank, last_deleted, "Win_free deleted value");
    CHECK_MPI(MPI_Win_free_keyval(&kw));
    CHECK_MPI(MPI_Win_free_keyval(&kw2));

    /* ---- MPI-1 forms ---- */
    int kold, kold_dup, kold_null;
    CHECK_MPI(MPI_Keyval_create(old_copy, old_delete, &kold, NULL));
    CHECK_MPI(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &kold_dup, NULL));
    CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &kold_null, NULL));
    MPI_Comm base, cd;
    MPI_Comm_dup(MPI_COMM_WORLD, &base);
    CHECK_MPI(MPI_Attr_put(base, kold, (void *)21L));
    CHECK_MPI(MPI_Attr_put(base, kold_dup, (void *)22L));
    CHECK_MPI(MPI_Attr_put(base, kold_null, (void *)23L));
    v = NULL;
    CHECK_MPI(MPI_Attr_get(base, kold, &v, &flag));
    CHECK_INT(1, flag, "Attr_get flag");
    CHECK_INT(21, (long)v, "Attr_get value");
    CHECK_MPI(MPI_Comm_get_attr(base, kold_dup, &v, &flag)); /* the same keyvals */
    CHECK_INT(22, (long)v, "Comm_get_attr of an Attr_put value");
    CHECK_MPI(MPI_Comm_dup(base, &cd));
    CHECK_INT(1, c_copies, "MPI_Copy_function at Comm_dup");
    CHECK_MPI(MPI_Attr_get(cd, kold, &v, &flag));
    CHECK_INT(42, (long)v, "user MPI_Copy_function's value on the dup");
    CHECK_MPI(MPI_Attr_get(cd, kold_dup, &v, &flag));
    CHECK_INT(22, (long)v, "MPI_DUP_FN value on the dup");
    CHECK_MPI(MPI_Attr_get(cd, kold_null, &v, &flag));
    CHECK_INT(0, flag, "MPI_NULL_COPY_FN attribute not on the dup");
    CHECK_MPI(MPI_Attr_delete(base, kold));
    CHECK_INT(1, c_deletes, "MPI_Delete_function at Attr_delete");
    CHECK_MPI(MPI_Attr_get(base, kold, &v, &flag));
    CHECK_INT(0, flag, "attribute gone after Attr_delete");
    CHECK_MPI(MPI_Comm_free(&cd));
    CHECK_INT(2, c_deletes, "MPI_Delete_function at Comm_free of the dup");
    CHECK_MPI(MPI_Keyval_free(&kold));
    CHECK_INT(MPI_KEYVAL_INVALID, kold, "Keyval_free sets MPI_KEYVAL_INVALID");
    {
        /* the dup still carries messages */
        int a = t_rank, b = -1;
        MPI_Sendrecv(&a, 1, MPI_INT, (t_rank + 1) % t_size, 0, &b, 1, MPI_INT,
                     (t_rank + t_size - 1) % t_size, 0, base, MPI_STATUS_IGNORE);
        CHECK_INT((t_rank + t_size - 1) % t_size, b, "message on the communicator with attributes");
    }

    /* ---- kinds are not confused ---- */
    int kc, kt;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kc, NULL));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &kt, NULL));
    CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Comm_set_attr(base, kt, NULL), "Comm_set_attr, type keyval");
    CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Comm_get_attr(base, kt, &v, &flag),
                "Comm_get_attr, type keyval");
    CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Attr_put(base, kt, NULL), "Attr_put, type keyval");
    CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Type_set_attr(MPI_INT, kc, NULL), "Type_set_attr, comm keyval");
    CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Type_get_attr(MPI_INT, kc, &v, &flag),
                "Type_get_attr, comm keyval");
    CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Type_get_attr(MPI_INT, MPI_TAG_UB, &v, &flag),
                "Type_get_attr, MPI_TAG_UB");
    CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Type_free_keyval(&kc), "Type_free_keyval of a comm keyval");
    CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&kt), "Comm_free_keyval of a type keyval");
    CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Win_free_keyval(&kt), "Win_free_keyval of a type keyval");
    CHECK_MPI(
        MPI_Win_create(winbuf, sizeof winbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Win_set_attr(win, kt, NULL), "Win_set_attr, type keyval");
    CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Win_get_attr(win, kc, &v, &flag), "Win_get_attr, comm keyval");
    CHECK_CLASS(MPI_ERR_WIN, MPI_Win_set_attr(MPI_WIN_NULL, kt, NULL), "Win_set_attr(WIN_NULL)");
    MPI_Win_free(&win);
    CHECK_CLASS(MPI_ERR_TYPE, MPI_Type_set_attr(MPI_DATATYPE_NULL, kt, NULL),
                "Type_set_attr(DATATYPE_NULL)");
    CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Type_set_attr(MPI_INT, MPI_KEYVAL_INVALID, NULL),
                "Type_set_attr(MPI_KEYVAL_INVALID)");
    MPI_Comm_free_keyval(&kc);
    MPI_Type_free_keyval(&kt);

    /* ---- a keyval freed again through a copy of its handle ---- */
    {
        /* While an attribute still holds it, a second free is let through (MPICH's
         * keyval_double_free tests; a delete callback that frees its keyval is an idiom);
         * once the attribute is gone the handle is invalid. */
        int k, copy1, copy2;
        MPI_Comm dup;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &dup));
        MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
        CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL));
        copy1 = copy2 = k;
        CHECK_MPI(MPI_Comm_set_attr(dup, k, (void *)7));
        CHECK_MPI(MPI_Comm_free_keyval(&k));
        CHECK_CLASS(MPI_SUCCESS, MPI_Comm_free_keyval(&copy1), "second free, attribute alive");
        CHECK_INT(MPI_KEYVAL_INVALID, copy1, "second free sets MPI_KEYVAL_INVALID");
        void *got = NULL;
        CHECK_MPI(MPI_Comm_get_attr(dup, copy2, &got, &flag));
        CHECK_TRUE(flag && got == (void *)7, "attribute of a twice-freed keyval still served");
        CHECK_MPI(MPI_Comm_free(&dup));
        CHECK_CLASS(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&copy2), "free after the last attribute");
    }

    /* ---- MPI_LASTUSEDCODE ---- */
    int *lastp = NULL;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastp, &flag));
    CHECK_INT(1, flag, "MPI_LASTUSEDCODE flag");
    CHECK_TRUE(*lastp >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE >= MPI_ERR_LASTCODE");
    int cls, code;
    if (MPI_Add_error_class(&cls) == MPI_SUCCESS && MPI_Add_error_code(cls, &code) == MPI_SUCCESS) {
        CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastp, &flag));
        CHECK_TRUE(*lastp >= code, "MPI_LASTUSEDCODE >= an added error code");
        CHECK_TRUE(*lastp >= cls, "MPI_LASTUSEDCODE >= an added error class");
    }

    MPI_Type_free_keyval(&kdup);
    MPI_Type_free_keyval(&knull);
    MPI_Keyval_free(&kold_dup);
    MPI_Keyval_free(&kold_null);
    MPI_Comm_free(&base);
    MPI_Finalize();
    return 0;
}
