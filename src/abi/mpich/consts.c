/* The constants of MPICH's ABI as the conversion layer maps them: predefined handles, error
 * classes, keyvals, combiners, type classes and split types (facts: mpich_abi.h). */
#include "abi.h"

const unsigned char abi_kind_obj[ABI_K_N] = {
    [ABI_K_COMM] = ABI_OBJ_COMM,
    [ABI_K_DATATYPE] = ABI_OBJ_DATATYPE,
    [ABI_K_GROUP] = ABI_OBJ_GROUP,
    [ABI_K_OP] = ABI_OBJ_OP,
    [ABI_K_ERRHANDLER] = ABI_OBJ_ERRHANDLER,
    [ABI_K_INFO] = ABI_OBJ_INFO,
    [ABI_K_WIN] = ABI_OBJ_WIN,
    [ABI_K_REQUEST] = ABI_OBJ_REQUEST,
    [ABI_K_MESSAGE] = ABI_OBJ_REQUEST,
    [ABI_K_SESSION] = ABI_OBJ_SESSION,
};
const abi_h abi_null[ABI_K_N] = {
    [ABI_K_COMM] = ABI_COMM_NULL,
    [ABI_K_DATATYPE] = ABI_DATATYPE_NULL,
    [ABI_K_GROUP] = ABI_GROUP_NULL,
    [ABI_K_OP] = ABI_OP_NULL,
    [ABI_K_ERRHANDLER] = ABI_ERRHANDLER_NULL,
    [ABI_K_INFO] = ABI_INFO_NULL,
    [ABI_K_WIN] = ABI_WIN_NULL,
    [ABI_K_REQUEST] = ABI_REQUEST_NULL,
    [ABI_K_MESSAGE] = ABI_MESSAGE_NULL,
    [ABI_K_SESSION] = ABI_SESSION_NULL,
};

int abi_err_to_abi[ABI_IVC_NCLASSES];
static int err_to_ivc[ABI_ERR_TABLE_N];

static void errmap(int ivc, int mpich)
{
    abi_err_to_abi[ivc] = mpich;
    if (mpich < ABI_ERR_TABLE_N)
        err_to_ivc[mpich] = ivc;
}

__attribute__((constructor)) static void abi_init_tables(void)
{
#define DT(NAME, val) abi_builtin(ABI_K_DATATYPE, val, MPI_##NAME);
    ABI_MPICH_DATATYPES(DT)
#undef DT
#define OP(NAME, val) abi_builtin(ABI_K_OP, val, MPI_##NAME);
    ABI_MPICH_OPS(OP)
#undef OP
    abi_builtin(ABI_K_COMM, ABI_COMM_WORLD, MPI_COMM_WORLD);
    abi_builtin(ABI_K_COMM, ABI_COMM_SELF, MPI_COMM_SELF);
    abi_builtin(ABI_K_GROUP, ABI_GROUP_EMPTY, MPI_GROUP_EMPTY);
    abi_builtin(ABI_K_ERRHANDLER, ABI_ERRORS_ARE_FATAL, MPI_ERRORS_ARE_FATAL);
    abi_builtin(ABI_K_ERRHANDLER, ABI_ERRORS_RETURN, MPI_ERRORS_RETURN);
    abi_builtin(ABI_K_ERRHANDLER, ABI_ERRORS_ABORT, MPI_ERRORS_ABORT);
    abi_builtin(ABI_K_INFO, ABI_INFO_ENV, MPI_INFO_ENV);
    abi_builtin(ABI_K_MESSAGE, ABI_MESSAGE_NO_PROC, MPI_MESSAGE_NO_PROC);

    for (int i = 0; i < ABI_IVC_NCLASSES; i++)
        abi_err_to_abi[i] = 13; /* MPI_ERR_UNKNOWN unless named below */
    for (int i = 0; i < ABI_ERR_TABLE_N; i++)
        err_to_ivc[i] = ABI_ERR_FOREIGN + i;
#define ERR(NAME, val) errmap(MPI_##NAME, val);
    ABI_MPICH_ERRORS(ERR)
#undef ERR
    errmap(MPI_ERR_PROC_FAILED, ABI_MPIX_ERR_PROC_FAILED);
    errmap(MPIX_ERR_PROC_FAILED_PENDING, ABI_MPIX_ERR_PROC_FAILED_PENDING);
    errmap(MPIX_ERR_REVOKED, ABI_MPIX_ERR_REVOKED);
    /* MPI-4.1's MPI_ERR_ERRHANDLER is not in MPICH 4.0.2's header; MPICH 4.1 and later
     * number it 80, the value the PyPI mpi4py wheel (built with a later MPICH) uses. */
    errmap(MPI_ERR_ERRHANDLER, 80);
    abi_err_to_abi[MPI_ERR_LASTCODE] = ABI_ERR_LASTCODE;
}

int abi_err_in(int e)
{
    if ((unsigned)e < ABI_ERR_TABLE_N)
        return err_to_ivc[e];
    if (e >= ABI_ERR_DYN_BASE)
        return ABI_IVC_NCLASSES + (e - ABI_ERR_DYN_BASE);
    if (e == ABI_ERR_LASTCODE)
        return MPI_ERR_LASTCODE;
    return e > 0 && e < ABI_ERR_FOREIGN ? ABI_ERR_FOREIGN + e : e;
}

/* ---- constants ---- */

