/* The MPI-5.0 standard ABI (libmpi_abi.so) as the conversion layer sees it: its C types and
 * the values a program compiled with the standard's mpi.h (IVC installs it as mpi_abi.h,
 * include/abi/mpi_abi.h) holds. Facts from the MPI-5.0 standard's ABI chapter and the MPI
 * Forum's ABI stub header (mpi-forum/mpi-abi-stubs, mpi.h, which states them for x86_64
 * Linux); the declarations are IVC's own.
 *
 * Everything here is prefixed abi_ / ABI_ so that it can sit beside IVC's mpi.h in the same
 * translation unit, like mpich/mpich_abi.h. */
#ifndef IVC_ABI_STD_ABI_H
#define IVC_ABI_STD_ABI_H

#include <stdint.h>

/* ---- handle types: pointers to incomplete structures; predefined ones small integers ---- */
typedef struct abi_std_comm_s *abi_Comm;
typedef struct abi_std_datatype_s *abi_Datatype;
typedef struct abi_std_group_s *abi_Group;
typedef struct abi_std_win_s *abi_Win;
typedef struct abi_std_session_s *abi_Session;
typedef struct abi_std_op_s *abi_Op;
typedef struct abi_std_errhandler_s *abi_Errhandler;
typedef struct abi_std_request_s *abi_Request;
typedef struct abi_std_message_s *abi_Message;
typedef struct abi_std_info_s *abi_Info;
typedef struct abi_std_file_s *abi_File;
typedef intptr_t abi_Aint;
typedef int64_t abi_Offset;
typedef int64_t abi_Count;
typedef int abi_Fint;
typedef struct abi_std_t_enum_s *abi_T_enum;
typedef struct abi_std_t_cvar_handle_s *abi_T_cvar_handle;
typedef struct abi_std_t_pvar_handle_s *abi_T_pvar_handle;
typedef struct abi_std_t_pvar_session_s *abi_T_pvar_session;
typedef struct abi_std_t_event_registration_s *abi_T_event_registration;
typedef struct abi_std_t_event_instance_s *abi_T_event_instance;
typedef int abi_T_cb_safety, abi_T_source_order; /* enums: int-sized */

/* MPI_Status: 8 ints, the three public fields first. The five others belong to the
 * implementation: IVC keeps the byte count in MPI_internal[0..1] (low, high) and the
 * cancelled flag in MPI_internal[2]. MPI_F_STATUS_SIZE is 8, with MPI_F_SOURCE 0, MPI_F_TAG 1,
 * MPI_F_ERROR 2 (the Fortran INTEGER status is the C one, int for int). */
typedef struct abi_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int MPI_internal[5];
} abi_Status;
typedef abi_Status abi_F08_status;

/* Callback types (the standard's, over the ABI's handle types). */
typedef void abi_User_function(void *, void *, int *, abi_Datatype *);
typedef void abi_User_function_c(void *, void *, abi_Count *, abi_Datatype *);
typedef void abi_Comm_errhandler_function(abi_Comm *, int *, ...);
typedef void abi_Win_errhandler_function(abi_Win *, int *, ...);
typedef void abi_File_errhandler_function(abi_File *, int *, ...);
typedef void abi_Session_errhandler_function(abi_Session *, int *, ...);
typedef int abi_Comm_copy_attr_function(abi_Comm, int, void *, void *, void *, int *);
typedef int abi_Comm_delete_attr_function(abi_Comm, int, void *, void *);
typedef int abi_Type_copy_attr_function(abi_Datatype, int, void *, void *, void *, int *);
typedef int abi_Type_delete_attr_function(abi_Datatype, int, void *, void *);
typedef int abi_Win_copy_attr_function(abi_Win, int, void *, void *, void *, int *);
typedef int abi_Win_delete_attr_function(abi_Win, int, void *, void *);
typedef int abi_Copy_function(abi_Comm, int, void *, void *, void *, int *);
typedef int abi_Delete_function(abi_Comm, int, void *, void *);
typedef int abi_Grequest_query_function(void *, abi_Status *);
typedef int abi_Grequest_free_function(void *);
typedef int abi_Grequest_cancel_function(void *, int);
typedef int abi_Datarep_conversion_function(void *, abi_Datatype, int, void *, abi_Offset, void *);
typedef int abi_Datarep_conversion_function_c(void *, abi_Datatype, abi_Count, void *, abi_Offset,
                                              void *);
