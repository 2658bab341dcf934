/* Build-time generator of the Fortran constants (hand-written): includes mpi.h, links libmpi
 * and prints the PARAMETER lines, so that Fortran values can never drift from C's.
 *
 *   fortran_consts mpif EXTERNALS  mpif.h: constants, handles, sentinels, then the EXTERNAL
 *                                  lines of file EXTERNALS (generated/mpif_externals.h)
 *   fortran_consts mpi             the same without EXTERNALs (module mpi has interfaces)
 *   fortran_consts f08int          module mpi_f08: the integer constants
 *   fortran_consts f08handles      module mpi_f08: handles as TYPE(MPI_Comm) ... constants
 *
 * Handles are the Fortran indices that MPI_<Kind>_c2f gives (src/binding/handles.c).
 * Every line fits fixed form (columns 7-72), so mpif.h serves fixed and free form.
 * A new C integer constant reaches Fortran by one line in INT_CONSTANTS below.
 *
 * Built twice: for IVC's own bindings (libivcmpifort), and with IVC_FORT_ABI for the
 * Fortran library of the MPI-5 standard ABI (libmpifort_abi, abi/CMakeLists.txt), where
 * <mpi.h> is mpi_abi.h and a handle's Fortran value is the standard's integer for it
 * (MPI_<Kind>_toint: the handle's own value, listed in src/abi/std/std_abi.h). */
#include <mpi.h>
#ifdef IVC_FORT_ABI
#include "std_abi.h"
#endif

#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(MPI_Fint) == 4, "INTEGER is MPI_Fint");
_Static_assert(sizeof(MPI_Aint) == 8 && sizeof(MPI_Offset) == 8 && sizeof(MPI_Count) == 8,
               "MPI_ADDRESS_KIND, MPI_OFFSET_KIND and MPI_COUNT_KIND are 8");

struct iconst {
    const char *name;
    long long value;
};

