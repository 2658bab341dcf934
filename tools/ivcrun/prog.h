/* The ranks' program: found once by ivcrun, executed through a file descriptor.
 *
 * A simulated VM gets a private /tmp, so a program under the host's /tmp need not have a
 * path inside the VM. ivcrun therefore opens the program before any VM exists, and ranks
 * execute that descriptor (execveat with AT_EMPTY_PATH): every rank runs the very file
 * ivcrun resolved, even if it is replaced meanwhile. The ranks keep ivcrun's working
 * directory, a reference that stays valid even where its path is hidden.
 *
 * A script is the exception: its interpreter needs a path to open (and the script its $0),
 * so it is executed by the path a shell would use, and only through the descriptor
 * (/dev/fd/N) when that path does not exist inside the VM. */
#ifndef IVCRUN_PROG_H
#define IVCRUN_PROG_H

#include <limits.h>

typedef struct prog {
    int fd;                 /* O_PATH, close-on-exec; -1 when not open */
    int script;             /* starts with "#!" */
    char path[PATH_MAX];    /* as given when it has a '/', else as found in PATH */
    const char *abi_libdir; /* IVC's library for the ABI it was built for, or NULL (abi.h) */
} prog_t;

/* Finds `name` as a shell would (a PATH search when it has no '/') and opens it.
 * Returns 0, -ENOENT (not found), -ENOEXEC (not an executable regular file) or another
 * -errno from stat; the error is printed here. */
int prog_open(const char *name, prog_t *p);

/* Executes the program with `argv` and the current environment. Returns only on failure,
 * with -errno. */
int prog_exec(const prog_t *p, char *const argv[]);

#endif
