/* The MPICH ABI (libmpi.so.12) as a program built with Debian's MPICH 4.0.2 headers sees it:
 * its C types and the values its mpi.h compiles into programs. Facts read from that header
 * (/usr/include/x86_64-linux-gnu/mpich/mpi.h, x86_64); the declarations are IVC's own.
 *
 * Everything here is prefixed abi_ / ABI_ so that it can sit beside IVC's mpi.h in the same
 * translation unit: the conversion layer speaks both (src/abi/mpich/README.md). */
#ifndef IVC_ABI_MPICH_ABI_H
#define IVC_ABI_MPICH_ABI_H

/* ---- handle types: ints, kind and index encoded in the bits ---- */
typedef int abi_Comm, abi_Datatype, abi_Group, abi_Win, abi_Session, abi_Op, abi_Errhandler,
    abi_Request, abi_Message, abi_Info;
typedef struct abi_file_s *abi_File; /* ROMIO's pointer */
typedef long abi_Aint;
typedef long abi_Offset;
typedef long abi_Count;
typedef int abi_Fint;
typedef struct abi_t_enum_s *abi_T_enum;
typedef struct abi_t_cvar_handle_s *abi_T_cvar_handle;
typedef struct abi_t_pvar_handle_s *abi_T_pvar_handle;
typedef struct abi_t_pvar_session_s *abi_T_pvar_session;
typedef struct abi_t_event_registration_s *abi_T_event_registration;
typedef struct abi_t_event_instance_s *abi_T_event_instance;
typedef int abi_T_cb_safety, abi_T_source_order;

/* MPI_Status: the count in bytes split over two ints, the cancelled flag in bit 0 of the
 * second; MPI_SOURCE, MPI_TAG, MPI_ERROR after them (Fortran indices 3, 4, 5). */
typedef struct abi_Status {
    int count_lo;
    int count_hi_and_cancelled;
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
} abi_Status;
typedef abi_Status abi_F08_status;

/* Callback types (the standard's, over MPICH's handle types). */
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

/* ---- handle values ----
 * bits 30-31: 1 builtin (predefined), 2 direct, 3 indirect, 0 invalid (the null handles);
 * bits 26-29: the object kind; the low 26 bits an index (builtin datatypes: size << 8 | n). */
#define ABI_HKIND_BUILTIN 1u
#define ABI_HKIND_DIRECT  2u
#define ABI_HKIND_USER    3u /* MPICH's "indirect": IVC gives user objects these */
enum {
    ABI_OBJ_COMM = 1,
    ABI_OBJ_GROUP = 2,
    ABI_OBJ_DATATYPE = 3,
    ABI_OBJ_ERRHANDLER = 5,
    ABI_OBJ_OP = 6,
    ABI_OBJ_INFO = 7,
    ABI_OBJ_WIN = 8,
    ABI_OBJ_KEYVAL = 9,
    ABI_OBJ_REQUEST = 11,
    ABI_OBJ_SESSION = 14,
};
#define ABI_HANDLE(hkind, obj, idx)                                                                \
    ((int)(((unsigned)(hkind) << 30) | ((unsigned)(obj) << 26) | (unsigned)(idx)))
#define ABI_HANDLE_HKIND(h) ((unsigned)(h) >> 30)
#define ABI_HANDLE_OBJ(h)   (((unsigned)(h) >> 26) & 0xfu)
#define ABI_HANDLE_INDEX(h) ((unsigned)(h)&0x3ffffffu)

