/* mpi.h: the MPI C interface of IVC (MPI over inter-VM shared memory).
 *
 * Handles are pointers to opaque library objects; predefined handles are the addresses of
 * objects exported by libmpi. Every MPI_ function has a PMPI_ twin for profiling tools. */
#ifndef IVC_MPI_H
#define IVC_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION        4
#define MPI_SUBVERSION     1
#define IVC_VERSION_STRING "IVC 0.1.0"

typedef struct ivc_mpi_comm_s *MPI_Comm;
typedef struct ivc_mpi_dt_s *MPI_Datatype;
typedef struct ivc_mpi_req_s *MPI_Request;
typedef struct ivc_mpi_op_s *MPI_Op;
typedef struct ivc_mpi_group_s *MPI_Group;
typedef struct ivc_mpi_errh_s *MPI_Errhandler;
typedef struct ivc_mpi_info_s *MPI_Info;
typedef struct ivc_mpi_msg_s *MPI_Message;
typedef struct ivc_mpi_session_s *MPI_Session;
typedef struct ivc_mpi_win_s *MPI_Win;
typedef struct ivc_mpi_file_s *MPI_File;

typedef long MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int ivc_cancelled;
    long long ivc_count; /* bytes received */
} MPI_Status;

/* The mpi_f08 TYPE(MPI_Status) as C sees it: the same size as MPI_Status. */
typedef struct MPI_F08_status {
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
    MPI_Fint ivc_internal[3];
} MPI_F08_status;

/* Tool information interface (MPI_T) handles and enumerations. */
typedef struct ivc_mpi_t_enum_s *MPI_T_enum;
typedef struct ivc_mpi_t_cvar_handle_s *MPI_T_cvar_handle;
typedef struct ivc_mpi_t_pvar_handle_s *MPI_T_pvar_handle;
typedef struct ivc_mpi_t_pvar_session_s *MPI_T_pvar_session;
typedef struct ivc_mpi_t_event_instance_s *MPI_T_event_instance;
typedef struct ivc_mpi_t_event_registration_s *MPI_T_event_registration;
typedef enum MPI_T_cb_safety {
    MPI_T_CB_REQUIRE_NONE = 0,
    MPI_T_CB_REQUIRE_MPI_RESTRICTED,
    MPI_T_CB_REQUIRE_THREAD_SAFE,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE
} MPI_T_cb_safety;
typedef enum MPI_T_source_order { MPI_T_SOURCE_ORDERED = 0, MPI_T_SOURCE_UNORDERED } MPI_T_source_order;

/* ---- predefined objects (exported by libmpi) ---- */
extern struct ivc_mpi_comm_s ivc_obj_comm_world, ivc_obj_comm_self;
extern struct ivc_mpi_group_s ivc_obj_group_empty;
extern struct ivc_mpi_errh_s ivc_obj_errors_are_fatal, ivc_obj_errors_return, ivc_obj_errors_abort;

/* clang-format off */
#define IVC_MPI_DATATYPES(X)                                                                       \
    X(CHAR, char) X(SIGNED_CHAR, signed_char) X(UNSIGNED_CHAR, unsigned_char) X(BYTE, byte)        \
    X(WCHAR, wchar) X(SHORT, short) X(UNSIGNED_SHORT, unsigned_short) X(INT, int)                  \
    X(UNSIGNED, unsigned) X(LONG, long) X(UNSIGNED_LONG, unsigned_long)                            \
    X(LONG_LONG_INT, long_long_int) X(UNSIGNED_LONG_LONG, unsigned_long_long) X(FLOAT, float)      \
    X(DOUBLE, double) X(LONG_DOUBLE, long_double) X(C_BOOL, c_bool) X(INT8_T, int8_t)              \
    X(INT16_T, int16_t) X(INT32_T, int32_t) X(INT64_T, int64_t) X(UINT8_T, uint8_t)                \
    X(UINT16_T, uint16_t) X(UINT32_T, uint32_t) X(UINT64_T, uint64_t) X(AINT, aint)                \
    X(OFFSET, offset) X(COUNT, count) X(C_FLOAT_COMPLEX, c_float_complex)                          \
    X(C_DOUBLE_COMPLEX, c_double_complex) X(C_LONG_DOUBLE_COMPLEX, c_long_double_complex)          \
    X(PACKED, packed) X(FLOAT_INT, float_int) X(DOUBLE_INT, double_int) X(LONG_INT, long_int)      \
    X(2INT, 2int) X(SHORT_INT, short_int) X(LONG_DOUBLE_INT, long_double_int)
