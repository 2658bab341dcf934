/* ivc-info with no arguments: what this installation is (as ompi_info and ucx_info say it):
 * the library's version, read from the library beside ivc-info itself; what was built
 * (Fortran bindings: libmpifort exists; C++; the network channel: a build-time fact of the
 * core both share); then every tunable with its value and where the value comes from. */
#include "api.h"
#include "coord/coord.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The value of one tunable row as coord prints it ("IVC_NAME=value   # help ..."), with its
 * source inserted before the comment: "environment" when IVC_NAME is set (and non-empty,
 * as ivc_cfg_load reads it), "default" otherwise. Other lines pass through. */
static void print_row(FILE *f, const char *line)
{
    const char *eq = strchr(line, '=');
    const char *hash = eq ? strstr(eq, " # ") : NULL;
    if (strncmp(line, "IVC_", 4) != 0 || eq == NULL || hash == NULL) {
        fputs(line, f);
        return;
    }
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(eq - line), line);
    const char *env = getenv(name);
    fprintf(f, "%.*s [%s]%s", (int)(hash - line), line,
            env != NULL && *env != '\0' ? "environment" : "default", hash);
}

/* Prints the tunables through the coordinator's one list of tables, so every layer's check
 * of its values runs as at start-up. Returns 0, or 1 when a value is invalid. */
static int print_tunables(FILE *f)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem == NULL) {
        perror("ivc-info: open_memstream");
        return 1;
    }
    int rc = ivc_coord_print_config(mem);
    if (fclose(mem) != 0) {
        perror("ivc-info: open_memstream");
        free(text);
        return 1;
    }
    fprintf(f, "\n# Tunables: environment variables of the ranks (ivcrun passes its own\n"
               "# environment on). Values are those this environment gives; [default] or\n"
               "# [environment] says where each comes from.\n");
    for (char *line = text, *next; line != NULL && *line != '\0'; line = next) {
        char *nl = strchr(line, '\n');
        next = nl ? nl + 1 : NULL;
        char keep = next ? *next : '\0';
        if (next)
            *next = '\0';
        print_row(f, line);
        if (next)
            *next = keep;
    }
    free(text);
    return rc == 0 ? 0 : 1;
}

/* The ABIs this installation serves: IVC's own, and each library of src/abi found in
 * <libdir>/abi beside the library (ivcrun picks one by a program's DT_NEEDED). */
static void print_abis(FILE *f, const char *libpath)
{
    static const struct {
        const char *file, *what;
    } abis[] = {
        {"abi/mpich/libmpi.so.12", "MPICH's (libmpi.so.12: mpicc.mpich binaries, mpi4py's wheel)"},
        {"abi/std/libmpi_abi.so.0", "the MPI-5 standard ABI 1.0 (libmpi_abi.so.0: mpicc -mpi-abi)"},
        {"abi/std/libmpifort_abi.so.0",
         "its Fortran library (libmpifort_abi.so.0: mpifort -mpi-abi; mpif.h, mpi, mpi_f08)"},
    };
    char dir[PATH_MAX + 64], lib[PATH_MAX + 128];
    snprintf(dir, sizeof dir, "%s", libpath);
    char *slash = strrchr(dir, '/');
    if (slash != NULL)
        *slash = '\0';
    fprintf(f, "ABIs:             IVC's own (libivcmpi: mpicc)");
    for (size_t i = 0; i < sizeof abis / sizeof abis[0]; i++) {
        snprintf(lib, sizeof lib, "%s/%s", dir, abis[i].file);
        if (access(lib, R_OK) == 0)
            fprintf(f, ";\n                  %s in %.*s", abis[i].what,
                    (int)(strrchr(lib, '/') - lib), lib);
    }
    fprintf(f, "\n");
}

int ivc_info_about(FILE *f)
{
    char path[PATH_MAX + 64], fpath[PATH_MAX + 64];
    fprintf(f, "IVC %s (ivc-info)\n", IVC_VERSION);
    void *mpi = ivc_info_open_lib(IVC_MPI_SONAME, path, sizeof path);
    typedef int (*libver_fn)(char *, int *);
    typedef int (*stdver_fn)(int *, int *);
    libver_fn libver = mpi ? (libver_fn)dlsym(mpi, "MPI_Get_library_version") : NULL;
    stdver_fn stdver = mpi ? (stdver_fn)dlsym(mpi, "MPI_Get_version") : NULL;
    if (libver != NULL && stdver != NULL) {
        char v[8192]; /* more than MPI_MAX_LIBRARY_VERSION_STRING (mpi.h: 256) */
        int vlen = 0, major = 0, minor = 0;
        libver(v, &vlen);
        stdver(&major, &minor);
        fprintf(f, "library:          %s\n                  %s; MPI %d.%d\n", path, v, major,
                minor);
    } else {
        /* Not an error: a VM image may carry ivc-info without lib/ beside it. */
        fprintf(f, "library:          not found beside ivc-info: %s\n",
                mpi ? "no MPI_Get_library_version" : dlerror());
    }
    void *fort = ivc_info_open_lib(IVC_MPIFORT_SONAME, fpath, sizeof fpath);
    if (fort != NULL)
        fprintf(f, "Fortran:          yes: mpif.h, use mpi, use mpi_f08 (mpifort; %s)\n", fpath);
    else if (mpi == NULL)
        fprintf(f, "Fortran:          unknown (no libraries beside ivc-info)\n");
    else
        fprintf(f, "Fortran:          no (%s absent: built without gfortran)\n",
                IVC_MPIFORT_SONAME);
    fprintf(f, "C++:              yes: mpi.h compiles as C++ (mpicxx); no separate C++ bindings "
               "library (MPI-3 removed them)\n");
#ifdef IVC_INFO_HAVE_UCX
    fprintf(f, "network channel:  yes (UCX): ranks in other regions (hosts) are reachable\n");
#else
    fprintf(f, "network channel:  no (built without UCX): every rank of a job must share one "
               "region\n");
#endif
    fprintf(f, "wrappers:         mpicc, mpicxx%s; pkg-config: mpi, mpi-c, mpi-cxx%s, ivc\n",
            fort ? ", mpifort" : "", fort ? ", mpi-fort" : "");
    if (mpi != NULL)
        print_abis(f, path);
    if (fort != NULL)
        dlclose(fort);
    if (mpi != NULL)
        dlclose(mpi);
    return print_tunables(f);
}