#define ABI_COMM_NULL        0x04000000
#define ABI_OP_NULL          0x18000000
#define ABI_GROUP_NULL       0x08000000
#define ABI_DATATYPE_NULL    0x0c000000
#define ABI_REQUEST_NULL     0x2c000000
#define ABI_ERRHANDLER_NULL  0x14000000
#define ABI_MESSAGE_NULL     0x2c000000
#define ABI_MESSAGE_NO_PROC  0x6c000000
#define ABI_INFO_NULL        0x1c000000
#define ABI_INFO_ENV         0x5c000001
#define ABI_WIN_NULL         0x20000000
#define ABI_SESSION_NULL     0x38000000
#define ABI_COMM_WORLD       0x44000000
#define ABI_COMM_SELF        0x44000001
#define ABI_GROUP_EMPTY      0x48000000
#define ABI_ERRORS_ARE_FATAL 0x54000000
#define ABI_ERRORS_RETURN    0x54000001
#define ABI_ERRORS_THROW     0x54000002 /* MPIR_ERRORS_THROW_EXCEPTIONS (C++ only) */
#define ABI_ERRORS_ABORT     0x54000003

/* Datatypes: name, MPICH value (IVC's mpi.h has a handle for each name). */
/* clang-format off */
#define ABI_MPICH_DATATYPES(X)                                                                      \
    X(CHAR, 0x4c000101) X(SIGNED_CHAR, 0x4c000118) X(UNSIGNED_CHAR, 0x4c000102)                    \
    X(BYTE, 0x4c00010d) X(WCHAR, 0x4c00040e) X(SHORT, 0x4c000203) X(UNSIGNED_SHORT, 0x4c000204)    \
    X(INT, 0x4c000405) X(UNSIGNED, 0x4c000406) X(LONG, 0x4c000807) X(UNSIGNED_LONG, 0x4c000808)    \
    X(FLOAT, 0x4c00040a) X(DOUBLE, 0x4c00080b) X(LONG_DOUBLE, 0x4c00100c)                          \
    X(LONG_LONG_INT, 0x4c000809) X(UNSIGNED_LONG_LONG, 0x4c000819) X(PACKED, 0x4c00010f)           \
    X(FLOAT_INT, 0x8c000000) X(DOUBLE_INT, 0x8c000001) X(LONG_INT, 0x8c000002)                     \
    X(SHORT_INT, 0x8c000003) X(2INT, 0x4c000816) X(LONG_DOUBLE_INT, 0x8c000004)                    \
    X(COMPLEX, 0x4c00081e) X(DOUBLE_COMPLEX, 0x4c001022) X(LOGICAL, 0x4c00041d)                    \
    X(REAL, 0x4c00041c) X(DOUBLE_PRECISION, 0x4c00081f) X(INTEGER, 0x4c00041b)                     \
    X(2INTEGER, 0x4c000820) X(2REAL, 0x4c000821) X(2DOUBLE_PRECISION, 0x4c001023)                  \
    X(CHARACTER, 0x4c00011a) X(REAL4, 0x4c000427) X(REAL8, 0x4c000829) X(COMPLEX8, 0x4c000828)     \
    X(COMPLEX16, 0x4c00102a) X(INTEGER1, 0x4c00012d) X(INTEGER2, 0x4c00022f)                       \
    X(INTEGER4, 0x4c000430) X(INTEGER8, 0x4c000831) X(INT8_T, 0x4c000137) X(INT16_T, 0x4c000238)   \
    X(INT32_T, 0x4c000439) X(INT64_T, 0x4c00083a) X(UINT8_T, 0x4c00013b) X(UINT16_T, 0x4c00023c)   \
    X(UINT32_T, 0x4c00043d) X(UINT64_T, 0x4c00083e) X(C_BOOL, 0x4c00013f)                          \
    X(C_FLOAT_COMPLEX, 0x4c000840) X(C_DOUBLE_COMPLEX, 0x4c001041)                                 \
    X(C_LONG_DOUBLE_COMPLEX, 0x4c002042) X(AINT, 0x4c000843) X(OFFSET, 0x4c000844)                 \
    X(COUNT, 0x4c000845) X(CXX_BOOL, 0x4c000133) X(CXX_FLOAT_COMPLEX, 0x4c000834)                  \
    X(CXX_DOUBLE_COMPLEX, 0x4c001035) X(CXX_LONG_DOUBLE_COMPLEX, 0x4c002036)                  \
    X(REAL16, 0x4c00102b) X(COMPLEX32, 0x4c00202c)
