/* ivc-info --api: which functions of MPI-4.1 this installation implements, per chapter
 * of the standard. The list of functions is the standard's own (src/binding/c/api_table.h,
 * generated from its API description); what is implemented is read from the libraries
 * themselves (IVC_MPI_SONAME and IVC_MPIFORT_SONAME, from CMake: libivcmpi.so.1 and
 * libivcmpifort.so.1): a C function counts when libmpi exports its PMPI_ name (a predefined
 * callback: its MPI_ name; a large-count `_c` form: also its `int` twin's), a Fortran
 * binding when libmpifort exports the mpif.h/`use mpi` name (mpi_foo_) and, for mpi_f08,
 * gfortran's name of the module procedure (__mpi_f08_MOD_mpi_foo_f08; for a routine with a
 * choice buffer the external specific mpi_foo_f08ts_; for a predefined callback the external
 * mpi_foo_), and the C function exists. The mpi_f08 large-count overloads (..._f08c,
 * ..._c_f08ts) are not counted. */
#include "api.h"

#include "binding/c/api_table.h"

#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    const char *chapter, *name;
    int large, excluded, predefined, f90, f08;
} api_fn_t;

static const api_fn_t api[] = {
#define ROW(ch, n, l, e, p, f9, f8) {ch, n, l, e, p, f9, f8},
    IVC_API_TABLE(ROW)
#undef ROW
};

void *ivc_info_open_lib(const char *name, char *path, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return NULL;
    *slash = '\0';
    snprintf(path, len, "%s/../lib/%s", exe, name);
    char real[PATH_MAX];
    if (realpath(path, real) != NULL)
        snprintf(path, len, "%s", real);
    return dlopen(path, RTLD_LAZY | RTLD_LOCAL);
}

static void lower(char *dst, const char *src, size_t n)
{
    size_t i = 0;
    for (; src[i] && i + 1 < n; i++)
        dst[i] = (char)tolower((unsigned char)src[i]);
    dst[i] = '\0';
}

typedef struct {
    const char *chapter;
    int c_total, c_have, f90_total, f90_have, f08_total, f08_have;
} tally_t;

int ivc_info_api(int verbose)
{
    char path[PATH_MAX + 64];
    void *mpi = ivc_info_open_lib(IVC_MPI_SONAME, path, sizeof path);
    if (mpi == NULL) {
        fprintf(stderr, "ivc-info: cannot open %s: %s\n", path, dlerror());
        return 1;
    }
    void *fort = ivc_info_open_lib(IVC_MPIFORT_SONAME, path, sizeof path);
    enum { NCH = 32 };
    tally_t t[NCH] = {{0}}, all = {.chapter = "total"};
    int nch = 0;
    size_t n = sizeof api / sizeof api[0];
    for (size_t i = 0; i < n; i++) {
        const api_fn_t *f = &api[i];
        if (f->excluded)
            continue;
        int k = 0;
        while (k < nch && strcmp(t[k].chapter, f->chapter) != 0)
            k++;
        if (k == nch && nch < NCH)
            t[nch++].chapter = f->chapter;
        char sym[160], low[128];
        snprintf(sym, sizeof sym, "%s%s", f->predefined ? "" : "P", f->name);
        int c = dlsym(mpi, sym) != NULL;
        if (c && f->large) { /* a generated `_c` wrapper counts only with its `int` twin */
            snprintf(sym, sizeof sym, "P%.*s", (int)strlen(f->name) - 2, f->name);
            c = dlsym(mpi, sym) != NULL;
        }
        lower(low, f->name, sizeof low);
        snprintf(sym, sizeof sym, "%s_", low);
        int f90 = c && fort != NULL && f->f90 && dlsym(fort, sym) != NULL;
        /* The predefined callbacks are passed as procedure arguments, so mpi_f08 uses the
         * ordinary external procedure for them (src/binding/fortran/README.md). */
        if (f->predefined)
            snprintf(sym, sizeof sym, "%s_", low);
        else
            snprintf(sym, sizeof sym, "__mpi_f08_MOD_%s_f08", low);
        int f08 = c && fort != NULL && f->f08 && dlsym(fort, sym) != NULL;
        /* a routine with a choice buffer: the external specific mpi_foo_f08ts_ */
        if (c && fort != NULL && f->f08 && !f08 && !f->predefined) {
            snprintf(sym, sizeof sym, "%s_f08ts_", low);
            f08 = dlsym(fort, sym) != NULL;
        }
        t[k].c_total++, t[k].c_have += c;
        t[k].f90_total += f->f90, t[k].f90_have += f90;
        t[k].f08_total += f->f08, t[k].f08_have += f08;
        if (verbose && (!c || (f->f90 && !f90) || (f->f08 && !f08)))
            printf("  missing: %-40s %s%s%s\n", f->name, c ? "" : " C", f->f90 && !f90 ? " f90" : "",
                   f->f08 && !f08 ? " f08" : "");
    }
    printf("MPI-4.1 functions implemented, by chapter:\n");
    printf("%-46s %11s %11s %11s\n", "chapter", "C", "mpif.h/mpi", "mpi_f08");
    for (int k = 0; k < nch; k++) {
        printf("%-46s %5d/%-5d %5d/%-5d %5d/%-5d\n", t[k].chapter, t[k].c_have, t[k].c_total,
               t[k].f90_have, t[k].f90_total, t[k].f08_have, t[k].f08_total);
        all.c_total += t[k].c_total, all.c_have += t[k].c_have;
        all.f90_total += t[k].f90_total, all.f90_have += t[k].f90_have;
        all.f08_total += t[k].f08_total, all.f08_have += t[k].f08_have;
    }
    printf("%-46s %5d/%-5d %5d/%-5d %5d/%-5d\n", "total", all.c_have, all.c_total, all.f90_have,
           all.f90_total, all.f08_have, all.f08_total);
    printf("C: %.1f%%  mpif.h/use mpi: %.1f%%  mpi_f08: %.1f%%%s\n",
           100.0 * all.c_have / (all.c_total ? all.c_total : 1),
           100.0 * all.f90_have / (all.f90_total ? all.f90_total : 1),
           100.0 * all.f08_have / (all.f08_total ? all.f08_total : 1),
           fort == NULL ? "  (no " IVC_MPIFORT_SONAME ": built without Fortran)" : "");
    return 0;
}