int abi_keyval_in(int k)
{
    switch (k) {
    case ABI_KEYVAL_INVALID: return MPI_KEYVAL_INVALID;
    case ABI_TAG_UB: return MPI_TAG_UB;
    case ABI_HOST: return MPI_HOST;
    case ABI_IO: return MPI_IO;
    case ABI_WTIME_IS_GLOBAL: return MPI_WTIME_IS_GLOBAL;
    case ABI_UNIVERSE_SIZE: return MPI_UNIVERSE_SIZE;
    case ABI_LASTUSEDCODE: return MPI_LASTUSEDCODE;
    case ABI_APPNUM: return MPI_APPNUM;
    case ABI_WIN_BASE: return MPI_WIN_BASE;
    case ABI_WIN_SIZE: return MPI_WIN_SIZE;
    case ABI_WIN_DISP_UNIT: return MPI_WIN_DISP_UNIT;
    case ABI_WIN_CREATE_FLAVOR: return MPI_WIN_CREATE_FLAVOR;
    case ABI_WIN_MODEL: return MPI_WIN_MODEL;
    default: return k; /* a keyval the program created: IVC's value (from 0x10000) */
    }
}

int abi_keyval_out(int k)
{
    switch (k) {
    case MPI_KEYVAL_INVALID: return ABI_KEYVAL_INVALID;
    case MPI_TAG_UB: return ABI_TAG_UB;
    case MPI_HOST: return ABI_HOST;
    case MPI_IO: return ABI_IO;
    case MPI_WTIME_IS_GLOBAL: return ABI_WTIME_IS_GLOBAL;
    case MPI_UNIVERSE_SIZE: return ABI_UNIVERSE_SIZE;
    case MPI_LASTUSEDCODE: return ABI_LASTUSEDCODE;
    case MPI_APPNUM: return ABI_APPNUM;
    case MPI_WIN_BASE: return ABI_WIN_BASE;
    case MPI_WIN_SIZE: return ABI_WIN_SIZE;
    case MPI_WIN_DISP_UNIT: return ABI_WIN_DISP_UNIT;
    case MPI_WIN_CREATE_FLAVOR: return ABI_WIN_CREATE_FLAVOR;
    case MPI_WIN_MODEL: return ABI_WIN_MODEL;
    default: return k;
    }
}

int abi_combiner_out(int c)
{
#define COMB(NAME, val)                                                                            \
    if (c == MPI_COMBINER_##NAME)                                                                  \
        return val;
    ABI_MPICH_COMBINERS(COMB)
#undef COMB
    return 1; /* MPI_COMBINER_VALUE_INDEX (MPI-4.1): MPICH 4.0 calls those types NAMED */
}

int abi_typeclass_in(int c)
{
    switch (c) {
    case ABI_TYPECLASS_REAL: return MPI_TYPECLASS_REAL;
    case ABI_TYPECLASS_INTEGER: return MPI_TYPECLASS_INTEGER;
    case ABI_TYPECLASS_COMPLEX: return MPI_TYPECLASS_COMPLEX;
    default: return -1;
    }
}

int abi_split_type_in(int t)
{
    switch (t) {
    case ABI_COMM_TYPE_SHARED: return MPI_COMM_TYPE_SHARED;
    case ABI_COMM_TYPE_HW_GUIDED: return MPI_COMM_TYPE_HW_GUIDED;
    case ABI_COMM_TYPE_HW_UNGUIDED: return MPI_COMM_TYPE_HW_UNGUIDED;
    default: return t; /* MPI_UNDEFINED, or a value IVC rejects */
    }
}

/* Values both ABIs share: the wrappers pass them through unconverted. */
_Static_assert(MPI_ANY_TAG == -1 && MPI_ROOT == -3 && MPI_UNDEFINED == -32766, "shared ints");
_Static_assert(MPI_THREAD_MULTIPLE == 3 && MPI_IDENT == 0 && MPI_UNEQUAL == 3, "shared enums");
_Static_assert(MPI_GRAPH == 1 && MPI_CART == 2 && MPI_DIST_GRAPH == 3, "topologies");
_Static_assert(MPI_LOCK_EXCLUSIVE == 234 && MPI_LOCK_SHARED == 235, "lock types");
_Static_assert(MPI_MODE_NOCHECK == 1024 && MPI_MODE_NOSUCCEED == 16384, "RMA modes");
_Static_assert(MPI_WIN_FLAVOR_SHARED == 4 && MPI_WIN_UNIFIED == 2, "flavors, models");
_Static_assert(MPI_ORDER_C == 56 && MPI_DISTRIBUTE_NONE == 123 &&
                   MPI_DISTRIBUTE_DFLT_DARG == -49767,
               "orders, distributions");
_Static_assert(MPI_MAX_ERROR_STRING == 512 && MPI_MAX_OBJECT_NAME == 128 &&
                   MPI_MAX_INFO_KEY == 255 && MPI_MAX_INFO_VAL == 1024,
               "string sizes");
_Static_assert(MPI_MAX_LIBRARY_VERSION_STRING <= 8192, "MPICH's buffer holds IVC's string");
_Static_assert(sizeof(MPI_Aint) == sizeof(abi_Aint) && sizeof(MPI_Count) == sizeof(abi_Count) &&
                   sizeof(MPI_Offset) == sizeof(abi_Offset),
               "integer types of the same size");