/* clang-format on */

#define IVC_MPI_DT_EXTERN(NAME, low) extern struct ivc_mpi_dt_s ivc_obj_dt_##low;
IVC_MPI_DATATYPES(IVC_MPI_DT_EXTERN)
#undef IVC_MPI_DT_EXTERN

#define MPI_CHAR                  (&ivc_obj_dt_char)
#define MPI_SIGNED_CHAR           (&ivc_obj_dt_signed_char)
#define MPI_UNSIGNED_CHAR         (&ivc_obj_dt_unsigned_char)
#define MPI_BYTE                  (&ivc_obj_dt_byte)
#define MPI_WCHAR                 (&ivc_obj_dt_wchar)
#define MPI_SHORT                 (&ivc_obj_dt_short)
#define MPI_UNSIGNED_SHORT        (&ivc_obj_dt_unsigned_short)
#define MPI_INT                   (&ivc_obj_dt_int)
#define MPI_UNSIGNED              (&ivc_obj_dt_unsigned)
#define MPI_LONG                  (&ivc_obj_dt_long)
#define MPI_UNSIGNED_LONG         (&ivc_obj_dt_unsigned_long)
#define MPI_LONG_LONG_INT         (&ivc_obj_dt_long_long_int)
#define MPI_LONG_LONG             MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG    (&ivc_obj_dt_unsigned_long_long)
#define MPI_FLOAT                 (&ivc_obj_dt_float)
#define MPI_DOUBLE                (&ivc_obj_dt_double)
#define MPI_LONG_DOUBLE           (&ivc_obj_dt_long_double)
#define MPI_C_BOOL                (&ivc_obj_dt_c_bool)
#define MPI_INT8_T                (&ivc_obj_dt_int8_t)
#define MPI_INT16_T               (&ivc_obj_dt_int16_t)
#define MPI_INT32_T               (&ivc_obj_dt_int32_t)
#define MPI_INT64_T               (&ivc_obj_dt_int64_t)
#define MPI_UINT8_T               (&ivc_obj_dt_uint8_t)
#define MPI_UINT16_T              (&ivc_obj_dt_uint16_t)
#define MPI_UINT32_T              (&ivc_obj_dt_uint32_t)
#define MPI_UINT64_T              (&ivc_obj_dt_uint64_t)
#define MPI_AINT                  (&ivc_obj_dt_aint)
#define MPI_OFFSET                (&ivc_obj_dt_offset)
#define MPI_COUNT                 (&ivc_obj_dt_count)
#define MPI_C_FLOAT_COMPLEX       (&ivc_obj_dt_c_float_complex)
#define MPI_C_COMPLEX             MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX      (&ivc_obj_dt_c_double_complex)
#define MPI_C_LONG_DOUBLE_COMPLEX (&ivc_obj_dt_c_long_double_complex)
#define MPI_PACKED                (&ivc_obj_dt_packed)
#define MPI_FLOAT_INT             (&ivc_obj_dt_float_int)
#define MPI_DOUBLE_INT            (&ivc_obj_dt_double_int)
#define MPI_LONG_INT              (&ivc_obj_dt_long_int)
#define MPI_2INT                  (&ivc_obj_dt_2int)
#define MPI_SHORT_INT             (&ivc_obj_dt_short_int)
#define MPI_LONG_DOUBLE_INT       (&ivc_obj_dt_long_double_int)

/* clang-format off */
#define IVC_MPI_OPS(X)                                                                             \
    X(MAX, max) X(MIN, min) X(SUM, sum) X(PROD, prod) X(LAND, land) X(BAND, band) X(LOR, lor)     \
    X(BOR, bor) X(LXOR, lxor) X(BXOR, bxor) X(MAXLOC, maxloc) X(MINLOC, minloc)                    \
    X(REPLACE, replace) X(NO_OP, no_op)