#define I(name) {#name, (long long)(name)},
/* clang-format off */
static const struct iconst INT_CONSTANTS[] = {
    I(MPI_VERSION) I(MPI_SUBVERSION)
    I(MPI_SUCCESS) I(MPI_ERR_BUFFER) I(MPI_ERR_COUNT) I(MPI_ERR_TYPE) I(MPI_ERR_TAG)
    I(MPI_ERR_COMM) I(MPI_ERR_RANK) I(MPI_ERR_REQUEST) I(MPI_ERR_ROOT) I(MPI_ERR_GROUP)
    I(MPI_ERR_OP) I(MPI_ERR_TOPOLOGY) I(MPI_ERR_DIMS) I(MPI_ERR_ARG) I(MPI_ERR_UNKNOWN)
    I(MPI_ERR_TRUNCATE) I(MPI_ERR_OTHER) I(MPI_ERR_INTERN) I(MPI_ERR_IN_STATUS)
    I(MPI_ERR_PENDING) I(MPI_ERR_KEYVAL) I(MPI_ERR_NO_MEM) I(MPI_ERR_BASE)
    I(MPI_ERR_INFO_KEY) I(MPI_ERR_INFO_VALUE) I(MPI_ERR_INFO_NOKEY) I(MPI_ERR_SPAWN)
    I(MPI_ERR_PORT) I(MPI_ERR_SERVICE) I(MPI_ERR_NAME) I(MPI_ERR_WIN) I(MPI_ERR_SIZE)
    I(MPI_ERR_DISP) I(MPI_ERR_INFO) I(MPI_ERR_LOCKTYPE) I(MPI_ERR_ASSERT)
    I(MPI_ERR_RMA_CONFLICT) I(MPI_ERR_RMA_SYNC) I(MPI_ERR_RMA_RANGE) I(MPI_ERR_RMA_ATTACH)
    I(MPI_ERR_RMA_SHARED) I(MPI_ERR_RMA_FLAVOR) I(MPI_ERR_FILE) I(MPI_ERR_NOT_SAME)
    I(MPI_ERR_AMODE) I(MPI_ERR_UNSUPPORTED_DATAREP) I(MPI_ERR_UNSUPPORTED_OPERATION)
    I(MPI_ERR_NO_SUCH_FILE) I(MPI_ERR_FILE_EXISTS) I(MPI_ERR_BAD_FILE) I(MPI_ERR_ACCESS)
    I(MPI_ERR_NO_SPACE) I(MPI_ERR_QUOTA) I(MPI_ERR_READ_ONLY) I(MPI_ERR_FILE_IN_USE)
    I(MPI_ERR_DUP_DATAREP) I(MPI_ERR_CONVERSION) I(MPI_ERR_IO)
    I(MPI_ERR_SESSION) I(MPI_ERR_VALUE_TOO_LARGE) I(MPI_ERR_ERRHANDLER) I(MPI_ERR_PROC_ABORTED)
    I(MPI_ERR_LASTCODE)
    I(MPI_ANY_SOURCE) I(MPI_PROC_NULL) I(MPI_ROOT) I(MPI_ANY_TAG) I(MPI_UNDEFINED)
    I(MPI_KEYVAL_INVALID)
    I(MPI_MAX_PROCESSOR_NAME) I(MPI_MAX_ERROR_STRING) I(MPI_MAX_OBJECT_NAME)
    I(MPI_MAX_LIBRARY_VERSION_STRING) I(MPI_MAX_INFO_KEY) I(MPI_MAX_INFO_VAL)
    I(MPI_MAX_PSET_NAME_LEN) I(MPI_MAX_STRINGTAG_LEN) I(MPI_MAX_PORT_NAME)
    I(MPI_THREAD_SINGLE) I(MPI_THREAD_FUNNELED) I(MPI_THREAD_SERIALIZED) I(MPI_THREAD_MULTIPLE)
    I(MPI_IDENT) I(MPI_CONGRUENT) I(MPI_SIMILAR) I(MPI_UNEQUAL)
    I(MPI_TAG_UB) I(MPI_HOST) I(MPI_IO) I(MPI_WTIME_IS_GLOBAL) I(MPI_APPNUM)
    I(MPI_UNIVERSE_SIZE) I(MPI_LASTUSEDCODE)
    I(MPI_GRAPH) I(MPI_CART) I(MPI_DIST_GRAPH) I(MPI_COMM_TYPE_SHARED)
    I(MPI_COMM_TYPE_HW_UNGUIDED) I(MPI_COMM_TYPE_HW_GUIDED) I(MPI_COMM_TYPE_RESOURCE_GUIDED)
    I(MPI_LOCK_EXCLUSIVE) I(MPI_LOCK_SHARED)
    I(MPI_MODE_NOCHECK) I(MPI_MODE_NOSTORE) I(MPI_MODE_NOPUT) I(MPI_MODE_NOPRECEDE)
    I(MPI_MODE_NOSUCCEED)
    I(MPI_WIN_FLAVOR_CREATE) I(MPI_WIN_FLAVOR_ALLOCATE) I(MPI_WIN_FLAVOR_DYNAMIC)
    I(MPI_WIN_FLAVOR_SHARED) I(MPI_WIN_SEPARATE) I(MPI_WIN_UNIFIED)
    I(MPI_WIN_BASE) I(MPI_WIN_SIZE) I(MPI_WIN_DISP_UNIT) I(MPI_WIN_CREATE_FLAVOR)
    I(MPI_WIN_MODEL)
    I(MPI_BSEND_OVERHEAD)
    I(MPI_COMBINER_NAMED) I(MPI_COMBINER_DUP) I(MPI_COMBINER_CONTIGUOUS)
    I(MPI_COMBINER_VECTOR) I(MPI_COMBINER_HVECTOR) I(MPI_COMBINER_INDEXED)
    I(MPI_COMBINER_HINDEXED) I(MPI_COMBINER_INDEXED_BLOCK) I(MPI_COMBINER_HINDEXED_BLOCK)
    I(MPI_COMBINER_STRUCT) I(MPI_COMBINER_SUBARRAY) I(MPI_COMBINER_DARRAY)
    I(MPI_COMBINER_F90_REAL) I(MPI_COMBINER_F90_COMPLEX) I(MPI_COMBINER_F90_INTEGER)
    I(MPI_COMBINER_RESIZED) I(MPI_COMBINER_VALUE_INDEX)
#ifdef IVC_FORT_ABI
    I(MPI_ABI_VERSION) I(MPI_ABI_SUBVERSION) I(MPI_ERR_ABI)
#else /* IVC's own: what the standard ABI leaves out (deprecated, or IVC's fault tolerance) */
    I(MPI_ERR_PROC_FAILED)
    I(MPI_COMBINER_HVECTOR_INTEGER) I(MPI_COMBINER_HINDEXED_INTEGER) I(MPI_COMBINER_STRUCT_INTEGER)
#endif
    I(MPI_ORDER_C) I(MPI_ORDER_FORTRAN)
    I(MPI_DISTRIBUTE_BLOCK) I(MPI_DISTRIBUTE_CYCLIC) I(MPI_DISTRIBUTE_NONE)
    I(MPI_DISTRIBUTE_DFLT_DARG)
    I(MPI_TYPECLASS_INTEGER) I(MPI_TYPECLASS_REAL) I(MPI_TYPECLASS_COMPLEX)
    I(MPI_MODE_CREATE) I(MPI_MODE_RDONLY) I(MPI_MODE_WRONLY) I(MPI_MODE_RDWR)
    I(MPI_MODE_DELETE_ON_CLOSE) I(MPI_MODE_UNIQUE_OPEN) I(MPI_MODE_EXCL) I(MPI_MODE_APPEND)
    I(MPI_MODE_SEQUENTIAL) I(MPI_SEEK_SET) I(MPI_SEEK_CUR) I(MPI_SEEK_END)
    I(MPI_MAX_DATAREP_STRING)
};
/* clang-format on */

