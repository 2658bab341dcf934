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
enum { MPI_COMM_TYPE_SHARED = 1 };
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
/* Predefined window attribute keys. */
enum {
    MPI_WIN_BASE = 0x64400101,
    MPI_WIN_SIZE,
    MPI_WIN_DISP_UNIT,
    MPI_WIN_CREATE_FLAVOR,
    MPI_WIN_MODEL
};

/* The functions, callback types and predefined callbacks, generated from the standard's
 * API description (src/binding/gen_c.py). */
#include "mpi_proto.h"

/* Deprecated names of callback types that old programs still use. */
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;

#ifdef __cplusplus
}
#endif

#endif