/* clang-format on */
#define IVC_MPI_OP_EXTERN(NAME, low) extern struct ivc_mpi_op_s ivc_obj_op_##low;
IVC_MPI_OPS(IVC_MPI_OP_EXTERN)
#undef IVC_MPI_OP_EXTERN
#define MPI_MAX     (&ivc_obj_op_max)
#define MPI_MIN     (&ivc_obj_op_min)
#define MPI_SUM     (&ivc_obj_op_sum)
#define MPI_PROD    (&ivc_obj_op_prod)
#define MPI_LAND    (&ivc_obj_op_land)
#define MPI_BAND    (&ivc_obj_op_band)
#define MPI_LOR     (&ivc_obj_op_lor)
#define MPI_BOR     (&ivc_obj_op_bor)
#define MPI_LXOR    (&ivc_obj_op_lxor)
#define MPI_BXOR    (&ivc_obj_op_bxor)
#define MPI_MAXLOC  (&ivc_obj_op_maxloc)
#define MPI_MINLOC  (&ivc_obj_op_minloc)
#define MPI_REPLACE (&ivc_obj_op_replace)
#define MPI_NO_OP   (&ivc_obj_op_no_op)

#define MPI_COMM_WORLD       (&ivc_obj_comm_world)
#define MPI_COMM_SELF        (&ivc_obj_comm_self)
#define MPI_GROUP_EMPTY      (&ivc_obj_group_empty)
#define MPI_ERRORS_ARE_FATAL (&ivc_obj_errors_are_fatal)
#define MPI_ERRORS_RETURN    (&ivc_obj_errors_return)
#define MPI_ERRORS_ABORT     (&ivc_obj_errors_abort)

#define MPI_COMM_NULL       ((MPI_Comm)0)
#define MPI_DATATYPE_NULL   ((MPI_Datatype)0)
#define MPI_REQUEST_NULL    ((MPI_Request)0)
#define MPI_OP_NULL         ((MPI_Op)0)
#define MPI_GROUP_NULL      ((MPI_Group)0)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_INFO_NULL       ((MPI_Info)0)
#define MPI_MESSAGE_NULL    ((MPI_Message)0)

#define MPI_STATUS_IGNORE   ((MPI_Status *)1)
#define MPI_STATUSES_IGNORE ((MPI_Status *)1)
/* Arguments of the dynamic-process functions (src/mpi/comm/mpi_dyn.c). */
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_ARGV_NULL       ((char **)0)
#define MPI_ARGVS_NULL      ((char ***)0)
#define MPI_BOTTOM          ((void *)0)
#define MPI_IN_PLACE        ((void *)-1)

#define MPI_ANY_SOURCE     (-1)
#define MPI_PROC_NULL      (-2)
#define MPI_ROOT           (-3)
#define MPI_ANY_TAG        (-1)
#define MPI_UNDEFINED      (-32766)
#define MPI_KEYVAL_INVALID (-1)

#define MPI_MAX_PROCESSOR_NAME         256
#define MPI_MAX_ERROR_STRING           512
#define MPI_MAX_OBJECT_NAME            128
#define MPI_MAX_PORT_NAME              256
#define MPI_MAX_LIBRARY_VERSION_STRING 256

enum { MPI_THREAD_SINGLE = 0, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE };
enum { MPI_IDENT = 0, MPI_CONGRUENT, MPI_SIMILAR, MPI_UNEQUAL };

/* Predefined attribute keys of MPI_COMM_WORLD. */
enum {
    MPI_TAG_UB = 0x64400001,
    MPI_HOST,
    MPI_IO,
    MPI_WTIME_IS_GLOBAL,
    MPI_APPNUM,
    MPI_UNIVERSE_SIZE,
    MPI_LASTUSEDCODE
};