struct hconst {
    const char *name;
    const char *f08type;
    MPI_Fint value;
};

static struct hconst handles[256];
static int nhandles;

static void h(const char *name, const char *f08type, MPI_Fint value)
{
    handles[nhandles++] = (struct hconst){name, f08type, value};
}

#ifdef IVC_FORT_ABI
/* The standard ABI: the predefined handles' integers are their C values (0x000-0x3ff). */
#define HV(name) ((MPI_Fint)(intptr_t)(name))
static void collect_handles(void)
{
    static const char *const kind_type[] = {"MPI_Comm", "MPI_Group", "MPI_Message", "MPI_Info",
                                            "MPI_Errhandler"};
    enum { ABI_K_COMM, ABI_K_GROUP, ABI_K_MESSAGE, ABI_K_INFO, ABI_K_ERRHANDLER };
    h("MPI_COMM_NULL", "MPI_Comm", HV(MPI_COMM_NULL));
    h("MPI_GROUP_NULL", "MPI_Group", HV(MPI_GROUP_NULL));
    h("MPI_WIN_NULL", "MPI_Win", HV(MPI_WIN_NULL));
    h("MPI_FILE_NULL", "MPI_File", HV(MPI_FILE_NULL));
    h("MPI_SESSION_NULL", "MPI_Session", HV(MPI_SESSION_NULL));
    h("MPI_MESSAGE_NULL", "MPI_Message", HV(MPI_MESSAGE_NULL));
    h("MPI_INFO_NULL", "MPI_Info", HV(MPI_INFO_NULL));
    h("MPI_ERRHANDLER_NULL", "MPI_Errhandler", HV(MPI_ERRHANDLER_NULL));
    h("MPI_REQUEST_NULL", "MPI_Request", HV(MPI_REQUEST_NULL));
    h("MPI_OP_NULL", "MPI_Op", HV(MPI_OP_NULL));
    h("MPI_DATATYPE_NULL", "MPI_Datatype", HV(MPI_DATATYPE_NULL));
#define H(kind, NAME, val) h("MPI_" #NAME, kind_type[kind], HV(MPI_##NAME));
    ABI_STD_HANDLES(H)
#undef H
#define OP(NAME, val) h("MPI_" #NAME, "MPI_Op", HV(MPI_##NAME));
    ABI_STD_OPS(OP)
#undef OP
#define DT(NAME, val) h("MPI_" #NAME, "MPI_Datatype", HV(MPI_##NAME));
    ABI_STD_DATATYPES(DT)
#undef DT
    /* the standard's datatypes IVC has no object for (MPI_ERR_TYPE when used), and aliases */
    h("MPI_LOGICAL1", "MPI_Datatype", HV(MPI_LOGICAL1));
    h("MPI_LOGICAL2", "MPI_Datatype", HV(MPI_LOGICAL2));
    h("MPI_LOGICAL4", "MPI_Datatype", HV(MPI_LOGICAL4));
    h("MPI_LOGICAL8", "MPI_Datatype", HV(MPI_LOGICAL8));
    h("MPI_LOGICAL16", "MPI_Datatype", HV(MPI_LOGICAL16));
    h("MPI_REAL2", "MPI_Datatype", HV(MPI_REAL2));
    h("MPI_COMPLEX4", "MPI_Datatype", HV(MPI_COMPLEX4));
    h("MPI_LONG_LONG_INT", "MPI_Datatype", HV(MPI_LONG_LONG_INT));
    h("MPI_C_COMPLEX", "MPI_Datatype", HV(MPI_C_COMPLEX));
}
#else
static void collect_handles(void)
{
    h("MPI_COMM_NULL", "MPI_Comm", MPI_Comm_c2f(MPI_COMM_NULL));
    h("MPI_COMM_WORLD", "MPI_Comm", MPI_Comm_c2f(MPI_COMM_WORLD));
    h("MPI_COMM_SELF", "MPI_Comm", MPI_Comm_c2f(MPI_COMM_SELF));
    h("MPI_DATATYPE_NULL", "MPI_Datatype", MPI_Type_c2f(MPI_DATATYPE_NULL));
#define DT(NAME, low) h("MPI_" #NAME, "MPI_Datatype", MPI_Type_c2f(&ivc_obj_dt_##low));
    IVC_MPI_DATATYPES(DT)
#ifdef IVC_MPI_CXX_DATATYPES
    IVC_MPI_CXX_DATATYPES(DT)
#endif
    IVC_MPI_F_DATATYPES(DT)
    IVC_MPI_REMOVED_DATATYPES(DT)
    IVC_MPI_F_OPT_DATATYPES(DT)
#undef DT
    h("MPI_LONG_LONG", "MPI_Datatype", MPI_Type_c2f(MPI_LONG_LONG));
    h("MPI_C_COMPLEX", "MPI_Datatype", MPI_Type_c2f(MPI_C_COMPLEX));
    h("MPI_GROUP_NULL", "MPI_Group", MPI_Group_c2f(MPI_GROUP_NULL));
    h("MPI_GROUP_EMPTY", "MPI_Group", MPI_Group_c2f(MPI_GROUP_EMPTY));
    h("MPI_REQUEST_NULL", "MPI_Request", MPI_Request_c2f(MPI_REQUEST_NULL));
    h("MPI_OP_NULL", "MPI_Op", MPI_Op_c2f(MPI_OP_NULL));
#define OP(NAME, low) h("MPI_" #NAME, "MPI_Op", MPI_Op_c2f(&ivc_obj_op_##low));
    IVC_MPI_OPS(OP)
#undef OP
    h("MPI_ERRHANDLER_NULL", "MPI_Errhandler", MPI_Errhandler_c2f(MPI_ERRHANDLER_NULL));
    h("MPI_ERRORS_ARE_FATAL", "MPI_Errhandler", MPI_Errhandler_c2f(MPI_ERRORS_ARE_FATAL));
    h("MPI_ERRORS_RETURN", "MPI_Errhandler", MPI_Errhandler_c2f(MPI_ERRORS_RETURN));
    h("MPI_ERRORS_ABORT", "MPI_Errhandler", MPI_Errhandler_c2f(MPI_ERRORS_ABORT));
    h("MPI_INFO_NULL", "MPI_Info", MPI_Info_c2f(MPI_INFO_NULL));
#ifdef MPI_INFO_ENV
    h("MPI_INFO_ENV", "MPI_Info", MPI_Info_c2f(MPI_INFO_ENV));
#endif
    h("MPI_MESSAGE_NULL", "MPI_Message", MPI_Message_c2f(MPI_MESSAGE_NULL));
    h("MPI_MESSAGE_NO_PROC", "MPI_Message", MPI_Message_c2f(MPI_MESSAGE_NO_PROC));
    h("MPI_WIN_NULL", "MPI_Win", MPI_Win_c2f(MPI_WIN_NULL));
    h("MPI_SESSION_NULL", "MPI_Session", MPI_Session_c2f(MPI_SESSION_NULL));
    h("MPI_FILE_NULL", "MPI_File", MPI_File_c2f(MPI_FILE_NULL));
}
#endif

