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

#define MPI_VERSION        3
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

typedef void MPI_Comm_errhandler_function(MPI_Comm *, int *, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);

/* Declares MPI_name and PMPI_name with one prototype. */
#define IVC_MPI_API(ret, name, params)                                                             \
    ret MPI_##name params;                                                                         \
    ret PMPI_##name params;

/* Environment */
IVC_MPI_API(int, Init, (int *argc, char ***argv))
IVC_MPI_API(int, Init_thread, (int *argc, char ***argv, int required, int *provided))
IVC_MPI_API(int, Finalize, (void))
IVC_MPI_API(int, Initialized, (int *flag))
IVC_MPI_API(int, Finalized, (int *flag))
IVC_MPI_API(int, Query_thread, (int *provided))
IVC_MPI_API(int, Is_thread_main, (int *flag))
IVC_MPI_API(int, Abort, (MPI_Comm comm, int errorcode))
IVC_MPI_API(double, Wtime, (void))
IVC_MPI_API(double, Wtick, (void))
IVC_MPI_API(int, Get_processor_name, (char *name, int *resultlen))
IVC_MPI_API(int, Get_version, (int *version, int *subversion))
IVC_MPI_API(int, Get_library_version, (char *version, int *resultlen))

/* Errors */
IVC_MPI_API(int, Error_string, (int errorcode, char *string, int *resultlen))
IVC_MPI_API(int, Error_class, (int errorcode, int *errorclass))
IVC_MPI_API(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
IVC_MPI_API(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
IVC_MPI_API(int, Comm_create_errhandler,
            (MPI_Comm_errhandler_function * function, MPI_Errhandler *errhandler))
IVC_MPI_API(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
IVC_MPI_API(int, Errhandler_free, (MPI_Errhandler * errhandler))

/* Communicators */
IVC_MPI_API(int, Comm_rank, (MPI_Comm comm, int *rank))
IVC_MPI_API(int, Comm_size, (MPI_Comm comm, int *size))
IVC_MPI_API(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
IVC_MPI_API(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))
IVC_MPI_API(int, Comm_free, (MPI_Comm * comm))
IVC_MPI_API(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result))
IVC_MPI_API(int, Comm_test_inter, (MPI_Comm comm, int *flag))
IVC_MPI_API(int, Comm_get_attr, (MPI_Comm comm, int keyval, void *attribute_val, int *flag))
IVC_MPI_API(int, Comm_set_name, (MPI_Comm comm, const char *name))
IVC_MPI_API(int, Comm_get_name, (MPI_Comm comm, char *name, int *resultlen))

/* Point-to-point */
IVC_MPI_API(int, Send,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
IVC_MPI_API(int, Ssend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
IVC_MPI_API(int, Rsend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
IVC_MPI_API(int, Recv,
            (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status))
IVC_MPI_API(int, Isend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request))
IVC_MPI_API(int, Issend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request))
IVC_MPI_API(int, Irsend,
            (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
             MPI_Request *request))
IVC_MPI_API(int, Irecv,
            (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Request *request))
IVC_MPI_API(int, Sendrecv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm comm, MPI_Status *status))
IVC_MPI_API(int, Sendrecv_replace,
            (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
             int recvtag, MPI_Comm comm, MPI_Status *status))
IVC_MPI_API(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
IVC_MPI_API(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status))
IVC_MPI_API(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count))
IVC_MPI_API(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count))
IVC_MPI_API(int, Wait, (MPI_Request * request, MPI_Status *status))
IVC_MPI_API(int, Waitall,
            (int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses))
IVC_MPI_API(int, Waitany,
            (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status))
IVC_MPI_API(int, Waitsome,
            (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
             MPI_Status *array_of_statuses))
IVC_MPI_API(int, Test, (MPI_Request * request, int *flag, MPI_Status *status))
IVC_MPI_API(int, Testall,
            (int count, MPI_Request array_of_requests[], int *flag, MPI_Status *array_of_statuses))
