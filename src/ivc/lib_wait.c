/* The one waiting function of libivc (lib.h: ivclib_wait_event): spin, yield, then sleep:
 * on the endpoint's doorbell when the waiter said what it waits for and the endpoint has
 * one (lib_door.c; the writers ring), else in nanosleeps that double from 1 us up to
 * IVC_LIB_SLEEP_MAX, which bounds the wake-up latency. */
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
    w->ivc = ivc;
    w->ready = NULL;
    w->ready_arg = NULL;
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
        int slept = -EAGAIN;
        if (w->ready != NULL && w->ivc->door != NULL) {
            /* A doorbell sleep: up to IVC_LIB_WAIT_TIMEOUT, and not past the deadline. */
            uint64_t t = w->ivc->cfg.wait_timeout_ms * 1000000ull;
            if (w->deadline != 0) {
                uint64_t now = ivc_now_ns();
                t = now >= w->deadline ? 0 : w->deadline - now < t ? w->deadline - now : t;
            }
            slept = ivclib_door_wait(w->ivc, w->ready, w->ready_arg, t);
            if (slept == 1) {
                /* Rung, or ready: straight back to the caller's poll (a liveness look is a
                 * system call; it waits for a later round). */
                if (w->deadline != 0 && ivc_now_ns() >= w->deadline)
                    return -ETIMEDOUT;
                return 0;
            }
            if (slept == 0 && w->next_check != 0)
                w->next_check = 1; /* the sleep timed out: look at liveness now */
        }
        if (slept == -EAGAIN) {
            struct timespec ts = {0, (long)w->sleep_ns};
            nanosleep(&ts, NULL);
            if (w->sleep_ns < w->sleep_max_ns)
                w->sleep_ns =
                    w->sleep_ns * 2 < w->sleep_max_ns ? w->sleep_ns * 2 : w->sleep_max_ns;
        }
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