/* Error classes (and codes: IVC uses one code per class). */
enum {
    MPI_SUCCESS = 0,
    MPI_ERR_BUFFER,
    MPI_ERR_COUNT,
    MPI_ERR_TYPE,
    MPI_ERR_TAG,
    MPI_ERR_COMM,
    MPI_ERR_RANK,
    MPI_ERR_REQUEST,
    MPI_ERR_ROOT,
    MPI_ERR_GROUP,
    MPI_ERR_OP,
    MPI_ERR_TOPOLOGY,
    MPI_ERR_DIMS,
    MPI_ERR_ARG,
    MPI_ERR_UNKNOWN,
    MPI_ERR_TRUNCATE,
    MPI_ERR_OTHER,
    MPI_ERR_INTERN,
    MPI_ERR_IN_STATUS,
    MPI_ERR_PENDING,
    MPI_ERR_KEYVAL,
    MPI_ERR_NO_MEM,
    MPI_ERR_BASE,
    MPI_ERR_INFO_KEY,
    MPI_ERR_INFO_VALUE,
    MPI_ERR_INFO_NOKEY,
    MPI_ERR_SPAWN,
    MPI_ERR_PORT,
    MPI_ERR_SERVICE,
    MPI_ERR_NAME,
    MPI_ERR_WIN,
    MPI_ERR_SIZE,
    MPI_ERR_DISP,
    MPI_ERR_INFO,
    MPI_ERR_LOCKTYPE,
    MPI_ERR_ASSERT,
    MPI_ERR_RMA_CONFLICT,
    MPI_ERR_RMA_SYNC,
    MPI_ERR_RMA_RANGE,
    MPI_ERR_RMA_ATTACH,
    MPI_ERR_RMA_SHARED,
    MPI_ERR_RMA_FLAVOR,
    MPI_ERR_FILE,
    MPI_ERR_NOT_SAME,
    MPI_ERR_AMODE,
    MPI_ERR_UNSUPPORTED_DATAREP,
    MPI_ERR_UNSUPPORTED_OPERATION,
    MPI_ERR_NO_SUCH_FILE,
    MPI_ERR_FILE_EXISTS,
    MPI_ERR_BAD_FILE,
    MPI_ERR_ACCESS,
    MPI_ERR_NO_SPACE,
    MPI_ERR_QUOTA,
    MPI_ERR_READ_ONLY,
    MPI_ERR_FILE_IN_USE,
    MPI_ERR_DUP_DATAREP,
    MPI_ERR_CONVERSION,
    MPI_ERR_IO,
    MPI_ERR_PROC_FAILED, /* a peer died or broke the shared-memory protocol */
    /* MPI-4 classes and the return codes of the tool interface (environment room) */
    MPI_ERR_SESSION,
    MPI_ERR_VALUE_TOO_LARGE,
    MPI_ERR_ERRHANDLER,
    MPI_ERR_PROC_ABORTED,
    MPI_T_ERR_MEMORY,
    MPI_T_ERR_NOT_INITIALIZED,
    MPI_T_ERR_CANNOT_INIT,
    MPI_T_ERR_NOT_ACCESSIBLE,
    MPI_T_ERR_INVALID_INDEX,
    MPI_T_ERR_INVALID_ITEM,
    MPI_T_ERR_INVALID_HANDLE,
    MPI_T_ERR_OUT_OF_HANDLES,
    MPI_T_ERR_OUT_OF_SESSIONS,
    MPI_T_ERR_INVALID_SESSION,
    MPI_T_ERR_CVAR_SET_NOT_NOW,
    MPI_T_ERR_CVAR_SET_NEVER,
    MPI_T_ERR_PVAR_NO_STARTSTOP,
    MPI_T_ERR_PVAR_NO_WRITE,
    MPI_T_ERR_PVAR_NO_ATOMIC,
    MPI_T_ERR_INVALID_NAME,
    MPI_T_ERR_INVALID,
    MPI_T_ERR_NOT_SUPPORTED,
    MPI_ERR_ABI, /* MPI-5.0: the MPI_Abi_ functions */
    MPI_ERR_LASTCODE
};


/* ---- One-sided communication, groups, topologies, info, matched probes ---- */
extern struct ivc_mpi_msg_s ivc_obj_message_no_proc;

#define MPI_WIN_NULL        ((MPI_Win)0)
#define MPI_KEYVAL_NULL     MPI_KEYVAL_INVALID
#define MPI_MESSAGE_NO_PROC (&ivc_obj_message_no_proc)
#define MPI_MAX_INFO_KEY    255
#define MPI_MAX_INFO_VAL    1024
/* Addresses of objects (not small integers), so compilers see valid arrays. */
extern int ivc_obj_unweighted[1], ivc_obj_weights_empty[1];
#define MPI_UNWEIGHTED    (ivc_obj_unweighted)
#define MPI_WEIGHTS_EMPTY (ivc_obj_weights_empty)