static void param(const char *type, const char *name, long long value)
{
    printf("      %s %s\n", type, name);
    printf("      PARAMETER (%s=%lld)\n", name, value);
}

static void ints(int with_status_indices, int f08)
{
    for (size_t i = 0; i < sizeof(INT_CONSTANTS) / sizeof(INT_CONSTANTS[0]); i++)
        param("INTEGER", INT_CONSTANTS[i].name, INT_CONSTANTS[i].value);
    param("INTEGER", "MPI_STATUS_SIZE", MPI_F_STATUS_SIZE);
    if (with_status_indices) {
        param("INTEGER", "MPI_SOURCE", MPI_F_SOURCE + 1);
        param("INTEGER", "MPI_TAG", MPI_F_TAG + 1);
        param("INTEGER", "MPI_ERROR", MPI_F_ERROR + 1);
    }
    param("INTEGER", "MPI_INTEGER_KIND", sizeof(MPI_Fint));
    param("INTEGER", "MPI_ADDRESS_KIND", sizeof(MPI_Aint));
    param("INTEGER", "MPI_OFFSET_KIND", sizeof(MPI_Offset));
    param("INTEGER", "MPI_COUNT_KIND", sizeof(MPI_Count));
    param("INTEGER(KIND=MPI_OFFSET_KIND)", "MPI_DISPLACEMENT_CURRENT", MPI_DISPLACEMENT_CURRENT);
    /* MPI-4.1 section 19.1.1: per Fortran support method. mpi_f08 declares its choice buffers
     * TYPE(*), DIMENSION(..) with ASYNCHRONOUS on those of nonblocking routines, and gfortran
     * treats ASYNCHRONOUS variables as volatile (README.md, "Choice buffers"); mpif.h and
     * module mpi pass buffers by address (NO_ARG_CHECK): .FALSE. there. */
    const char *ts = f08 ? ".TRUE." : ".FALSE.";
    printf("      LOGICAL MPI_SUBARRAYS_SUPPORTED\n");
    printf("      PARAMETER (MPI_SUBARRAYS_SUPPORTED=%s)\n", ts);
    printf("      LOGICAL MPI_ASYNC_PROTECTS_NONBLOCKING\n");
    printf("      PARAMETER (MPI_ASYNC_PROTECTS_NONBLOCKING=%s)\n", ts);
}

