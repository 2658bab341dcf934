/* Helpers of the libivc tests: a region file of the test's own (removed at exit), forked
 * participants, and a watchdog so that a hang is a failure, not a stuck suite. */
#ifndef IVC_TEST_IVC_H
#define IVC_TEST_IVC_H

#include "../test_util.h"

#include <ivc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char t_region[128];
static pid_t t_owner; /* the process that removes the region at exit */

static void t_region_cleanup(void)
{
    if (t_region[0] != '\0' && getpid() == t_owner)
        unlink(t_region);
}

/* A fresh region path of this test (/dev/shm/ivc-test-<name>-<pid>) and a watchdog. */
static inline const char *t_region_init(const char *name, unsigned watchdog_s)
{
    snprintf(t_region, sizeof(t_region), "/dev/shm/ivc-test-%s-%d", name, (int)getpid());
    unlink(t_region);
    t_owner = getpid();
    atexit(t_region_cleanup);
    alarm(watchdog_s);
    return t_region;
}

static inline ivc_t *t_open(const char *name)
{
    ivc_t *ivc = NULL;
    int rc = ivc_open(t_region, name, IVC_OPEN_CREATE, &ivc);
    if (rc != 0)
        T_FAIL("ivc_open(%s, %s): %s", t_region, name, ivc_strerror(rc));
    return ivc;
}

/* Forks a child that runs fn(arg) and exits with its return value. */
static inline pid_t t_fork(int (*fn)(void *), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        T_FAIL("fork");
    if (pid == 0)
        _exit(fn(arg));
    return pid;
}

/* Waits for a child; returns its exit status, or 128+signal. */
static inline int t_wait(pid_t pid)
{
    int ws;
    if (waitpid(pid, &ws, 0) != pid)
        T_FAIL("waitpid");
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

#define T_RC(expr)                                                                                 \
    do {                                                                                           \
        long long rc_ = (long long)(expr);                                                         \
        if (rc_ < 0)                                                                               \
            T_FAIL("%s: %s", #expr, ivc_strerror((int)rc_));                                       \
    } while (0)

#endif