enum { MPI_GRAPH = 1, MPI_CART, MPI_DIST_GRAPH };
enum {
    MPI_COMM_TYPE_SHARED = 1,
    MPI_COMM_TYPE_HW_UNGUIDED,
    MPI_COMM_TYPE_HW_GUIDED,
    MPI_COMM_TYPE_RESOURCE_GUIDED
};
enum { MPI_LOCK_EXCLUSIVE = 234, MPI_LOCK_SHARED = 235 };
enum {
    MPI_MODE_NOCHECK = 1024,
    MPI_MODE_NOSTORE = 2048,
    MPI_MODE_NOPUT = 4096,
    MPI_MODE_NOPRECEDE = 8192,
    MPI_MODE_NOSUCCEED = 16384
};
enum {
    MPI_WIN_FLAVOR_CREATE = 1,
    MPI_WIN_FLAVOR_ALLOCATE,
    MPI_WIN_FLAVOR_DYNAMIC,
    MPI_WIN_FLAVOR_SHARED
};
enum { MPI_WIN_SEPARATE = 1, MPI_WIN_UNIFIED };

/* ---- Parallel I/O (src/mpi/io) ---- */
#define MPI_FILE_NULL ((MPI_File)0)
/* Access modes: bits, none shared with the one-sided assertion modes above. */
enum {
    MPI_MODE_CREATE = 1,
    MPI_MODE_RDONLY = 2,
    MPI_MODE_WRONLY = 4,
    MPI_MODE_RDWR = 8,
    MPI_MODE_DELETE_ON_CLOSE = 16,
    MPI_MODE_UNIQUE_OPEN = 32,
    MPI_MODE_EXCL = 64,
    MPI_MODE_APPEND = 128,
    MPI_MODE_SEQUENTIAL = 256
};
enum { MPI_SEEK_SET = 600, MPI_SEEK_CUR = 602, MPI_SEEK_END = 604 };
#define MPI_DISPLACEMENT_CURRENT (-54278278LL)
#define MPI_MAX_DATAREP_STRING   128
/* Predefined window attribute keys. */
enum {
    MPI_WIN_BASE = 0x64400101,
    MPI_WIN_SIZE,
    MPI_WIN_DISP_UNIT,
    MPI_WIN_CREATE_FLAVOR,
    MPI_WIN_MODEL
};

/* ---- point-to-point additions ---- */
/* Bytes a buffered send takes in the attached buffer beyond its packed size. */
#define MPI_BSEND_OVERHEAD 64
/* Buffer_attach & co.: the library allocates buffered messages as needed. */
#define MPI_BUFFER_AUTOMATIC ((void *)-2)

/* ---- environment room additions ---- */
/* MPI_INFO_ENV: the command line and environment the process started with (filled by
 * MPI_Init; the keys of MPI_Info_create_env). */
extern struct ivc_mpi_info_s ivc_obj_info_env;
#define MPI_INFO_ENV (&ivc_obj_info_env)

/* Sessions (MPI-4). */
#define MPI_SESSION_NULL      ((MPI_Session)0)
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_STRINGTAG_LEN 256

