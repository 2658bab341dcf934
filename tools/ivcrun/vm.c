#define _GNU_SOURCE
#include "vm.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define VM_NS_FLAGS (CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET)

pid_t vm_clone(int userns, int (*fn)(void *), void *arg)
{
    /* The raw system call with no stack works like fork(): the child goes on on a copy of
     * our stack. glibc's clone() wants a separate stack, which sanitizers cannot follow. */
    long flags = VM_NS_FLAGS | (userns ? CLONE_NEWUSER : 0) | SIGCHLD;
    long pid = syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
    if (pid == 0)
        _exit(fn(arg));
    return pid > 0 ? (pid_t)pid : -errno;
}

/* Records the failed step; returns -errno of that step. */
static int fail(char *why, size_t len, const char *step, const char *arg)
{
    int err = errno;
    snprintf(why, len, "%s%s%s: %s", step, arg ? " " : "", arg ? arg : "", strerror(err));
    return -err;
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    int err = errno;
    close(fd);
    errno = err;
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The caller's ids as themselves: ranks keep their host identity (and lose the namespace's
 * capabilities on exec, as they would on the host). setgroups must be denied first, or an
 * unprivileged gid_map is refused. */
static int map_ids(const vm_conf_t *c, char *why, size_t len)
{
    char line[64];
    if (write_file("/proc/self/setgroups", "deny") != 0 && errno != ENOENT)
        return fail(why, len, "write", "/proc/self/setgroups");
    snprintf(line, sizeof(line), "%u %u 1\n", (unsigned)c->uid, (unsigned)c->uid);
    if (write_file("/proc/self/uid_map", line) != 0)
        return fail(why, len, "write", "/proc/self/uid_map");
    snprintf(line, sizeof(line), "%u %u 1\n", (unsigned)c->gid, (unsigned)c->gid);
    if (write_file("/proc/self/gid_map", line) != 0)
        return fail(why, len, "write", "/proc/self/gid_map");
    return 0;
}

/* Mounts a fresh tmpfs on `dir` and brings `keep` (host files or directories directly in
 * `dir`) back at the same paths with bind mounts. */
static int cover_keeping(const char *dir, const char *const *keep, int n, char *why, size_t len)
{
    int fds[VM_KEEP_MAX], i, rc = 0;
    /* A bind mount's source must be in our mount namespace: open each one here, through our
     * copy of the host's mounts, before the tmpfs covers it. */
    for (i = 0; i < n; i++) {
        fds[i] = open(keep[i], O_PATH | O_CLOEXEC);
        if (fds[i] < 0) {
            rc = fail(why, len, "open", keep[i]);
            goto err_close;
        }
    }
    if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0) {
        rc = fail(why, len, "mount tmpfs on", dir);
        goto err_close;
    }
    for (int j = 0; j < n; j++) {
        struct stat st;
        int is_dir = fstat(fds[j], &st) == 0 && S_ISDIR(st.st_mode);
        int made =
            is_dir ? mkdir(keep[j], 0700) : open(keep[j], O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        if (made < 0) {
            rc = fail(why, len, "create", keep[j]);
            goto err_close;
        }
        if (!is_dir)
            close(made);
        /* /proc/self names us by our host pid: the host's /proc is not replaced yet. */
        char src[64];
        snprintf(src, sizeof(src), "/proc/self/fd/%d", fds[j]);
        if (mount(src, keep[j], NULL, MS_BIND | MS_REC, NULL) != 0) {
            rc = fail(why, len, "bind-mount the host's", keep[j]);
            goto err_close;
        }
    }
err_close:
    while (i-- > 0)
        close(fds[i]);
    return rc;
}

static int mount_private(const vm_conf_t *c, char *why, size_t len)
{
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return fail(why, len, "make / private", NULL);
    int rc = c->nregions > 0 ? cover_keeping("/dev/shm", c->regions, c->nregions, why, len)
                             : cover_keeping("/dev/shm", &c->region_path, 1, why, len);
    if (rc == 0)
        rc = cover_keeping("/tmp", c->tmp_trees, c->ntmp_trees, why, len);
    if (rc == 0 && mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
        rc = fail(why, len, "mount proc on", "/proc");
    return rc;
}

static int loopback_up(char *why, size_t len)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return fail(why, len, "socket", NULL);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    strcpy(ifr.ifr_name, "lo");
    int rc = 0;
    if (ioctl(s, SIOCGIFFLAGS, &ifr) != 0) {
        rc = fail(why, len, "get flags of", "lo");
    } else {
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0)
            rc = fail(why, len, "bring up", "lo");
    }
    close(s);
    return rc;
}

/* The VM's own /etc/hosts, as a machine's: its host name resolves (programs that open their
 * own sockets look it up, e.g. MPI_Comm_join tests), and with a bridge every VM's name gives
 * its address there (vm_net_addr), so that VMs reach each other by name. Written
 * to the VM's private /tmp, bind-mounted over /etc/hosts and unlinked. A convenience: where
 * it cannot be done the host's file stays. */
static void hosts_file(const vm_conf_t *c)
{
    const char *tmp = "/tmp/.ivcrun-hosts";
    FILE *f = fopen(tmp, "we");
    if (f == NULL)
        return;
    fprintf(f, "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n");
    char addr[VM_NET_ADDR_MAX];
    if (c->net)
        for (uint32_t k = 0; k < c->nvms; k++) {
            vm_net_addr(k, addr);
            fprintf(f, "%s\tvm%u\n", addr, k);
        }
    else
        fprintf(f, "127.0.1.1\tvm%u\n", c->index);
    int ok = fclose(f) == 0;
    if (ok)
        mount(tmp, "/etc/hosts", NULL, MS_BIND, NULL);
    unlink(tmp);
}

int vm_setup(const vm_conf_t *c, char *why, size_t len)
{
    int rc;
    if (c->userns && (rc = map_ids(c, why, len)) != 0)
        return rc;
    if ((rc = mount_private(c, why, len)) != 0)
        return rc;
    char name[32];
    snprintf(name, sizeof(name), "vm%u", c->index);
    if (sethostname(name, strlen(name)) != 0)
        return fail(why, len, "sethostname", name);
    hosts_file(c);
    return loopback_up(why, len);
}

typedef struct probe_arg {
    const vm_conf_t *conf;
    int fd; /* write end of the pipe that carries `why` back */
} probe_arg_t;

static int probe_main(void *p)
{
    probe_arg_t *a = p;
    char why[256];
    if (vm_setup(a->conf, why, sizeof(why)) == 0)
        _exit(0);
    ssize_t n = write(a->fd, why, strlen(why));
    _exit(n < 0 ? 2 : 1);
}

int vm_probe(const vm_conf_t *c, char *why, size_t len)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return fail(why, len, "pipe", NULL);
    probe_arg_t a = {c, p[1]};
    pid_t pid = vm_clone(c->userns, probe_main, &a);
    close(p[1]);
    if (pid < 0) {
        errno = -pid;
        close(p[0]);
        return fail(why, len, c->userns ? "clone with a user namespace" : "clone", NULL);
    }
    ssize_t n = read(p[0], why, len - 1);
    close(p[0]);
    int ws;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
        return 0;
    if (n <= 0)
        snprintf(why, len, "namespace set-up failed with wait status 0x%x", ws);
    else
        why[n] = '\0';
    return -EPERM;
}
