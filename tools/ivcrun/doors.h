/* Doorbells for the ranks of a launch (src/region/door.h): one eventfd per rank, created
 * before any rank starts, inherited by all of them (simulated VMs included: namespaces do
 * not stop inherited descriptors), and named to each rank in IVC_DOORBELL_FDS. */
#ifndef IVCRUN_DOORS_H
#define IVCRUN_DOORS_H

#include <stdint.h>

typedef struct job_doors {
    int *fds;        /* per rank of this launch, or NULL: no doorbells */
    uint32_t count;
    uint64_t domain; /* random id of this set (0: none) */
    char *env;       /* "<domain>:<first rank>:<fd>,<fd>,..." */
} job_doors_t;

/* Creates `count` eventfds (close-on-exec until a rank keeps them) for ranks
 * first..first+count-1. Without them (too many ranks for the descriptor limit, or eventfd
 * failing) the ranks run without doorbells, and ivcrun says why once. Returns 0. */
int job_doors_create(job_doors_t *d, uint32_t first, uint32_t count);

/* In a rank's process before exec: keeps the eventfds open across exec and sets
 * IVC_DOORBELL_FDS (unless the user set it, or IVC_DOORBELL_SOCKET). Returns 0 or -errno. */
int job_doors_export(const job_doors_t *d);

void job_doors_close(job_doors_t *d);

#endif
