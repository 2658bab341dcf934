/* The one waiting function of libivc (lib.h: ivclib_wait_event). Doorbells plug in here:
 * when the sleeping stage is reached, a waiter will announce that it sleeps and wait on its
 * doorbell, and the writers (channel, port, barrier, minitransaction unlock) will ring the
 * doorbells of the announced sleepers. Until then the sleeping stage is a nanosleep that
 * doubles from 1 us up to IVC_LIB_SLEEP_MAX, which bounds the wake-up latency. */
#define _GNU_SOURCE
#include "lib.h"

#include "../base/ivc_wait.h"

#include <errno.h>
#include <sched.h>
#include <time.h>

void ivclib_waiter_init(ivclib_waiter_t *w, const ivc_t *ivc, int mode, int timeout_ms)
{
    /* No clock here: reading it costs as much as many polls, and most waits are short.
     * The clock starts at the first look (after 64 polls), which lengthens a timeout by
     * that much at most. */
    w->mode = mode;
    w->rounds = 0;
    w->spin = (uint32_t)ivc->cfg.spin;
    w->yields = (uint32_t)ivc->cfg.yields;
    w->sleep_ns = 1000;
    w->sleep_max_ns = (uint32_t)ivc->cfg.sleep_max_us * 1000u;
    w->timeout_ms = timeout_ms;
    w->deadline = 0;
    w->next_check = 0;
}

int ivclib_wait_event(ivclib_waiter_t *w)
{
    if (w->timeout_ms == 0)
        return -ETIMEDOUT; /* "do not wait" */
    uint32_t n = w->rounds++;
    if (w->mode == IVC_WAIT_SPIN || n < w->spin) {
        ivc_cpu_relax();
        if (((n + 1) & 63) != 0)
            return 0;
    } else if (w->mode == IVC_WAIT_YIELD || n < w->spin + w->yields) {
        sched_yield();
    } else {
        struct timespec ts = {0, (long)w->sleep_ns};
        nanosleep(&ts, NULL);
        if (w->sleep_ns < w->sleep_max_ns)
            w->sleep_ns = w->sleep_ns * 2 < w->sleep_max_ns ? w->sleep_ns * 2 : w->sleep_max_ns;
    }
    uint64_t now = ivc_now_ns();
    if (w->next_check == 0) {
        w->next_check = now + IVCLIB_CHECK_NS;
        if (w->timeout_ms > 0)
            w->deadline = now + (uint64_t)w->timeout_ms * 1000000ull;
        return 0;
    }
    if (w->deadline != 0 && now >= w->deadline)
        return -ETIMEDOUT;
    if (now >= w->next_check) {
        w->next_check = now + IVCLIB_CHECK_NS;
        return 1;
    }
    return 0;
}
