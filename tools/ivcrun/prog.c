#define _GNU_SOURCE
#include "prog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* Opens `path` if it is an executable regular file. Returns the fd, -ENOEXEC when it exists
 * but is not that, or -errno from stat. */
static int open_exec(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode) || faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) != 0)
        return -ENOEXEC;
    int fd = open(path, O_PATH | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

static int is_script(int fd)
{
    char link[64], magic[2];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    int rfd = open(link, O_RDONLY | O_CLOEXEC); /* an unreadable file cannot be a script */
    if (rfd < 0)
        return 0;
    int script = pread(rfd, magic, 2, 0) == 2 && magic[0] == '#' && magic[1] == '!';
    close(rfd);
    return script;
}

int prog_open(const char *name, prog_t *p)
{
    int rc = -ENOENT;
    if (strchr(name, '/') != NULL) {
        snprintf(p->path, sizeof(p->path), "%s", name);
        rc = open_exec(name);
    } else {
        const char *dirs = getenv("PATH");
        if (dirs == NULL)
            dirs = "/usr/local/bin:/usr/bin:/bin";
        for (;;) {
            size_t len = strcspn(dirs, ":");
            char buf[PATH_MAX];
            /* An empty PATH entry means the current directory. */
            if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, len ? dirs : ".", name) <
                (int)sizeof(buf)) {
                /* Like a shell: a directory we may not search hides nothing; a file that is
                 * not executable is remembered, but the search goes on. */
                int r = open_exec(buf);
                if (r >= 0 || (r == -ENOEXEC && rc == -ENOENT)) {
                    rc = r;
                    snprintf(p->path, sizeof(p->path), "%s", buf);
                }
            }
            if (rc >= 0 || dirs[len] == '\0')
                break;
            dirs += len + 1;
        }
        if (rc == -ENOENT) {
            fprintf(stderr, "ivcrun: %s: command not found\n", name);
            return rc;
        }
    }
    if (rc < 0) {
        fprintf(stderr, "ivcrun: cannot execute %s: %s\n", name,
                rc == -ENOEXEC ? "not an executable file" : strerror(-rc));
        return rc;
    }
    p->fd = rc;
    p->script = is_script(p->fd);
    return 0;
}

int prog_exec(const prog_t *p, char *const argv[])
{
    if (p->script) {
        execve(p->path, argv, environ);
        if (errno != ENOENT && errno != ENOTDIR)
            return -errno;
        /* The path is hidden in the VM: the interpreter opens the script as /dev/fd/N,
         * which must survive the exec, unlike our close-on-exec descriptor. */
        int keep = fcntl(p->fd, F_DUPFD, 3);
        if (keep < 0)
            return -errno;
        execveat(keep, "", argv, environ, AT_EMPTY_PATH);
        int err = errno;
        close(keep);
        return -err;
    }
    execveat(p->fd, "", argv, environ, AT_EMPTY_PATH);
    return -errno;
}