/* MPICH datatypes this layer does not map: MPI_LB, MPI_UB (removed in MPI-3.0),
 * MPIX_C_FLOAT16. They convert to MPI_DATATYPE_NULL (MPI_ERR_TYPE). MPICH 4.0.2 defines
 * MPI_INTEGER16 as MPI_DATATYPE_NULL (mpi.h and mpif.h), so a program built with it has no
 * INTEGER16 handle to pass. */

#define ABI_MPICH_OPS(X)                                                                            \
    X(MAX, 0x58000001) X(MIN, 0x58000002) X(SUM, 0x58000003) X(PROD, 0x58000004)                   \
    X(LAND, 0x58000005) X(BAND, 0x58000006) X(LOR, 0x58000007) X(BOR, 0x58000008)                  \
    X(LXOR, 0x58000009) X(BXOR, 0x5800000a) X(MINLOC, 0x5800000b) X(MAXLOC, 0x5800000c)            \
    X(REPLACE, 0x5800000d) X(NO_OP, 0x5800000e)

/* Error classes: name, MPICH value. */
#define ABI_MPICH_ERRORS(X)                                                                         \
    X(SUCCESS, 0) X(ERR_BUFFER, 1) X(ERR_COUNT, 2) X(ERR_TYPE, 3) X(ERR_TAG, 4) X(ERR_COMM, 5)     \
    X(ERR_RANK, 6) X(ERR_ROOT, 7) X(ERR_GROUP, 8) X(ERR_OP, 9) X(ERR_TOPOLOGY, 10)                 \
    X(ERR_DIMS, 11) X(ERR_ARG, 12) X(ERR_UNKNOWN, 13) X(ERR_TRUNCATE, 14) X(ERR_OTHER, 15)         \
    X(ERR_INTERN, 16) X(ERR_IN_STATUS, 17) X(ERR_PENDING, 18) X(ERR_REQUEST, 19)                   \
    X(ERR_ACCESS, 20) X(ERR_AMODE, 21) X(ERR_BAD_FILE, 22) X(ERR_CONVERSION, 23)                   \
    X(ERR_DUP_DATAREP, 24) X(ERR_FILE_EXISTS, 25) X(ERR_FILE_IN_USE, 26) X(ERR_FILE, 27)           \
    X(ERR_INFO, 28) X(ERR_INFO_KEY, 29) X(ERR_INFO_VALUE, 30) X(ERR_INFO_NOKEY, 31) X(ERR_IO, 32)  \
    X(ERR_NAME, 33) X(ERR_NO_MEM, 34) X(ERR_NOT_SAME, 35) X(ERR_NO_SPACE, 36)                      \
    X(ERR_NO_SUCH_FILE, 37) X(ERR_PORT, 38) X(ERR_QUOTA, 39) X(ERR_READ_ONLY, 40)                  \
    X(ERR_SERVICE, 41) X(ERR_SPAWN, 42) X(ERR_UNSUPPORTED_DATAREP, 43)                             \
    X(ERR_UNSUPPORTED_OPERATION, 44) X(ERR_WIN, 45) X(ERR_BASE, 46) X(ERR_LOCKTYPE, 47)            \
    X(ERR_KEYVAL, 48) X(ERR_RMA_CONFLICT, 49) X(ERR_RMA_SYNC, 50) X(ERR_SIZE, 51) X(ERR_DISP, 52)  \
    X(ERR_ASSERT, 53) X(ERR_RMA_RANGE, 55) X(ERR_RMA_ATTACH, 56) X(ERR_RMA_SHARED, 57)             \
    X(ERR_RMA_FLAVOR, 58) X(T_ERR_MEMORY, 59) X(T_ERR_NOT_INITIALIZED, 60)                         \
    X(T_ERR_CANNOT_INIT, 61) X(T_ERR_INVALID_INDEX, 62) X(T_ERR_INVALID_ITEM, 63)                  \
    X(T_ERR_INVALID_HANDLE, 64) X(T_ERR_OUT_OF_HANDLES, 65) X(T_ERR_OUT_OF_SESSIONS, 66)           \
    X(T_ERR_INVALID_SESSION, 67) X(T_ERR_CVAR_SET_NOT_NOW, 68) X(T_ERR_CVAR_SET_NEVER, 69)         \
    X(T_ERR_PVAR_NO_STARTSTOP, 70) X(T_ERR_PVAR_NO_WRITE, 71) X(T_ERR_PVAR_NO_ATOMIC, 72)          \
    X(T_ERR_INVALID_NAME, 73) X(T_ERR_INVALID, 74) X(ERR_SESSION, 75) X(ERR_PROC_ABORTED, 76)      \
    X(ERR_VALUE_TOO_LARGE, 77) X(T_ERR_NOT_SUPPORTED, 78)