IVC_MPI_API(int, Testany,
            (int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status))
IVC_MPI_API(int, Testsome,
            (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
             MPI_Status *array_of_statuses))
IVC_MPI_API(int, Request_free, (MPI_Request * request))
IVC_MPI_API(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status))
IVC_MPI_API(int, Cancel, (MPI_Request * request))
IVC_MPI_API(int, Test_cancelled, (const MPI_Status *status, int *flag))

/* Datatypes */
IVC_MPI_API(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype))
IVC_MPI_API(int, Type_vector,
            (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
IVC_MPI_API(int, Type_hvector,
            (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
             MPI_Datatype *newtype))
IVC_MPI_API(int, Type_create_hvector,
            (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
             MPI_Datatype *newtype))
IVC_MPI_API(int, Type_indexed,
            (int count, const int array_of_blocklengths[], const int array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype *newtype))
IVC_MPI_API(int, Type_create_hindexed,
            (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
             MPI_Datatype oldtype, MPI_Datatype *newtype))
IVC_MPI_API(int, Type_create_indexed_block,
            (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype,
             MPI_Datatype *newtype))
IVC_MPI_API(int, Type_create_struct,
            (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
             const MPI_Datatype array_of_types[], MPI_Datatype *newtype))
IVC_MPI_API(int, Type_create_resized,
            (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype))
IVC_MPI_API(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype))
IVC_MPI_API(int, Type_commit, (MPI_Datatype * datatype))
IVC_MPI_API(int, Type_free, (MPI_Datatype * datatype))
IVC_MPI_API(int, Type_size, (MPI_Datatype datatype, int *size))
IVC_MPI_API(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size))
IVC_MPI_API(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent))
IVC_MPI_API(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent))
IVC_MPI_API(int, Type_get_true_extent,
            (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent))
IVC_MPI_API(int, Get_address, (const void *location, MPI_Aint *address))
IVC_MPI_API(int, Pack,
            (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm))
IVC_MPI_API(int, Unpack,
            (const void *inbuf, int insize, int *position, void *outbuf, int outcount,
             MPI_Datatype datatype, MPI_Comm comm))
IVC_MPI_API(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size))

/* ---- One-sided communication and API surface: groups, communicators, topologies, info,
 * attributes, matched probes, memory (issue 4 items 3-5) ---- */
typedef struct ivc_mpi_win_s *MPI_Win;
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

typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);
/* The predefined callbacks are functions of libmpi. */
int MPI_COMM_NULL_COPY_FN(MPI_Comm, int, void *, void *, void *, int *);
int MPI_COMM_DUP_FN(MPI_Comm, int, void *, void *, void *, int *);
int MPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void *, void *);

/* Groups */
IVC_MPI_API(int, Comm_group, (MPI_Comm comm, MPI_Group *group))
IVC_MPI_API(int, Group_size, (MPI_Group group, int *size))
IVC_MPI_API(int, Group_rank, (MPI_Group group, int *rank))
IVC_MPI_API(int, Group_free, (MPI_Group * group))
IVC_MPI_API(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
IVC_MPI_API(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
IVC_MPI_API(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
IVC_MPI_API(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
IVC_MPI_API(int, Group_translate_ranks,
            (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]))
IVC_MPI_API(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result))
IVC_MPI_API(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
IVC_MPI_API(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
IVC_MPI_API(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))

/* More communicators */
IVC_MPI_API(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm))
IVC_MPI_API(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm))
IVC_MPI_API(int, Comm_split_type,
            (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm))
IVC_MPI_API(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm))

/* Attributes */
IVC_MPI_API(int, Comm_create_keyval,
            (MPI_Comm_copy_attr_function * comm_copy_attr_fn,
             MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
             void *extra_state))
IVC_MPI_API(int, Comm_free_keyval, (int *comm_keyval))
IVC_MPI_API(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val))
IVC_MPI_API(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval))

