#include "self_chan.h"

#include <errno.h>
#include <stdlib.h>

typedef struct self_msg {
    struct self_msg *next;
    ivc_env_t env;
    ivc_chan_op_t *sync_op; /* the sender's op when it waits for the match */
    uint8_t payload[];
} self_msg_t;

typedef struct self_chan {
    uint32_t rank;
    ivc_chan_upcalls_t up;
    self_msg_t *head, *tail;
} self_chan_t;

static int self_send(void *ep, ivc_chan_op_t *op)
{
    self_chan_t *s = ep;
    self_msg_t *m = malloc(sizeof(*m) + op->data.bytes);
    if (m == NULL)
        return -ENOMEM;
    m->next = NULL;
    m->env = op->env;
    m->env.len = op->data.bytes;
    ivc_data_pack(&op->data, 0, m->payload, op->data.bytes);
    int sync = (op->env.flags & IVC_ENV_SYNC) != 0;
    m->sync_op = sync ? op : NULL;
    if (s->tail)
        s->tail->next = m;
    else
        s->head = m;
    s->tail = m;
    return sync ? 0 : 1;
}

static int self_recv_rndv(void *ep, const ivc_inmsg_t *m, ivc_chan_op_t *op)
{
    return -EINVAL; /* self messages are always delivered whole */
}

static int self_send_ack(void *ep, uint64_t cookie)
{
    /* The cookie is the sender's op pointer: it never left this process. */
    ivc_chan_op_t *op = (ivc_chan_op_t *)(uintptr_t)cookie;
    op->done(op, 0);
    return 0;
}

int ivc_self_chan_progress(void *chan)
{
    self_chan_t *s = chan;
    int n = 0;
    self_msg_t *m;
    while ((m = s->head) != NULL) {
        s->head = m->next;
        if (s->head == NULL)
            s->tail = NULL;
        ivc_inmsg_t in = {.env = m->env,
                          .peer = (int)s->rank,
                          .data = m->payload,
                          .cookie = (uint64_t)(uintptr_t)m->sync_op,
                          .rndv = 0};
        s->up.on_message(s->up.arg, &in);
        free(m);
        n++;
    }
    return n;
}

const ivc_chan_ops_t ivc_self_chan_ops = {
    .name = "self",
    .send = self_send,
    .recv_rndv = self_recv_rndv,
    .send_ack = self_send_ack,
    .progress = ivc_self_chan_progress,
};

void *ivc_self_chan_create(uint32_t my_rank, const ivc_chan_upcalls_t *up)
{
    self_chan_t *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    s->rank = my_rank;
    s->up = *up;
    return s;
}

void ivc_self_chan_destroy(void *chan)
{
    self_chan_t *s = chan;
    if (s == NULL)
        return;
    while (s->head) {
        self_msg_t *m = s->head;
        s->head = m->next;
        free(m);
    }
    free(s);
}
