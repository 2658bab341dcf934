/* ivcrun as a PMI-1 process manager (the wire protocol MPICH's Hydra speaks): one socket
 * pair per rank, the rank's end passed as PMI_FD. Used for multi-host jobs, whose ranks
 * publish their network addresses in its key-value space and meet at its barriers; ranks
 * that share one region need none of it. */
#ifndef IVCRUN_PMI_SERVER_H
#define IVCRUN_PMI_SERVER_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pmi_server pmi_server_t;

/* Socket pairs for `nranks` ranks. Returns NULL after printing why. */
pmi_server_t *pmi_server_create(uint32_t nranks, const char *kvsname);

/* Rank r's end (close-on-exec; the rank dup()s it into PMI_FD). */
int pmi_server_rank_fd(const pmi_server_t *s, uint32_t r);

/* Closes ivcrun's copies of the ranks' ends once they are started. */
void pmi_server_close_rank_fds(pmi_server_t *s);

/* The sockets to poll, appended to fds[0..max); returns how many. */
size_t pmi_server_pollfds(const pmi_server_t *s, struct pollfd *fds, size_t max);

/* Serves what poll() reported. Returns 0, or 1 when a rank asked to abort the job
 * (*rank and *code say who and with what). */
int pmi_server_handle(pmi_server_t *s, const struct pollfd *fds, size_t n, uint32_t *rank,
                      int *code);

/* Rank r (launch index) ended: barriers no longer wait for it. (Its connection need not
 * close: a VM's init may hold a copy of its socket.) */
void pmi_server_rank_gone(pmi_server_t *s, uint32_t r);

void pmi_server_destroy(pmi_server_t *s);

#endif