typedef int abi_Datarep_extent_function(abi_Datatype, abi_Aint *, void *);
typedef void abi_T_event_cb_function(abi_T_event_instance, abi_T_event_registration,
                                     abi_T_cb_safety, void *);
typedef void abi_T_event_free_cb_function(abi_T_event_registration, abi_T_cb_safety, void *);
typedef void abi_T_event_dropped_cb_function(abi_Count, abi_T_event_registration, int,
                                             abi_T_cb_safety, void *);

/* ---- predefined handle values: all below 0x400 (the ABI leaves 0x000-0x3ff to them) ---- */
#define ABI_STD_BUILTIN_END 0x400
/* clang-format off */
/* X(kind, NAME, value) for every predefined handle that is not a null handle. */
#define ABI_STD_HANDLES(X)                                                                         \
    X(ABI_K_COMM, COMM_WORLD, 0x101) X(ABI_K_COMM, COMM_SELF, 0x102)                              \
    X(ABI_K_GROUP, GROUP_EMPTY, 0x109)                                                             \
    X(ABI_K_MESSAGE, MESSAGE_NO_PROC, 0x129)                                                       \
    X(ABI_K_INFO, INFO_ENV, 0x131)                                                                 \
    X(ABI_K_ERRHANDLER, ERRORS_ARE_FATAL, 0x141) X(ABI_K_ERRHANDLER, ERRORS_RETURN, 0x142)        \
    X(ABI_K_ERRHANDLER, ERRORS_ABORT, 0x143)
#define ABI_STD_OPS(X)                                                                             \
    X(SUM, 0x21) X(MIN, 0x22) X(MAX, 0x23) X(PROD, 0x24) X(BAND, 0x28) X(BOR, 0x29)              \
    X(BXOR, 0x2a) X(LAND, 0x30) X(LOR, 0x31) X(LXOR, 0x32) X(MINLOC, 0x38) X(MAXLOC, 0x39)       \
    X(REPLACE, 0x3c) X(NO_OP, 0x3d)
/* Datatypes: name, value (IVC's mpi.h has a handle for each name). */
#define ABI_STD_DATATYPES(X)                                                                       \
    X(AINT, 0x201) X(COUNT, 0x202) X(OFFSET, 0x203) X(PACKED, 0x207) X(SHORT, 0x208)             \
    X(INT, 0x209) X(LONG, 0x20a) X(LONG_LONG, 0x20b) X(UNSIGNED_SHORT, 0x20c)                    \
    X(UNSIGNED, 0x20d) X(UNSIGNED_LONG, 0x20e) X(UNSIGNED_LONG_LONG, 0x20f) X(FLOAT, 0x210)      \
    X(C_FLOAT_COMPLEX, 0x212) X(CXX_FLOAT_COMPLEX, 0x213) X(DOUBLE, 0x214)                       \
    X(C_DOUBLE_COMPLEX, 0x216) X(CXX_DOUBLE_COMPLEX, 0x217) X(LOGICAL, 0x218)                    \
    X(INTEGER, 0x219) X(REAL, 0x21a) X(COMPLEX, 0x21b) X(DOUBLE_PRECISION, 0x21c)                \
    X(DOUBLE_COMPLEX, 0x21d) X(CHARACTER, 0x21e) X(LONG_DOUBLE, 0x220)                           \
    X(C_LONG_DOUBLE_COMPLEX, 0x224) X(CXX_LONG_DOUBLE_COMPLEX, 0x225) X(FLOAT_INT, 0x228)        \
    X(DOUBLE_INT, 0x229) X(LONG_INT, 0x22a) X(2INT, 0x22b) X(SHORT_INT, 0x22c)                   \
    X(LONG_DOUBLE_INT, 0x22d) X(2REAL, 0x230) X(2DOUBLE_PRECISION, 0x231) X(2INTEGER, 0x232)    \
    X(C_BOOL, 0x238) X(CXX_BOOL, 0x239) X(WCHAR, 0x23c) X(INT8_T, 0x240) X(UINT8_T, 0x241)     \
    X(CHAR, 0x243) X(SIGNED_CHAR, 0x244) X(UNSIGNED_CHAR, 0x245) X(BYTE, 0x247)                 \
    X(INT16_T, 0x248) X(UINT16_T, 0x249) X(INT32_T, 0x250) X(UINT32_T, 0x251)                   \
    X(INT64_T, 0x258) X(UINT64_T, 0x259) X(INTEGER1, 0x2c1) X(INTEGER2, 0x2c9)                  \
    X(INTEGER4, 0x2d1) X(REAL4, 0x2d2) X(INTEGER8, 0x2d9) X(REAL8, 0x2da) X(COMPLEX8, 0x2db)    \
    X(COMPLEX16, 0x2e3) X(INTEGER16, 0x2e1) X(REAL16, 0x2e2) X(COMPLEX32, 0x2eb)
