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
    uint64_t now = ivc_now_ns();
    w->mode = mode;
    w->rounds = 0;
    w->spin = (uint32_t)ivc->cfg.spin;
    w->yields = (uint32_t)ivc->cfg.yields;
    w->sleep_ns = 1000;
    w->sleep_max_ns = (uint32_t)ivc->cfg.sleep_max_us * 1000u;
    w->deadline = timeout_ms < 0 ? 0 : now + (uint64_t)timeout_ms * 1000000ull;
    if (timeout_ms == 0)
        w->deadline = now; /* the first step reports the timeout */
    w->next_check = now + IVCLIB_CHECK_NS;
}

int ivclib_wait_event(ivclib_waiter_t *w)
{
    uint32_t n = w->rounds++;
    if (w->mode == IVC_WAIT_SPIN || n < w->spin) {
        ivc_cpu_relax();
        /* Look at the clock every 64 polls only (the first included, so that a zero
         * timeout ends at once): it costs as much as a poll. */
        if ((n & 63) != 0)
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
    if (w->deadline != 0 && now >= w->deadline)
        return -ETIMEDOUT;
    if (now >= w->next_check) {
        w->next_check = now + IVCLIB_CHECK_NS;
        return 1;
    }
    return 0;
}