/* Topologies */
IVC_MPI_API(int, Dims_create, (int nnodes, int ndims, int dims[]))
IVC_MPI_API(int, Cart_create,
            (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
             MPI_Comm *comm_cart))
IVC_MPI_API(int, Cartdim_get, (MPI_Comm comm, int *ndims))
IVC_MPI_API(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]))
IVC_MPI_API(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
IVC_MPI_API(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
IVC_MPI_API(int, Cart_shift,
            (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest))
IVC_MPI_API(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm))
IVC_MPI_API(int, Topo_test, (MPI_Comm comm, int *status))
IVC_MPI_API(int, Graph_create,
            (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
             MPI_Comm *comm_graph))
IVC_MPI_API(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges))
IVC_MPI_API(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]))
IVC_MPI_API(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors))
IVC_MPI_API(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))
IVC_MPI_API(int, Dist_graph_create_adjacent,
            (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
             int outdegree, const int destinations[], const int destweights[], MPI_Info info,
             int reorder, MPI_Comm *comm_dist_graph))
IVC_MPI_API(int, Dist_graph_neighbors_count,
            (MPI_Comm comm, int *indegree, int *outdegree, int *weighted))
IVC_MPI_API(int, Dist_graph_neighbors,
            (MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
             int destinations[], int destweights[]))

/* Datatype names */
IVC_MPI_API(int, Type_set_name, (MPI_Datatype datatype, const char *type_name))
IVC_MPI_API(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen))

/* Info */
IVC_MPI_API(int, Info_create, (MPI_Info * info))
IVC_MPI_API(int, Info_set, (MPI_Info info, const char *key, const char *value))
IVC_MPI_API(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag))
IVC_MPI_API(int, Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag))
IVC_MPI_API(int, Info_get_nkeys, (MPI_Info info, int *nkeys))
IVC_MPI_API(int, Info_get_nthkey, (MPI_Info info, int n, char *key))
IVC_MPI_API(int, Info_delete, (MPI_Info info, const char *key))
IVC_MPI_API(int, Info_dup, (MPI_Info info, MPI_Info *newinfo))
IVC_MPI_API(int, Info_free, (MPI_Info * info))

/* Matched probes */
IVC_MPI_API(int, Mprobe,
            (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status))
IVC_MPI_API(int, Improbe,
            (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
             MPI_Status *status))
IVC_MPI_API(int, Mrecv,
            (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status))
IVC_MPI_API(int, Imrecv,
            (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
             MPI_Request *request))

/* Memory */
IVC_MPI_API(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
IVC_MPI_API(int, Free_mem, (void *base))

/* One-sided communication */
IVC_MPI_API(int, Win_create,
            (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win))
IVC_MPI_API(int, Win_allocate,
            (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
             MPI_Win *win))
IVC_MPI_API(int, Win_allocate_shared,
            (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
             MPI_Win *win))
IVC_MPI_API(int, Win_shared_query,
            (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr))
IVC_MPI_API(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win))
IVC_MPI_API(int, Win_attach, (MPI_Win win, void *base, MPI_Aint size))
IVC_MPI_API(int, Win_detach, (MPI_Win win, const void *base))
IVC_MPI_API(int, Win_free, (MPI_Win * win))
IVC_MPI_API(int, Win_get_group, (MPI_Win win, MPI_Group *group))
IVC_MPI_API(int, Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag))
IVC_MPI_API(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))
IVC_MPI_API(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler))
IVC_MPI_API(int, Win_set_info, (MPI_Win win, MPI_Info info))
IVC_MPI_API(int, Win_get_info, (MPI_Win win, MPI_Info *info_used))
IVC_MPI_API(int, Win_set_name, (MPI_Win win, const char *win_name))
IVC_MPI_API(int, Win_get_name, (MPI_Win win, char *win_name, int *resultlen))
IVC_MPI_API(int, Put,
            (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win))
