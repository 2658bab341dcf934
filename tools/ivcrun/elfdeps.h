/* What the dynamic loader will look for when it starts a program: read from the ELF file's
 * program headers and dynamic section, so that a simulated VM can keep those directories
 * visible (its /tmp is private). No library names are assumed: they come from the file.
 *
 * Only what the loader itself reads is used (PT_INTERP, DT_RUNPATH or else DT_RPATH, and
 * DT_NEEDED). Every offset and size from the file is checked against the file and against
 * caps before use: a malformed file yields -ENOEXEC, never a bad read. */
#ifndef IVCRUN_ELFDEPS_H
#define IVCRUN_ELFDEPS_H

enum {
    ELF_DEP_INTERP, /* the program interpreter's path (PT_INTERP) */
    ELF_DEP_DIR,    /* a DT_RUNPATH (else DT_RPATH) directory, $ORIGIN expanded */
    ELF_DEP_NEEDED, /* a DT_NEEDED library name */
};

/* Reads the ELF file open (readable) at `fd`; `origin` is the directory holding it, for
 * $ORIGIN. Calls `cb(arg, kind, text)` for each dependency, in file order. Directories with
 * other substitutions ($LIB, $PLATFORM) are skipped.
 * Returns 0 (also for a static file with no dynamic section), -ENOEXEC when it is not an
 * ELF file of this machine's byte order or is malformed, or -errno of a read. */
int elf_deps(int fd, const char *origin, void (*cb)(void *arg, int kind, const char *text),
             void *arg);

#endif