/* MPI_INTEGER16 0x2e1, MPI_REAL16 0x2e2, MPI_COMPLEX32 0x2eb: the MPI-5.0 ABI's values of the
 * optional Fortran datatypes, as the MPI Forum's stub header states them (mpi-forum/
 * mpi-abi-stubs, mpi.h at commit 90d88b071aecb0c9a13e3d36528bc7f7cd14b896, "MPI_INTEGER16
 * ((MPI_Datatype)0x000002e1)" ...; the same in mpi4py's generated ABI header). The standard's
 * datatypes IVC has no object for (MPI_LOGICAL1/2/4/8/16, MPI_REAL2, MPI_COMPLEX4) convert to
 * MPI_DATATYPE_NULL. */

#define ABI_STD_ERRORS(X)                                                                          \
    X(SUCCESS, 0) X(ERR_BUFFER, 1) X(ERR_COUNT, 2) X(ERR_TYPE, 3) X(ERR_TAG, 4) X(ERR_COMM, 5)    \
    X(ERR_RANK, 6) X(ERR_REQUEST, 7) X(ERR_ROOT, 8) X(ERR_GROUP, 9) X(ERR_OP, 10)                \
    X(ERR_TOPOLOGY, 11) X(ERR_DIMS, 12) X(ERR_ARG, 13) X(ERR_UNKNOWN, 14) X(ERR_TRUNCATE, 15)    \
    X(ERR_OTHER, 16) X(ERR_INTERN, 17) X(ERR_PENDING, 18) X(ERR_IN_STATUS, 19)                   \
    X(ERR_ACCESS, 20) X(ERR_AMODE, 21) X(ERR_ASSERT, 22) X(ERR_BAD_FILE, 23) X(ERR_BASE, 24)     \
    X(ERR_CONVERSION, 25) X(ERR_DISP, 26) X(ERR_DUP_DATAREP, 27) X(ERR_FILE_EXISTS, 28)          \
    X(ERR_FILE_IN_USE, 29) X(ERR_FILE, 30) X(ERR_INFO_KEY, 31) X(ERR_INFO_NOKEY, 32)             \
    X(ERR_INFO_VALUE, 33) X(ERR_INFO, 34) X(ERR_IO, 35) X(ERR_KEYVAL, 36) X(ERR_LOCKTYPE, 37)    \
    X(ERR_NAME, 38) X(ERR_NO_MEM, 39) X(ERR_NOT_SAME, 40) X(ERR_NO_SPACE, 41)                    \
    X(ERR_NO_SUCH_FILE, 42) X(ERR_PORT, 43) X(ERR_QUOTA, 44) X(ERR_READ_ONLY, 45)                \
    X(ERR_RMA_ATTACH, 46) X(ERR_RMA_CONFLICT, 47) X(ERR_RMA_RANGE, 48) X(ERR_RMA_SHARED, 49)     \
    X(ERR_RMA_SYNC, 50) X(ERR_SERVICE, 51) X(ERR_SIZE, 52) X(ERR_SPAWN, 53)                      \
    X(ERR_UNSUPPORTED_DATAREP, 54) X(ERR_UNSUPPORTED_OPERATION, 55) X(ERR_WIN, 56)               \
    X(ERR_RMA_FLAVOR, 57) X(ERR_PROC_ABORTED, 58) X(ERR_VALUE_TOO_LARGE, 59) X(ERR_SESSION, 60)  \
    X(ERR_ERRHANDLER, 61) X(ERR_ABI, 62)                                                         \
    X(T_ERR_CANNOT_INIT, 1001) X(T_ERR_NOT_ACCESSIBLE, 1002) X(T_ERR_NOT_INITIALIZED, 1003)      \
    X(T_ERR_NOT_SUPPORTED, 1004) X(T_ERR_MEMORY, 1005) X(T_ERR_INVALID, 1006)                    \
    X(T_ERR_INVALID_INDEX, 1007) X(T_ERR_INVALID_ITEM, 1008) X(T_ERR_INVALID_SESSION, 1009)      \
    X(T_ERR_INVALID_HANDLE, 1010) X(T_ERR_INVALID_NAME, 1011) X(T_ERR_OUT_OF_HANDLES, 1012)      \
    X(T_ERR_OUT_OF_SESSIONS, 1013) X(T_ERR_CVAR_SET_NOT_NOW, 1014)                               \
    X(T_ERR_CVAR_SET_NEVER, 1015) X(T_ERR_PVAR_NO_WRITE, 1016) X(T_ERR_PVAR_NO_STARTSTOP, 1017)  \
    X(T_ERR_PVAR_NO_ATOMIC, 1018)