/* Tool information interface (MPI_T). */
#define MPI_T_ENUM_NULL         ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL  ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL  ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
#define MPI_T_PVAR_ALL_HANDLES  ((MPI_T_pvar_handle)1)
enum {
    MPI_T_VERBOSITY_USER_BASIC = 221,
    MPI_T_VERBOSITY_USER_DETAIL,
    MPI_T_VERBOSITY_USER_ALL,
    MPI_T_VERBOSITY_TUNER_BASIC,
    MPI_T_VERBOSITY_TUNER_DETAIL,
    MPI_T_VERBOSITY_TUNER_ALL,
    MPI_T_VERBOSITY_MPIDEV_BASIC,
    MPI_T_VERBOSITY_MPIDEV_DETAIL,
    MPI_T_VERBOSITY_MPIDEV_ALL
};
enum {
    MPI_T_BIND_NO_OBJECT = 9700,
    MPI_T_BIND_MPI_COMM,
    MPI_T_BIND_MPI_DATATYPE,
    MPI_T_BIND_MPI_ERRHANDLER,
    MPI_T_BIND_MPI_FILE,
    MPI_T_BIND_MPI_GROUP,
    MPI_T_BIND_MPI_OP,
    MPI_T_BIND_MPI_REQUEST,
    MPI_T_BIND_MPI_WIN,
    MPI_T_BIND_MPI_MESSAGE,
    MPI_T_BIND_MPI_INFO,
    MPI_T_BIND_MPI_SESSION
};
enum {
    MPI_T_SCOPE_CONSTANT = 60438,
    MPI_T_SCOPE_READONLY,
    MPI_T_SCOPE_LOCAL,
    MPI_T_SCOPE_GROUP,
    MPI_T_SCOPE_GROUP_EQ,
    MPI_T_SCOPE_ALL,
    MPI_T_SCOPE_ALL_EQ
};
enum {
    MPI_T_PVAR_CLASS_STATE = 240,
    MPI_T_PVAR_CLASS_LEVEL,
    MPI_T_PVAR_CLASS_SIZE,
    MPI_T_PVAR_CLASS_PERCENTAGE,
    MPI_T_PVAR_CLASS_HIGHWATERMARK,
    MPI_T_PVAR_CLASS_LOWWATERMARK,
    MPI_T_PVAR_CLASS_COUNTER,
    MPI_T_PVAR_CLASS_AGGREGATE,
    MPI_T_PVAR_CLASS_TIMER,
    MPI_T_PVAR_CLASS_GENERIC
};

/* ---- datatypes room additions ---- */
/* The C++ types of MPI's C table (src/mpi/dtype/mpi_datatype.c). */
/* clang-format off */
#define IVC_MPI_CXX_DATATYPES(X)                                                                   \
    X(CXX_BOOL, cxx_bool) X(CXX_FLOAT_COMPLEX, cxx_float_complex)                                  \
    X(CXX_DOUBLE_COMPLEX, cxx_double_complex) X(CXX_LONG_DOUBLE_COMPLEX, cxx_long_double_complex)
/* clang-format on */
#define IVC_MPI_DT_EXTERN(NAME, low) extern struct ivc_mpi_dt_s ivc_obj_dt_##low;
IVC_MPI_CXX_DATATYPES(IVC_MPI_DT_EXTERN)
#undef IVC_MPI_DT_EXTERN
#define MPI_CXX_BOOL                (&ivc_obj_dt_cxx_bool)
#define MPI_CXX_FLOAT_COMPLEX       (&ivc_obj_dt_cxx_float_complex)
#define MPI_CXX_DOUBLE_COMPLEX      (&ivc_obj_dt_cxx_double_complex)
#define MPI_CXX_LONG_DOUBLE_COMPLEX (&ivc_obj_dt_cxx_long_double_complex)

/* Type_get_envelope combiners. */
enum {
    MPI_COMBINER_NAMED = 1,
    MPI_COMBINER_DUP,
    MPI_COMBINER_CONTIGUOUS,
    MPI_COMBINER_VECTOR,
    MPI_COMBINER_HVECTOR,
    MPI_COMBINER_INDEXED,
    MPI_COMBINER_HINDEXED,
    MPI_COMBINER_INDEXED_BLOCK,
    MPI_COMBINER_HINDEXED_BLOCK,
    MPI_COMBINER_STRUCT,
    MPI_COMBINER_SUBARRAY,
    MPI_COMBINER_DARRAY,
    MPI_COMBINER_F90_REAL,
    MPI_COMBINER_F90_COMPLEX,
    MPI_COMBINER_F90_INTEGER,
    MPI_COMBINER_RESIZED,
    MPI_COMBINER_VALUE_INDEX,
    /* Names the standard keeps for the removed Fortran forms of the h-constructors: no
     * type IVC builds has them. */
    MPI_COMBINER_HVECTOR_INTEGER,
    MPI_COMBINER_HINDEXED_INTEGER,
    MPI_COMBINER_STRUCT_INTEGER
};
/* Type_create_subarray / Type_create_darray. */
enum { MPI_ORDER_C = 56, MPI_ORDER_FORTRAN = 57 };
enum { MPI_DISTRIBUTE_BLOCK = 121, MPI_DISTRIBUTE_CYCLIC = 122, MPI_DISTRIBUTE_NONE = 123 };
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
/* Type_match_size. */
enum { MPI_TYPECLASS_INTEGER = 1, MPI_TYPECLASS_REAL = 2, MPI_TYPECLASS_COMPLEX = 3 };

