/* ivcrun's side of write-exclusive sections (src/region/region_sect.h): one socket pair per
 * rank, the rank's end passed as IVC_SECTION_FD. Each rank hands over its own sealed
 * section; ivcrun checks it (sealed, the size the region's header says) and passes it on to
 * every co-located rank, and every co-located rank's section to it, as they come. A rank
 * receives only sections: it never gets a descriptor it could write a peer through. */
#ifndef IVCRUN_SECT_BROKER_H
#define IVCRUN_SECT_BROKER_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sect_broker sect_broker_t;

/* Socket pairs for `nranks` ranks whose sections are `sec_size` bytes; host[r] is the
 * region (simulated host) of launch rank r: sections go only to ranks of the same host.
 * Returns NULL after printing why. */
sect_broker_t *sect_broker_create(uint32_t nranks, const uint32_t *host, uint64_t sec_size);

/* Rank r's end (close-on-exec; the rank dup()s it into IVC_SECTION_FD). */
int sect_broker_rank_fd(const sect_broker_t *b, uint32_t r);

/* Closes ivcrun's copies of the ranks' ends once they are started. */
void sect_broker_close_rank_fds(sect_broker_t *b);

/* The sockets to poll (with POLLOUT where sections wait to be sent), appended to
 * fds[0..max); returns how many. */
size_t sect_broker_pollfds(const sect_broker_t *b, struct pollfd *fds, size_t max);

/* Serves what poll() reported. Returns 0, or 1 when a rank handed over something that is
 * not a section it alone can write (*rank says which; the message is printed). */
int sect_broker_handle(sect_broker_t *b, const struct pollfd *fds, size_t n, uint32_t *rank);

/* The state launch rank r wrote into its own section's membership record (IVC_MEMBER_*,
 * region_layout.h): 0 when it has handed over no section. What the region file's slot says
 * is believed only as far as this agrees (a slot and an abort word can be forged there). */
uint32_t sect_broker_state(const sect_broker_t *b, uint32_t r);

void sect_broker_destroy(sect_broker_t *b);

#endif
