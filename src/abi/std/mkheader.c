/* mkheader: writes mpi_abi.h, the header a program compiles against for the MPI-5 standard
 * ABI (`mpicc -mpi-abi`), from the same lists of facts the conversion layer maps
 * (std_abi.h), so that the two cannot disagree. Run at build time (src/abi/CMakeLists.txt);
 * the prototypes come from generated/mpi_abi_proto.h (gen_std.py, from the API
 * description). Usage: mkheader > mpi_abi.h */
#include <stdio.h>

#include "std_abi.h"

static const char *const kind_type[] = {"MPI_Comm", "MPI_Datatype", "MPI_Group",
                                        "MPI_Op",   "MPI_Errhandler", "MPI_Info",
                                        "MPI_Win",  "MPI_Request", "MPI_Message",
                                        "MPI_Session"};
enum { ABI_K_COMM, ABI_K_DATATYPE, ABI_K_GROUP, ABI_K_OP, ABI_K_ERRHANDLER, ABI_K_INFO,
       ABI_K_WIN, ABI_K_REQUEST, ABI_K_MESSAGE, ABI_K_SESSION };

static void handle(const char *type, const char *name, int v)
{
    printf("#define MPI_%-27s ((%s)0x%03x)\n", name, type, v);
}

static void constant(const char *ivc_name, int v)
{
    printf("#define %-30s %d\n", ivc_name, v);
}