/* The functions, callback types and predefined callbacks, generated from the standard's
 * API description (src/binding/gen_c.py). */
#include "mpi_proto.h"

/* Deprecated names of callback types that old programs still use. */
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
/* MPI-4.1's large-count "no conversion" function (the API description lists only the int one). */
int MPI_CONVERSION_FN_NULL_C(void *userbuf, MPI_Datatype datatype, MPI_Count count, void *filebuf,
                             MPI_Offset position, void *extra_state);
typedef MPI_Comm_errhandler_function MPI_Handler_function;

/* Datatypes removed from the standard in MPI-3.0 that old programs still use: the lower-
 * and upper-bound markers of MPI_Type_struct (size 0; where they stand in a struct they set
 * its lb and ub; src/mpi/dtype/mpi_datatype.c). */
#define IVC_MPI_REMOVED_DATATYPES(X) X(LB, lb) X(UB, ub)
#define IVC_MPI_DT_EXTERN(NAME, low) extern struct ivc_mpi_dt_s ivc_obj_dt_##low;
IVC_MPI_REMOVED_DATATYPES(IVC_MPI_DT_EXTERN)
#undef IVC_MPI_DT_EXTERN
#define MPI_LB (&ivc_obj_dt_lb)
#define MPI_UB (&ivc_obj_dt_ub)

/* Functions removed from the standard in MPI-3.0 that old programs still call (their
 * MPI-2 replacements under the old names; src/binding/c/removed.c). */
#define IVC_MPI_REMOVED(ret, name, params)                                                         \
    ret MPI_##name params;                                                                         \
    ret PMPI_##name params;
IVC_MPI_REMOVED(int, Address, (void *location, MPI_Aint *address))
IVC_MPI_REMOVED(int, Type_extent, (MPI_Datatype datatype, MPI_Aint *extent))
IVC_MPI_REMOVED(int, Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement))
IVC_MPI_REMOVED(int, Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement))
IVC_MPI_REMOVED(int, Type_hvector,
                (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                 MPI_Datatype *newtype))
IVC_MPI_REMOVED(int, Type_hindexed,
                (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                 MPI_Datatype oldtype, MPI_Datatype *newtype))
IVC_MPI_REMOVED(int, Type_struct,
                (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                 MPI_Datatype array_of_types[], MPI_Datatype *newtype))
IVC_MPI_REMOVED(int, Errhandler_create,
                (MPI_Handler_function * function, MPI_Errhandler *errhandler))
IVC_MPI_REMOVED(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))
IVC_MPI_REMOVED(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler))
#undef IVC_MPI_REMOVED

/* ---- Fortran interoperability (src/binding/fortran) ---- */
/* Fortran datatypes, usable from C as well (objects in src/mpi/dtype/mpi_datatype.c; their
 * Fortran handles are fixed indices, src/binding/handles.c). */
/* clang-format off */
#define IVC_MPI_F_DATATYPES(X)                                                                     \
    X(INTEGER, integer) X(REAL, real) X(DOUBLE_PRECISION, double_precision) X(COMPLEX, complex)    \
    X(DOUBLE_COMPLEX, double_complex) X(LOGICAL, logical) X(CHARACTER, character)                  \
    X(2INTEGER, 2integer) X(2REAL, 2real) X(2DOUBLE_PRECISION, 2double_precision)                  \
    X(INTEGER1, integer1) X(INTEGER2, integer2) X(INTEGER4, integer4) X(INTEGER8, integer8)        \
    X(REAL4, real4) X(REAL8, real8) X(COMPLEX8, complex8) X(COMPLEX16, complex16)
