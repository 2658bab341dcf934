/* The self channel: messages a rank sends to itself. A send is packed into a private copy
 * and delivered from progress, never from inside the send call. */
#ifndef IVC_SELF_CHAN_H
#define IVC_SELF_CHAN_H

#include "../chan/chan.h"

#include <stdint.h>

extern const ivc_chan_ops_t ivc_self_chan_ops;

/* Creates the channel; its endpoint is the channel itself. Returns NULL without memory. */
void *ivc_self_chan_create(uint32_t my_rank, const ivc_chan_upcalls_t *up);
void ivc_self_chan_destroy(void *chan);

/* The channel's progress (also in its ops), for direct calls on the hot path. */
int ivc_self_chan_progress(void *chan);

#endif