#define ABI_STD_ERR_LASTCODE 0x3fff

/* Integer constants that differ from IVC's: X(IVC name, the ABI's value), one list per kind
 * of parameter (the description's kinds; the generator converts each parameter by its kind). */
#define ABI_STD_THREAD_LEVELS(X)                                                                   \
    X(MPI_THREAD_SINGLE, 0) X(MPI_THREAD_FUNNELED, 1024) X(MPI_THREAD_SERIALIZED, 2048)          \
    X(MPI_THREAD_MULTIPLE, 4096)
#define ABI_STD_COMPARISONS(X)                                                                     \
    X(MPI_IDENT, 201) X(MPI_CONGRUENT, 202) X(MPI_SIMILAR, 203) X(MPI_UNEQUAL, 204)
#define ABI_STD_TOPOLOGIES(X) X(MPI_CART, 211) X(MPI_GRAPH, 212) X(MPI_DIST_GRAPH, 213)
#define ABI_STD_SPLIT_TYPES(X)                                                                     \
    X(MPI_COMM_TYPE_SHARED, 221) X(MPI_COMM_TYPE_HW_UNGUIDED, 222)                               \
    X(MPI_COMM_TYPE_HW_GUIDED, 223) X(MPI_COMM_TYPE_RESOURCE_GUIDED, 224)
#define ABI_STD_LOCK_TYPES(X) X(MPI_LOCK_EXCLUSIVE, 301) X(MPI_LOCK_SHARED, 302)
#define ABI_STD_FLAVORS(X)                                                                         \
    X(MPI_WIN_FLAVOR_CREATE, 311) X(MPI_WIN_FLAVOR_ALLOCATE, 312)                                \
    X(MPI_WIN_FLAVOR_DYNAMIC, 313) X(MPI_WIN_FLAVOR_SHARED, 314)
#define ABI_STD_MODELS(X) X(MPI_WIN_UNIFIED, 321) X(MPI_WIN_SEPARATE, 322)
#define ABI_STD_ORDERS(X) X(MPI_ORDER_C, 12) X(MPI_ORDER_FORTRAN, 15)
#define ABI_STD_DISTRIBS(X)                                                                        \
    X(MPI_DISTRIBUTE_NONE, 16) X(MPI_DISTRIBUTE_BLOCK, 17) X(MPI_DISTRIBUTE_CYCLIC, 18)