IVC_MPI_API(int, Get,
            (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
IVC_MPI_API(int, Accumulate,
            (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Op op, MPI_Win win))
IVC_MPI_API(int, Get_accumulate,
            (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
             MPI_Win win))
IVC_MPI_API(int, Fetch_and_op,
            (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
             MPI_Aint target_disp, MPI_Op op, MPI_Win win))
IVC_MPI_API(int, Compare_and_swap,
            (const void *origin_addr, const void *compare_addr, void *result_addr,
             MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win))
IVC_MPI_API(int, Rput,
            (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win, MPI_Request *request))
IVC_MPI_API(int, Rget,
            (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request))
IVC_MPI_API(int, Raccumulate,
            (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Op op, MPI_Win win, MPI_Request *request))
IVC_MPI_API(int, Rget_accumulate,
            (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
             MPI_Win win, MPI_Request *request))
IVC_MPI_API(int, Win_fence, (int assert, MPI_Win win))
IVC_MPI_API(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win))
IVC_MPI_API(int, Win_unlock, (int rank, MPI_Win win))
IVC_MPI_API(int, Win_lock_all, (int assert, MPI_Win win))
IVC_MPI_API(int, Win_unlock_all, (MPI_Win win))
IVC_MPI_API(int, Win_flush, (int rank, MPI_Win win))
IVC_MPI_API(int, Win_flush_all, (MPI_Win win))
IVC_MPI_API(int, Win_flush_local, (int rank, MPI_Win win))
IVC_MPI_API(int, Win_flush_local_all, (MPI_Win win))
IVC_MPI_API(int, Win_sync, (MPI_Win win))
IVC_MPI_API(int, Win_post, (MPI_Group group, int assert, MPI_Win win))
IVC_MPI_API(int, Win_start, (MPI_Group group, int assert, MPI_Win win))
IVC_MPI_API(int, Win_complete, (MPI_Win win))
IVC_MPI_API(int, Win_wait, (MPI_Win win))
IVC_MPI_API(int, Win_test, (MPI_Win win, int *flag))

/* Collectives (shared-memory algorithms among ranks that share the region, point-to-point
 * otherwise) and reduction operations */
IVC_MPI_API(int, Barrier, (MPI_Comm comm))
IVC_MPI_API(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))
IVC_MPI_API(int, Reduce,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Comm comm))
IVC_MPI_API(int, Allreduce,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm))
IVC_MPI_API(int, Gather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
IVC_MPI_API(int, Allgather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
IVC_MPI_API(int, Gatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm))
IVC_MPI_API(int, Scatter,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
IVC_MPI_API(int, Scatterv,
            (const void *sendbuf, const int sendcounts[], const int displs[],
             MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
             MPI_Comm comm))
IVC_MPI_API(int, Allgatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
IVC_MPI_API(int, Alltoall,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
IVC_MPI_API(int, Alltoallv,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm))
IVC_MPI_API(int, Alltoallw,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
IVC_MPI_API(int, Reduce_scatter,
            (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm))
IVC_MPI_API(int, Reduce_scatter_block,
            (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm))
IVC_MPI_API(int, Scan,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm))
IVC_MPI_API(int, Exscan,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm))
IVC_MPI_API(int, Ibarrier, (MPI_Comm comm, MPI_Request *request))
IVC_MPI_API(int, Ibcast,
            (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
             MPI_Request *request))
IVC_MPI_API(int, Iallreduce,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request *request))
IVC_MPI_API(int, Op_create, (MPI_User_function * user_fn, int commute, MPI_Op *op))
IVC_MPI_API(int, Op_free, (MPI_Op * op))
IVC_MPI_API(int, Op_commutative, (MPI_Op op, int *commute))
IVC_MPI_API(int, Reduce_local,
            (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op))

#undef IVC_MPI_API

#ifdef __cplusplus
}
#endif

#endif
