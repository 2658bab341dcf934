/* The constants of the MPI-5 standard ABI as the conversion layer maps them: predefined
 * handles, error classes and the integer constants that differ from IVC's (facts:
 * std_abi.h). */
#include "abi.h"

#include <stdlib.h>

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

static void errmap(int ivc, int v)
{
    abi_err_to_abi[ivc] = v;
    if (v < ABI_ERR_TABLE_N)
        err_to_ivc[v] = ivc;
}

__attribute__((constructor)) static void abi_init_tables(void)
{
#define DT(NAME, val) abi_builtin(ABI_K_DATATYPE, val, MPI_##NAME);
    ABI_STD_DATATYPES(DT)
#undef DT
#define OP(NAME, val) abi_builtin(ABI_K_OP, val, MPI_##NAME);
    ABI_STD_OPS(OP)
#undef OP
#define H(kind, NAME, val) abi_builtin(kind, val, MPI_##NAME);
    ABI_STD_HANDLES(H)
#undef H
    for (int i = 0; i < ABI_IVC_NCLASSES; i++)
        abi_err_to_abi[i] = 14; /* MPI_ERR_UNKNOWN unless named below */
    for (int i = 0; i < ABI_ERR_TABLE_N; i++)
        err_to_ivc[i] = ABI_ERR_FOREIGN + i;
#define ERR(NAME, val) errmap(MPI_##NAME, val);
    ABI_STD_ERRORS(ERR)
#undef ERR
    /* IVC's fault-tolerance classes (mpi-ext.h) have no standard value: MPI_ERR_PROC_ABORTED
     * says as much to a program of the standard ABI. */
    abi_err_to_abi[MPI_ERR_PROC_FAILED] = 58;
    abi_err_to_abi[MPIX_ERR_PROC_FAILED_PENDING] = 58;
    abi_err_to_abi[MPIX_ERR_REVOKED] = 58;
    abi_err_to_abi[MPI_ERR_LASTCODE] = ABI_STD_ERR_LASTCODE;
}

int abi_err_in(int e)
{
    if ((unsigned)e < ABI_ERR_TABLE_N)
        return err_to_ivc[e];
    if (e == ABI_STD_ERR_LASTCODE)
        return MPI_ERR_LASTCODE;
    if (e >= ABI_ERR_DYN_BASE && e < ABI_ERR_DYN_BASE + (ABI_ERR_FOREIGN - ABI_IVC_NCLASSES))
        return ABI_IVC_NCLASSES + (e - ABI_ERR_DYN_BASE);
    return e > 0 && e < ABI_ERR_FOREIGN ? ABI_ERR_FOREIGN + e : e;
}

/* One pair of functions per list of std_abi.h: the value not in the list passes unchanged
 * (MPI_UNDEFINED, or a value IVC rejects). */
#define MAP_IN(fn, LIST)                                                                           \
    int fn(int v)                                                                                  \
    {                                                                                              \
        LIST(MAP_IN_CASE)                                                                          \
        return v;                                                                                  \
    }
#define MAP_OUT(fn, LIST)                                                                          \
    int fn(int v)                                                                                  \
    {                                                                                              \
        LIST(MAP_OUT_CASE)                                                                         \
        return v;                                                                                  \
    }
#define MAP_IN_CASE(ivc, std)                                                                      \
    if (v == (std))                                                                                \
        return (ivc);
#define MAP_OUT_CASE(ivc, std)                                                                     \
    if (v == (ivc))                                                                                \
        return (std);

MAP_IN(abi_thread_level_in, ABI_STD_THREAD_LEVELS)
MAP_OUT(abi_thread_level_out, ABI_STD_THREAD_LEVELS)
MAP_OUT(abi_comparison_out, ABI_STD_COMPARISONS)
MAP_OUT(abi_topology_out, ABI_STD_TOPOLOGIES)
MAP_IN(abi_split_type_in, ABI_STD_SPLIT_TYPES)
MAP_IN(abi_lock_type_in, ABI_STD_LOCK_TYPES)
MAP_OUT(abi_flavor_out, ABI_STD_FLAVORS)
MAP_OUT(abi_model_out, ABI_STD_MODELS)
MAP_IN(abi_order_in, ABI_STD_ORDERS)
MAP_IN(abi_distrib_in, ABI_STD_DISTRIBS)
MAP_OUT(abi_combiner_out, ABI_STD_COMBINERS)
MAP_IN(abi_typeclass_in, ABI_STD_TYPECLASSES)
MAP_IN(abi_keyval_in, ABI_STD_KEYVALS)
MAP_OUT(abi_keyval_out, ABI_STD_KEYVALS)
MAP_OUT(abi_verbosity_out, ABI_STD_T_VERBOSITY)
MAP_OUT(abi_bind_out, ABI_STD_T_BIND)
MAP_OUT(abi_scope_out, ABI_STD_T_SCOPE)
MAP_IN(abi_pvar_class_in, ABI_STD_T_PVAR_CLASS)
MAP_OUT(abi_pvar_class_out, ABI_STD_T_PVAR_CLASS)

MAP_IN(abi_whence_in, ABI_STD_SEEKS)

/* Access modes are bits: each of the ABI's set bits becomes IVC's; an unknown bit stays, in
 * a position no IVC mode uses, so that MPI_File_open rejects it (MPI_ERR_AMODE). */
#define AMODE_IN(ivc, std)                                                                         \
    if (v & (std)) {                                                                               \
        v &= ~(std);                                                                               \
        r |= (ivc);                                                                                \
    }
#define AMODE_OUT(ivc, std)                                                                        \
    if (v & (ivc)) {                                                                               \
        v &= ~(ivc);                                                                               \
        r |= (std);                                                                                \
    }
int abi_amode_in(int v)
{
    int r = 0;
    ABI_STD_AMODES(AMODE_IN)
    return r | (v ? 1 << 20 : 0);
}
int abi_amode_out(int v)
{
    int r = 0;
    ABI_STD_AMODES(AMODE_OUT)
    return r | (v ? 1 << 20 : 0);
}

int abi_darg_in(int v)
{
    return v == ABI_STD_DFLT_DARG ? MPI_DISTRIBUTE_DFLT_DARG : v;
}

/* Values both ABIs share: the wrappers pass them through unconverted. */
_Static_assert(MPI_UNDEFINED == -32766 && MPI_BOTTOM == (void *)0, "shared values");
_Static_assert(MPI_MAX_ERROR_STRING == 512 && MPI_MAX_OBJECT_NAME == 128 &&
                   MPI_MAX_PROCESSOR_NAME == ABI_MAX_PROCESSOR_NAME && MPI_MAX_INFO_VAL == 1024,
               "string sizes the ABI's are at least");
_Static_assert(sizeof(MPI_Aint) == sizeof(abi_Aint) && sizeof(MPI_Count) == sizeof(abi_Count) &&
                   sizeof(MPI_Offset) == sizeof(abi_Offset),
               "integer types of the same size");
_Static_assert(sizeof(abi_Status) == 32 && sizeof(MPI_Status) <= sizeof(abi_Status),
               "MPI_Status: 8 ints");