#define ABI_STD_DFLT_DARG 19
#define ABI_STD_COMBINERS(X)                                                                       \
    X(MPI_COMBINER_NAMED, 101) X(MPI_COMBINER_DUP, 102) X(MPI_COMBINER_CONTIGUOUS, 103)          \
    X(MPI_COMBINER_VECTOR, 104) X(MPI_COMBINER_HVECTOR, 105) X(MPI_COMBINER_INDEXED, 106)        \
    X(MPI_COMBINER_HINDEXED, 107) X(MPI_COMBINER_INDEXED_BLOCK, 108)                             \
    X(MPI_COMBINER_HINDEXED_BLOCK, 109) X(MPI_COMBINER_STRUCT, 110)                              \
    X(MPI_COMBINER_SUBARRAY, 111) X(MPI_COMBINER_DARRAY, 112) X(MPI_COMBINER_F90_INTEGER, 113)   \
    X(MPI_COMBINER_F90_REAL, 114) X(MPI_COMBINER_F90_COMPLEX, 115)                               \
    X(MPI_COMBINER_RESIZED, 116) X(MPI_COMBINER_VALUE_INDEX, 117)
#define ABI_STD_TYPECLASSES(X)                                                                     \
    X(MPI_TYPECLASS_INTEGER, 192) X(MPI_TYPECLASS_REAL, 193) X(MPI_TYPECLASS_COMPLEX, 194)
#define ABI_STD_KEYVALS(X)                                                                         \
    X(MPI_KEYVAL_INVALID, 0) X(MPI_TAG_UB, 501) X(MPI_IO, 502) X(MPI_HOST, 503)                  \
    X(MPI_WTIME_IS_GLOBAL, 504) X(MPI_UNIVERSE_SIZE, 505) X(MPI_APPNUM, 506)                     \
    X(MPI_LASTUSEDCODE, 507) X(MPI_WIN_BASE, 601) X(MPI_WIN_DISP_UNIT, 602) X(MPI_WIN_SIZE, 603) \
    X(MPI_WIN_CREATE_FLAVOR, 604) X(MPI_WIN_MODEL, 605)
/* MPI_T: verbosity, binding, scope and performance-variable class. */
#define ABI_STD_T_VERBOSITY(X)                                                                     \
    X(MPI_T_VERBOSITY_USER_BASIC, 0x09) X(MPI_T_VERBOSITY_USER_DETAIL, 0x0a)                     \
    X(MPI_T_VERBOSITY_USER_ALL, 0x0c) X(MPI_T_VERBOSITY_TUNER_BASIC, 0x11)                       \
    X(MPI_T_VERBOSITY_TUNER_DETAIL, 0x12) X(MPI_T_VERBOSITY_TUNER_ALL, 0x14)                     \
    X(MPI_T_VERBOSITY_MPIDEV_BASIC, 0x21) X(MPI_T_VERBOSITY_MPIDEV_DETAIL, 0x22)                 \
    X(MPI_T_VERBOSITY_MPIDEV_ALL, 0x24)
#define ABI_STD_T_BIND(X)                                                                          \
    X(MPI_T_BIND_NO_OBJECT, 1) X(MPI_T_BIND_MPI_COMM, 2) X(MPI_T_BIND_MPI_DATATYPE, 3)           \
    X(MPI_T_BIND_MPI_ERRHANDLER, 4) X(MPI_T_BIND_MPI_FILE, 5) X(MPI_T_BIND_MPI_GROUP, 6)         \
    X(MPI_T_BIND_MPI_OP, 7) X(MPI_T_BIND_MPI_REQUEST, 8) X(MPI_T_BIND_MPI_WIN, 9)                \
    X(MPI_T_BIND_MPI_MESSAGE, 10) X(MPI_T_BIND_MPI_INFO, 11) X(MPI_T_BIND_MPI_SESSION, 12)
