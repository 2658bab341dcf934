#define _GNU_SOURCE
#include "abi.h"

#include "elfdeps.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum { ABI_NONE, ABI_NATIVE, ABI_MPICH, ABI_OPENMPI, ABI_STANDARD } abi_kind_t;

typedef struct {
    abi_kind_t kind;
    char lib[NAME_MAX + 1]; /* the NEEDED name that decided it */
} abi_found_t;

static void on_needed(void *arg, int kind, const char *text)
{
    abi_found_t *f = arg;
    if (kind != ELF_DEP_NEEDED || f->kind != ABI_NONE)
        return;
    abi_kind_t k = ABI_NONE;
    if (!strncmp(text, "libivcmpi.so", 12))
        k = ABI_NATIVE;
    else if (!strcmp(text, "libmpi.so.12") || !strcmp(text, "libmpich.so.12") ||
             !strcmp(text, "libmpifort.so.12") || !strcmp(text, "libmpichfort.so.12"))
        k = ABI_MPICH; /* MPICH's Fortran library runs over IVC's C library of the same ABI */
    else if (!strcmp(text, "libmpi.so.40"))
        k = ABI_OPENMPI;
    else if (!strncmp(text, "libmpi_abi.so", 13) || !strncmp(text, "libmpifort_abi.so", 17))
        k = ABI_STANDARD; /* a Fortran program of that ABI may need only the Fortran library */
    if (k != ABI_NONE) {
        f->kind = k;
        snprintf(f->lib, sizeof(f->lib), "%s", text);
    }
}

/* <prefix>/lib/abi/<name>, from ivcrun's own place (<prefix>/bin/ivcrun: the build tree
 * mirrors the install layout), if it holds lib (the library a binary of that ABI needs). */
static const char *abi_dir(char dir[PATH_MAX], const char *name, const char *lib)
{
    char exe[PATH_MAX], path[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *bin = dirname(exe);
    snprintf(path, sizeof(path), "%s/../lib/abi/%s", bin, name);
    char real[PATH_MAX];
    if (realpath(path, real) == NULL)
        return NULL;
    snprintf(path, sizeof(path), "%s/%s", real, lib);
    if (access(path, R_OK) != 0)
        return NULL;
    snprintf(dir, PATH_MAX, "%s", real);
    return dir;
}

static const char *mpich_dir(void)
{
    static char dir[PATH_MAX];
    static const char *found;
    static int done;
    if (!done) {
        done = 1;
        found = abi_dir(dir, "mpich", "libmpi.so.12");
    }
    return found;
}

/* <prefix>/lib/abi/std: the MPI-5 standard ABI (libmpi_abi.so.0). */
static const char *std_dir(void)
{
    static char dir[PATH_MAX];
    static const char *found;
    static int done;
    if (!done) {
        done = 1;
        found = abi_dir(dir, "std", "libmpi_abi.so.0");
    }
    return found;
}

int abi_choose(job_t *job)
{
    const char *off = getenv("IVCRUN_ABI");
    if (off != NULL && !strcmp(off, "native"))
        return 0;
    for (uint32_t a = 0; a < job->opts->napps; a++) {
        prog_t *p = &job->progs[a];
        abi_found_t f = {ABI_NONE, ""};
        char link[64];
        snprintf(link, sizeof(link), "/proc/self/fd/%d", p->fd);
        int fd = p->script ? -1 : open(link, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            char origin[PATH_MAX];
            ssize_t n = readlink(link, origin, sizeof(origin) - 1);
            origin[n > 0 ? n : 0] = '\0';
            elf_deps(fd, dirname(origin), on_needed, &f);
            close(fd);
        }
        switch (f.kind) {
        case ABI_NATIVE: break;
        case ABI_OPENMPI:
            fprintf(stderr,
                    "ivcrun: %s needs Open MPI's %s, an ABI IVC does not serve: build it with "
                    "IVC's mpicc (or MPICH's mpicc.mpich, whose ABI IVC serves)\n",
                    p->path, f.lib);
            return -ENOTSUP;
        case ABI_STANDARD:
            p->abi_libdir = std_dir();
            if (p->abi_libdir == NULL) {
                fprintf(stderr,
                        "ivcrun: %s was built for the MPI-5 standard ABI (%s), but this IVC "
                        "has no lib/abi/std beside bin/ivcrun to run it with\n",
                        p->path, f.lib);
                return -ENOTSUP;
            }
            if (job->opts->verbose)
                fprintf(stderr,
                        "ivcrun: %s was built for the MPI-5 standard ABI (%s): its ranks run "
                        "on IVC's standard-ABI library, %s first on LD_LIBRARY_PATH\n",
                        p->path, f.lib, p->abi_libdir);
            break;
        case ABI_MPICH:
        case ABI_NONE:
            p->abi_libdir = mpich_dir();
            if (p->abi_libdir == NULL && f.kind == ABI_MPICH) {
                fprintf(stderr,
                        "ivcrun: %s was built for MPICH's ABI (%s), but this IVC has no "
                        "lib/abi/mpich beside bin/ivcrun to run it with\n",
                        p->path, f.lib);
                return -ENOTSUP;
            }
            if (job->opts->verbose && p->abi_libdir != NULL && f.kind == ABI_MPICH)
                fprintf(stderr,
                        "ivcrun: %s was built for MPICH's ABI (%s): its ranks run on IVC's "
                        "MPICH-ABI library, %s first on LD_LIBRARY_PATH\n",
                        p->path, f.lib, p->abi_libdir);
            else if (job->opts->verbose && p->abi_libdir != NULL)
                fprintf(stderr,
                        "ivcrun: %s links no MPI library: %s goes first on its ranks' "
                        "LD_LIBRARY_PATH, for an MPI it may load itself (mpi4py)\n",
                        p->path, p->abi_libdir);
            break;
        }
    }
    return 0;
}

int abi_apply(const char *libdir)
{
    if (libdir == NULL)
        return 0;
    const char *old = getenv("LD_LIBRARY_PATH");
    char *v = NULL;
    if (asprintf(&v, "%s%s%s", libdir, old && *old ? ":" : "", old && *old ? old : "") < 0)
        return -ENOMEM;
    int rc = setenv("LD_LIBRARY_PATH", v, 1) != 0 ? -errno : 0;
    free(v);
    return rc;
}