static void int_handles(void)
{
    for (int i = 0; i < nhandles; i++)
        param("INTEGER", handles[i].name, handles[i].value);
}

/* The sentinels: common blocks whose storage libmpi defines (src/binding/handles.c). */
static void sentinels(void)
{
    static const char *const lines[] = {
        "INTEGER MPI_BOTTOM",
        "COMMON /IVC_OBJ_F_BOTTOM/ MPI_BOTTOM",
        "INTEGER MPI_IN_PLACE",
        "COMMON /IVC_OBJ_F_IN_PLACE/ MPI_IN_PLACE",
        "INTEGER MPI_BUFFER_AUTOMATIC",
        "COMMON /IVC_OBJ_F_BUFFER_AUTOMATIC/ MPI_BUFFER_AUTOMATIC",
        "INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)",
        "COMMON /IVC_OBJ_F_STATUS_IGNORE/ MPI_STATUS_IGNORE",
        "INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)",
        "COMMON /IVC_OBJ_F_STATUSES_IGNORE/ MPI_STATUSES_IGNORE",
        "INTEGER MPI_ERRCODES_IGNORE(1)",
        "COMMON /IVC_OBJ_F_ERRCODES_IGNORE/ MPI_ERRCODES_IGNORE",
        "INTEGER MPI_UNWEIGHTED(1)",
        "COMMON /IVC_OBJ_F_UNWEIGHTED/ MPI_UNWEIGHTED",
        "INTEGER MPI_WEIGHTS_EMPTY(1)",
        "COMMON /IVC_OBJ_F_WEIGHTS_EMPTY/ MPI_WEIGHTS_EMPTY",
        "CHARACTER MPI_ARGV_NULL(1)",
        "COMMON /IVC_OBJ_F_ARGV_NULL/ MPI_ARGV_NULL",
        "CHARACTER MPI_ARGVS_NULL(1,1)",
        "COMMON /IVC_OBJ_F_ARGVS_NULL/ MPI_ARGVS_NULL",
    };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        printf("      %s\n", lines[i]);
}

static int copy_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        perror(path);
        return 1;
    }
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        fwrite(buf, 1, n, stdout);
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    collect_handles();
    printf("!     Generated at build time by src/binding/fortran/fortran_consts.c\n");
#ifdef IVC_FORT_ABI
    printf("!     from mpi_abi.h (the MPI-5 standard ABI %d.%d). Do not edit.\n", MPI_ABI_VERSION,
           MPI_ABI_SUBVERSION);
#else
    printf("!     from mpi.h (IVC %s). Do not edit.\n", IVC_VERSION_STRING + 4);
#endif
    if (strcmp(mode, "mpif") == 0 || strcmp(mode, "mpi") == 0) {
        ints(1, 0);
        int_handles();
        sentinels();
        if (strcmp(mode, "mpif") == 0)
            return argc > 2 ? copy_file(argv[2]) : 1;
        return 0;
    }
    if (strcmp(mode, "f08int") == 0) {
        ints(0, 1);
        return 0;
    }
    if (strcmp(mode, "f08handles") == 0) {
        for (int i = 0; i < nhandles; i++)
            printf("TYPE(%s), PARAMETER :: %s = %s(%d)\n", handles[i].f08type, handles[i].name,
                   handles[i].f08type, handles[i].value);
        return 0;
    }
    fprintf(stderr, "usage: %s mpif EXTERNALS | mpi | f08int | f08handles\n", argv[0]);
    return 2;
}