#define ABI_STD_T_SCOPE(X)                                                                         \
    X(MPI_T_SCOPE_CONSTANT, 1) X(MPI_T_SCOPE_READONLY, 2) X(MPI_T_SCOPE_LOCAL, 3)                \
    X(MPI_T_SCOPE_GROUP, 4) X(MPI_T_SCOPE_GROUP_EQ, 5) X(MPI_T_SCOPE_ALL, 6)                     \
    X(MPI_T_SCOPE_ALL_EQ, 7)
#define ABI_STD_T_PVAR_CLASS(X)                                                                    \
    X(MPI_T_PVAR_CLASS_STATE, 1) X(MPI_T_PVAR_CLASS_LEVEL, 2) X(MPI_T_PVAR_CLASS_SIZE, 3)        \
    X(MPI_T_PVAR_CLASS_PERCENTAGE, 4) X(MPI_T_PVAR_CLASS_HIGHWATERMARK, 5)                       \
    X(MPI_T_PVAR_CLASS_LOWWATERMARK, 6) X(MPI_T_PVAR_CLASS_COUNTER, 7)                           \
    X(MPI_T_PVAR_CLASS_AGGREGATE, 8) X(MPI_T_PVAR_CLASS_TIMER, 9) X(MPI_T_PVAR_CLASS_GENERIC, 10)
/* clang-format on */

/* Null handles. */
#define ABI_OP_NULL         0x020
#define ABI_COMM_NULL       0x100
#define ABI_GROUP_NULL      0x108
#define ABI_WIN_NULL        0x110
#define ABI_FILE_NULL       0x118
#define ABI_SESSION_NULL    0x120
#define ABI_MESSAGE_NULL    0x128
#define ABI_INFO_NULL       0x130
#define ABI_ERRHANDLER_NULL 0x140
#define ABI_REQUEST_NULL    0x180
#define ABI_DATATYPE_NULL   0x200

/* Ranks, tags, sentinel addresses. */
#define ABI_ANY_SOURCE       (-1)
#define ABI_ANY_TAG          (-2)
#define ABI_PROC_NULL        (-3)
#define ABI_ROOT             (-4)
#define ABI_IN_PLACE         ((void *)1)
#define ABI_BUFFER_AUTOMATIC ((void *)2)
#define ABI_UNWEIGHTED       ((int *)10)
#define ABI_WEIGHTS_EMPTY    ((int *)11)
/* RMA assertions: bits, two of which IVC numbers otherwise (NOSTORE, NOPRECEDE). */
#define ABI_MODE_NOCHECK   1024
#define ABI_MODE_NOPRECEDE 2048
#define ABI_MODE_NOPUT     4096
#define ABI_MODE_NOSTORE   8192
#define ABI_MODE_NOSUCCEED 16384
#define ABI_MAX_PROCESSOR_NAME 256
/* File access modes (bits, in the order of their names), seek modes, and the displacement
 * of MPI_File_set_view that means "the current position". */
#define ABI_STD_AMODES(X)                                                                          \
    X(MPI_MODE_APPEND, 1) X(MPI_MODE_CREATE, 2) X(MPI_MODE_DELETE_ON_CLOSE, 4)                     \
    X(MPI_MODE_EXCL, 8) X(MPI_MODE_RDONLY, 16) X(MPI_MODE_RDWR, 32) X(MPI_MODE_SEQUENTIAL, 64)     \
    X(MPI_MODE_UNIQUE_OPEN, 128) X(MPI_MODE_WRONLY, 256)
#define ABI_STD_SEEKS(X) X(MPI_SEEK_SET, 401) X(MPI_SEEK_CUR, 402) X(MPI_SEEK_END, 403)
#define ABI_DISPLACEMENT_CURRENT (-1)
/* MPI_COMM_DUP_FN & co.: the constant 1 (the null copy and delete functions are 0). */
#define ABI_DUP_FN ((void *)1)

#define ABI_STD_VERSION    1
#define ABI_STD_SUBVERSION 0

#endif
