#define _GNU_SOURCE
#include "doors.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

int job_doors_create(job_doors_t *d, uint32_t first, uint32_t count)
{
    memset(d, 0, sizeof(*d));
    struct rlimit rl;
    /* Every rank holds all of them: leave room for the program's own descriptors. */
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (uint64_t)count + 256 > rl.rlim_cur) {
        fprintf(stderr, "ivcrun: note: %u ranks need more descriptors than the limit (%llu) "
                        "allows for doorbells; waiting ranks will yield instead of sleeping\n",
                count, (unsigned long long)rl.rlim_cur);
        return 0;
    }
    int *fds = malloc(count * sizeof(*fds));
    size_t len = 64 + (size_t)count * 12;
    char *env = malloc(len);
    if (fds == NULL || env == NULL)
        goto fail;
    uint64_t domain = 0;
    if (getrandom(&domain, sizeof(domain), 0) != sizeof(domain))
        domain = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
    domain |= 1;
    size_t n = (size_t)snprintf(env, len, "%" PRIx64 ":%u:", domain, first);
    for (uint32_t i = 0; i < count; i++) {
        fds[i] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (fds[i] < 0) {
            int err = errno;
            while (i-- > 0)
                close(fds[i]);
            fprintf(stderr, "ivcrun: note: no doorbells (eventfd: %s); waiting ranks will "
                            "yield instead of sleeping\n",
                    strerror(err));
            goto fail;
        }
        n += (size_t)snprintf(env + n, len - n, i ? ",%d" : "%d", fds[i]);
    }
    d->fds = fds;
    d->count = count;
    d->domain = domain;
    d->env = env;
    return 0;
fail:
    free(fds);
    free(env);
    return 0;
}

int job_doors_export(const job_doors_t *d)
{
    if (d->fds == NULL || getenv("IVC_DOORBELL_FDS") != NULL ||
        getenv("IVC_DOORBELL_SOCKET") != NULL)
        return 0;
    for (uint32_t i = 0; i < d->count; i++)
        if (fcntl(d->fds[i], F_SETFD, 0) != 0)
            return -errno;
    return setenv("IVC_DOORBELL_FDS", d->env, 1) != 0 ? -errno : 0;
}

void job_doors_close(job_doors_t *d)
{
    for (uint32_t i = 0; d->fds != NULL && i < d->count; i++)
        close(d->fds[i]);
    free(d->fds);
    free(d->env);
    memset(d, 0, sizeof(*d));
}