int main(void)
{
    puts("/* mpi_abi.h: the MPI-5.0 standard ABI (libmpi_abi.so.0) as IVC serves it.\n"
         " * Generated at build time by src/abi/std/mkheader.c from the facts the conversion layer\n"
         " * maps (src/abi/std/std_abi.h: the values of the standard's ABI chapter); do not edit.\n"
         " * `mpicc -mpi-abi` makes #include <mpi.h> find this header and links libmpi_abi. */\n"
         "#ifndef MPI_ABI_H\n#define MPI_ABI_H\n\n#include <stdint.h>\n\n"
         "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
         "#define MPI_VERSION        5\n#define MPI_SUBVERSION     0");
    printf("#define MPI_ABI_VERSION    %d\n#define MPI_ABI_SUBVERSION %d\n\n", ABI_STD_VERSION,
           ABI_STD_SUBVERSION);
    puts("typedef intptr_t MPI_Aint;\ntypedef int64_t MPI_Offset;\ntypedef int64_t MPI_Count;\n"
         "typedef int MPI_Fint;\n\n"
         "typedef struct MPI_Status {\n    int MPI_SOURCE;\n    int MPI_TAG;\n    int MPI_ERROR;\n"
         "    int MPI_internal[5];\n} MPI_Status;\n"
         "typedef MPI_Status MPI_F08_status;\n"
         "enum { MPI_F_STATUS_SIZE = 8, MPI_F_SOURCE = 0, MPI_F_TAG = 1, MPI_F_ERROR = 2 };\n");

    /* handles */
    static const char *const structs[] = {"Comm", "Datatype", "Group",   "Op",      "Errhandler",
                                          "Info", "Win",      "Request", "Message", "Session",
                                          "File"};
    for (unsigned i = 0; i < sizeof(structs) / sizeof(structs[0]); i++)
        printf("typedef struct MPI_ABI_%s *MPI_%s;\n", structs[i], structs[i]);
    puts("");
    handle("MPI_Op", "OP_NULL", ABI_OP_NULL);
    handle("MPI_Comm", "COMM_NULL", ABI_COMM_NULL);
    handle("MPI_Group", "GROUP_NULL", ABI_GROUP_NULL);
    handle("MPI_Win", "WIN_NULL", ABI_WIN_NULL);
    handle("MPI_File", "FILE_NULL", ABI_FILE_NULL);
    handle("MPI_Session", "SESSION_NULL", ABI_SESSION_NULL);
    handle("MPI_Message", "MESSAGE_NULL", ABI_MESSAGE_NULL);
    handle("MPI_Info", "INFO_NULL", ABI_INFO_NULL);
    handle("MPI_Errhandler", "ERRHANDLER_NULL", ABI_ERRHANDLER_NULL);
    handle("MPI_Request", "REQUEST_NULL", ABI_REQUEST_NULL);
    handle("MPI_Datatype", "DATATYPE_NULL", ABI_DATATYPE_NULL);
#define H(kind, NAME, val) handle(kind_type[kind], #NAME, val);
    ABI_STD_HANDLES(H)
#undef H
#define OP(NAME, val) handle("MPI_Op", #NAME, val);
    ABI_STD_OPS(OP)
#undef OP
#define DT(NAME, val) handle("MPI_Datatype", #NAME, val);
    ABI_STD_DATATYPES(DT)
#undef DT
    /* The standard's datatypes IVC has no object for: the program may name them, the
     * library answers MPI_ERR_TYPE. */
    handle("MPI_Datatype", "LOGICAL1", 0x2c0);
    handle("MPI_Datatype", "LOGICAL2", 0x2c8);
    handle("MPI_Datatype", "REAL2", 0x2ca);
    handle("MPI_Datatype", "LOGICAL4", 0x2d0);
    handle("MPI_Datatype", "COMPLEX4", 0x2d3);
    handle("MPI_Datatype", "LOGICAL8", 0x2d8);
    handle("MPI_Datatype", "LOGICAL16", 0x2e0);
    puts("#define MPI_LONG_LONG_INT MPI_LONG_LONG\n#define MPI_C_COMPLEX     MPI_C_FLOAT_COMPLEX\n");

    /* error classes */
    puts("enum {");
#define ERR(NAME, val) printf("    MPI_%s = %d,\n", #NAME, val);
    ABI_STD_ERRORS(ERR)
#undef ERR
    printf("    MPI_ERR_LASTCODE = 0x%x\n};\n\n", ABI_STD_ERR_LASTCODE);

    /* integer constants */
#define C(ivc, v) constant(#ivc, v);
    ABI_STD_THREAD_LEVELS(C)
    ABI_STD_COMPARISONS(C)
    ABI_STD_TOPOLOGIES(C)
    ABI_STD_SPLIT_TYPES(C)
    ABI_STD_LOCK_TYPES(C)
    ABI_STD_FLAVORS(C)
    ABI_STD_MODELS(C)
    ABI_STD_ORDERS(C)
    ABI_STD_DISTRIBS(C)
    ABI_STD_COMBINERS(C)
    ABI_STD_TYPECLASSES(C)
    ABI_STD_KEYVALS(C)
    ABI_STD_T_VERBOSITY(C)
    ABI_STD_T_BIND(C)
    ABI_STD_T_SCOPE(C)
    ABI_STD_T_PVAR_CLASS(C)
    constant("MPI_DISTRIBUTE_DFLT_DARG", ABI_STD_DFLT_DARG);
    constant("MPI_KEYVAL_NULL", 0);
    constant("MPI_ANY_SOURCE", ABI_ANY_SOURCE);
    constant("MPI_ANY_TAG", ABI_ANY_TAG);
    constant("MPI_PROC_NULL", ABI_PROC_NULL);
    constant("MPI_ROOT", ABI_ROOT);
    constant("MPI_UNDEFINED", -32766);
    constant("MPI_MODE_NOCHECK", ABI_MODE_NOCHECK);
    constant("MPI_MODE_NOPRECEDE", ABI_MODE_NOPRECEDE);
    constant("MPI_MODE_NOPUT", ABI_MODE_NOPUT);
    constant("MPI_MODE_NOSTORE", ABI_MODE_NOSTORE);
    constant("MPI_MODE_NOSUCCEED", ABI_MODE_NOSUCCEED);
    /* I/O */
    ABI_STD_AMODES(C)
    ABI_STD_SEEKS(C)
    puts("#define MPI_DISPLACEMENT_CURRENT ((MPI_Offset)-1)\n");
    _Static_assert(ABI_DISPLACEMENT_CURRENT == -1, "MPI_DISPLACEMENT_CURRENT");
#undef C
    printf("#define MPI_T_CB_REQUIRE_NONE 0x00\n#define MPI_T_CB_REQUIRE_MPI_RESTRICTED 0x03\n"
           "#define MPI_T_CB_REQUIRE_THREAD_SAFE 0x0F\n#define MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE 0x3F\n"
           "#define MPI_T_SOURCE_ORDERED 1\n#define MPI_T_SOURCE_UNORDERED 2\n\n");

    /* addresses and sizes */
    puts("#define MPI_BOTTOM           ((void *)0)\n"
         "#define MPI_IN_PLACE         ((void *)1)\n"
         "#define MPI_BUFFER_AUTOMATIC ((void *)2)\n"
         "#define MPI_ARGV_NULL        ((char **)0)\n"
         "#define MPI_ARGVS_NULL       ((char ***)0)\n"
         "#define MPI_ERRCODES_IGNORE  ((int *)0)\n"
         "#define MPI_STATUS_IGNORE    ((MPI_Status *)0)\n"
         "#define MPI_STATUSES_IGNORE  ((MPI_Status *)0)\n"
         "#define MPI_UNWEIGHTED       ((int *)10)\n"
         "#define MPI_WEIGHTS_EMPTY    ((int *)11)\n"
         "#define MPI_MAX_DATAREP_STRING         128\n"
         "#define MPI_MAX_ERROR_STRING           512\n"
         "#define MPI_MAX_INFO_KEY               256\n"
         "#define MPI_MAX_INFO_VAL               1024\n"
         "#define MPI_MAX_LIBRARY_VERSION_STRING 8192\n"
         "#define MPI_MAX_OBJECT_NAME            128\n"
         "#define MPI_MAX_PORT_NAME              1024\n"
         "#define MPI_MAX_PROCESSOR_NAME         256\n"
         "#define MPI_MAX_STRINGTAG_LEN          1024\n"
         "#define MPI_MAX_PSET_NAME_LEN          1024\n"
         "#define MPI_BSEND_OVERHEAD             512\n");

    /* callbacks */
    puts("typedef void(MPI_User_function)(void *, void *, int *, MPI_Datatype *);\n"
         "typedef void(MPI_User_function_c)(void *, void *, MPI_Count *, MPI_Datatype *);\n"
         "typedef int(MPI_Grequest_query_function)(void *, MPI_Status *);\n"
         "typedef int(MPI_Grequest_free_function)(void *);\n"
         "typedef int(MPI_Grequest_cancel_function)(void *, int);\n"
         "typedef int(MPI_Copy_function)(MPI_Comm, int, void *, void *, void *, int *);\n"
         "typedef int(MPI_Delete_function)(MPI_Comm, int, void *, void *);\n"
         "typedef int(MPI_Comm_copy_attr_function)(MPI_Comm, int, void *, void *, void *, int *);\n"
         "typedef int(MPI_Comm_delete_attr_function)(MPI_Comm, int, void *, void *);\n"
         "typedef int(MPI_Type_copy_attr_function)(MPI_Datatype, int, void *, void *, void *, int *);\n"
         "typedef int(MPI_Type_delete_attr_function)(MPI_Datatype, int, void *, void *);\n"
         "typedef int(MPI_Win_copy_attr_function)(MPI_Win, int, void *, void *, void *, int *);\n"
         "typedef int(MPI_Win_delete_attr_function)(MPI_Win, int, void *, void *);\n"
         "typedef int(MPI_Datarep_extent_function)(MPI_Datatype, MPI_Aint *, void *);\n"
         "typedef int(MPI_Datarep_conversion_function)(void *, MPI_Datatype, int, void *, MPI_Offset,\n"
         "                                             void *);\n"
         "typedef int(MPI_Datarep_conversion_function_c)(void *, MPI_Datatype, MPI_Count, void *,\n"
         "                                               MPI_Offset, void *);\n"
         "typedef void(MPI_Comm_errhandler_function)(MPI_Comm *, int *, ...);\n"
         "typedef void(MPI_File_errhandler_function)(MPI_File *, int *, ...);\n"
         "typedef void(MPI_Win_errhandler_function)(MPI_Win *, int *, ...);\n"
         "typedef void(MPI_Session_errhandler_function)(MPI_Session *, int *, ...);\n"
         "typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;\n"
         "typedef MPI_File_errhandler_function MPI_File_errhandler_fn;\n"
         "typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;\n"
         "typedef MPI_Session_errhandler_function MPI_Session_errhandler_fn;\n"
         "#define MPI_NULL_COPY_FN        ((MPI_Copy_function *)0)\n"
         "#define MPI_DUP_FN              ((MPI_Copy_function *)1)\n"
         "#define MPI_NULL_DELETE_FN      ((MPI_Delete_function *)0)\n"
         "#define MPI_COMM_NULL_COPY_FN   ((MPI_Comm_copy_attr_function *)0)\n"
         "#define MPI_COMM_DUP_FN         ((MPI_Comm_copy_attr_function *)1)\n"
         "#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)\n"
         "#define MPI_TYPE_NULL_COPY_FN   ((MPI_Type_copy_attr_function *)0)\n"
         "#define MPI_TYPE_DUP_FN         ((MPI_Type_copy_attr_function *)1)\n"
         "#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function *)0)\n"
         "#define MPI_WIN_NULL_COPY_FN    ((MPI_Win_copy_attr_function *)0)\n"
         "#define MPI_WIN_DUP_FN          ((MPI_Win_copy_attr_function *)1)\n"
         "#define MPI_WIN_NULL_DELETE_FN  ((MPI_Win_delete_attr_function *)0)\n"
         "#define MPI_CONVERSION_FN_NULL   ((MPI_Datarep_conversion_function *)0)\n"
         "#define MPI_CONVERSION_FN_NULL_C ((MPI_Datarep_conversion_function_c *)0)\n");

    /* MPI_T */
    puts("typedef struct MPI_T_enum_t *MPI_T_enum;\n"
         "typedef struct MPI_T_cvar_handle_t *MPI_T_cvar_handle;\n"
         "typedef struct MPI_T_pvar_handle_t *MPI_T_pvar_handle;\n"
         "typedef struct MPI_T_pvar_session_t *MPI_T_pvar_session;\n"
         "typedef struct MPI_T_event_registration_t *MPI_T_event_registration;\n"
         "typedef struct MPI_T_event_instance_t *MPI_T_event_instance;\n"
         "typedef int MPI_T_cb_safety;\ntypedef int MPI_T_source_order;\n"
         "#define MPI_T_ENUM_NULL         ((MPI_T_enum)0)\n"
         "#define MPI_T_CVAR_HANDLE_NULL  ((MPI_T_cvar_handle)0)\n"
         "#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)\n"
         "#define MPI_T_PVAR_HANDLE_NULL  ((MPI_T_pvar_handle)0)\n"
         "#define MPI_T_PVAR_ALL_HANDLES  ((MPI_T_pvar_handle)1)\n"
         "typedef void(MPI_T_event_cb_function)(MPI_T_event_instance, MPI_T_event_registration,\n"
         "                                      MPI_T_cb_safety, void *);\n"
         "typedef void(MPI_T_event_free_cb_function)(MPI_T_event_registration, MPI_T_cb_safety,\n"
         "                                           void *);\n"
         "typedef void(MPI_T_event_dropped_cb_function)(MPI_Count, MPI_T_event_registration, int,\n"
         "                                              MPI_T_cb_safety, void *);\n\n"
         "#include \"mpi_abi_proto.h\"\n\n"
         "#ifdef __cplusplus\n}\n#endif\n\n#endif");
    return 0;
}