/* clang-format on */
#define ABI_ERR_LASTCODE                 0x3fffffff
#define ABI_MPIX_ERR_PROC_FAILED         101
#define ABI_MPIX_ERR_PROC_FAILED_PENDING 102
#define ABI_MPIX_ERR_REVOKED             103
#define ABI_ERR_DYN_BASE                 0x40000000 /* classes/codes added by the program */

/* ---- other constants whose values differ from IVC's ---- */
#define ABI_PROC_NULL              (-1)
#define ABI_ANY_SOURCE             (-2)
#define ABI_KEYVAL_INVALID         0x24000000
#define ABI_TAG_UB                 0x64400001
#define ABI_HOST                   0x64400003
#define ABI_IO                     0x64400005
#define ABI_WTIME_IS_GLOBAL        0x64400007
#define ABI_UNIVERSE_SIZE          0x64400009
#define ABI_LASTUSEDCODE           0x6440000b
#define ABI_APPNUM                 0x6440000d
#define ABI_WIN_BASE               0x66000001
#define ABI_WIN_SIZE               0x66000003
#define ABI_WIN_DISP_UNIT          0x66000005
#define ABI_WIN_CREATE_FLAVOR      0x66000007
#define ABI_WIN_MODEL              0x66000009
#define ABI_MAX_PROCESSOR_NAME     128
#define ABI_TYPECLASS_REAL         1
#define ABI_TYPECLASS_INTEGER      2
#define ABI_TYPECLASS_COMPLEX      3
#define ABI_COMM_TYPE_SHARED       1
#define ABI_COMM_TYPE_HW_GUIDED    2
#define ABI_COMM_TYPE_HW_UNGUIDED  3
#define ABI_COMM_TYPE_NEIGHBORHOOD 4 /* MPIX_ */
/* Combiners: name, MPICH value. */
#define ABI_MPICH_COMBINERS(X)                                                                     \
    X(NAMED, 1)                                                                                    \
    X(DUP, 2) X(CONTIGUOUS, 3) X(VECTOR, 4) X(HVECTOR_INTEGER, 5) X(HVECTOR, 6) X(INDEXED, 7)      \
        X(HINDEXED_INTEGER, 8) X(HINDEXED, 9) X(INDEXED_BLOCK, 10) X(STRUCT_INTEGER, 11)           \
            X(STRUCT, 12) X(SUBARRAY, 13) X(DARRAY, 14) X(F90_REAL, 15) X(F90_COMPLEX, 16)         \
                X(F90_INTEGER, 17) X(RESIZED, 18) X(HINDEXED_BLOCK, 19)
/* Values equal in both ABIs (checked at build time in handles.c): MPI_ANY_TAG, MPI_ROOT,
 * MPI_UNDEFINED, thread levels, comparison results, topology kinds, lock types, RMA modes
 * and flavors, orders, distributions, MPI_STATUS_IGNORE, MPI_IN_PLACE, MPI_BOTTOM,
 * MPI_ERRCODES_IGNORE, MPI_ARGV(S)_NULL, MPI_MAX_ERROR_STRING, MPI_MAX_OBJECT_NAME,
 * MPI_MAX_INFO_KEY/VAL. */

#endif