/* clang-format on */
#define IVC_MPI_DT_EXTERN(NAME, low) extern struct ivc_mpi_dt_s ivc_obj_dt_##low;
IVC_MPI_F_DATATYPES(IVC_MPI_DT_EXTERN)
#undef IVC_MPI_DT_EXTERN
#define MPI_INTEGER           (&ivc_obj_dt_integer)
#define MPI_REAL              (&ivc_obj_dt_real)
#define MPI_DOUBLE_PRECISION  (&ivc_obj_dt_double_precision)
#define MPI_COMPLEX           (&ivc_obj_dt_complex)
#define MPI_DOUBLE_COMPLEX    (&ivc_obj_dt_double_complex)
#define MPI_LOGICAL           (&ivc_obj_dt_logical)
#define MPI_CHARACTER         (&ivc_obj_dt_character)
#define MPI_2INTEGER          (&ivc_obj_dt_2integer)
#define MPI_2REAL             (&ivc_obj_dt_2real)
#define MPI_2DOUBLE_PRECISION (&ivc_obj_dt_2double_precision)
#define MPI_INTEGER1          (&ivc_obj_dt_integer1)
#define MPI_INTEGER2          (&ivc_obj_dt_integer2)
#define MPI_INTEGER4          (&ivc_obj_dt_integer4)
#define MPI_INTEGER8          (&ivc_obj_dt_integer8)
#define MPI_REAL4             (&ivc_obj_dt_real4)
#define MPI_REAL8             (&ivc_obj_dt_real8)
#define MPI_COMPLEX8          (&ivc_obj_dt_complex8)
#define MPI_COMPLEX16         (&ivc_obj_dt_complex16)
/* The optional Fortran datatypes of gfortran's 16-byte kinds (MPI-4.1 section 3.2.2):
 * INTEGER(16) is __int128, REAL(16) IEEE binary128 (_Float128, not the x87 long double),
 * COMPLEX(16) two of those. A list of their own so that their Fortran handles come after
 * those of IVC_MPI_REMOVED_DATATYPES and no earlier handle's index moves (handles.c). */
/* clang-format off */
#define IVC_MPI_F_OPT_DATATYPES(X)                                                                 \
    X(INTEGER16, integer16) X(REAL16, real16) X(COMPLEX32, complex32)
/* clang-format on */
#define IVC_MPI_DT_EXTERN(NAME, low) extern struct ivc_mpi_dt_s ivc_obj_dt_##low;
IVC_MPI_F_OPT_DATATYPES(IVC_MPI_DT_EXTERN)
#undef IVC_MPI_DT_EXTERN
#define MPI_INTEGER16 (&ivc_obj_dt_integer16)
#define MPI_REAL16    (&ivc_obj_dt_real16)
#define MPI_COMPLEX32 (&ivc_obj_dt_complex32)

/* A Fortran INTEGER status array: MPI_F_STATUS_SIZE integers, the C MPI_Status bit for bit;
 * MPI_F_SOURCE, MPI_F_TAG, MPI_F_ERROR are its C (0-based) indices. */
#define MPI_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#define MPI_F_SOURCE      0
#define MPI_F_TAG         1
#define MPI_F_ERROR       2
/* Fortran's MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE as C sees them (the storage of the
 * Fortran common blocks, in libmpi). */
extern MPI_Fint ivc_obj_f_status_ignore_[], ivc_obj_f_statuses_ignore_[];
#define MPI_F_STATUS_IGNORE     ((MPI_Fint *)ivc_obj_f_status_ignore_)
#define MPI_F_STATUSES_IGNORE   ((MPI_Fint *)ivc_obj_f_statuses_ignore_)
#define MPI_F08_STATUS_IGNORE   ((MPI_F08_status *)ivc_obj_f_status_ignore_)
#define MPI_F08_STATUSES_IGNORE ((MPI_F08_status *)ivc_obj_f_statuses_ignore_)

/* MPICH 4.0's extension names for what MPI-4.1 made MPI_Remove_error_class/code/string;
 * programs written for MPICH 4.0 still use them. */
#define MPIX_Delete_error_class   MPI_Remove_error_class
#define MPIX_Delete_error_code    MPI_Remove_error_code
#define MPIX_Delete_error_string  MPI_Remove_error_string
#define PMPIX_Delete_error_class  PMPI_Remove_error_class
#define PMPIX_Delete_error_code   PMPI_Remove_error_code
#define PMPIX_Delete_error_string PMPI_Remove_error_string

#ifdef __cplusplus
}
#endif

/* The fault-tolerance extension (ULFM's MPIX_ names). Open MPI declares it in mpi-ext.h
 * only; MPICH in mpi.h, and programs written for MPICH use it without mpi-ext.h. */
#include "mpi-ext.h"

#endif
