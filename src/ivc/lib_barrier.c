/* libivc barriers: a counter and a generation word in the region (lib_layout.h:
 * ivclib_bar_t), each on its own line. An arrival fetch_adds the counter; the last one
 * resets it and release-increments the generation, which the others wait on. Reusable at
 * once: a waiter leaves only after it saw the new generation, which the last arrival
 * publishes after the reset.
 *
 * Participants register their who word in the barrier, so waiters can tell a participant
 * that died (its who no longer alive) or left (IVCLIB_BAR_LEFT) from a slow one; either
 * breaks the barrier for everyone (-EOWNERDEAD), as does a waiter that times out (its
 * arrival cannot be taken back). */
#define _GNU_SOURCE
#include "lib.h"

#include "../base/ivc_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A participant's word once it closed the barrier: an impossible who (id 0, gen 0). */
#define IVCLIB_BAR_LEFT 1ull
/* ivclib_bar_t.broken for a waiter that timed out. */
#define IVCLIB_BAR_TIMEOUT 1ull

/* Whether nobody is in the barrier any more: every word empty, left, or of the dead. */
static int bar_deserted(ivc_t *ivc, ivclib_bar_t *b, uint32_t count)
{
    for (uint32_t i = 0; i < count && i < IVCLIB_BAR_MAX; i++) {
        uint64_t w = ivc_load_acquire(&b->part[i]);
        if (w != 0 && w != IVCLIB_BAR_LEFT && ivclib_alive(ivc, w))
            return 0;
    }
    return 1;
}

static void bar_reset(ivclib_bar_t *b, const char *name, uint32_t count)
{
    b->count = count;
    memset(b->name, 0, sizeof(b->name));
    snprintf(b->name, sizeof(b->name), "%s", name);
    for (uint32_t i = 0; i < IVCLIB_BAR_MAX; i++)
        ivc_store_relaxed(&b->part[i], 0);
    ivc_store_relaxed(&b->arrived, 0);
    ivc_store_relaxed(&b->generation, 0);
    ivc_store_relaxed(&b->broken, 0);
}

int ivc_barrier_open(ivc_t *ivc, const char *name, uint32_t count, ivc_barrier_t **out)
{
    if (!ivclib_name_ok(name) || count == 0 || count > IVCLIB_BAR_MAX || out == NULL)
        return -EINVAL;
    ivc_barrier_t *h = calloc(1, sizeof(*h));
    if (h == NULL)
        return -ENOMEM;
    int rc = ivclib_create_lock(ivc);
    if (rc != 0)
        goto err_free;
    int slot = -1, free_slot = -1;
    for (uint32_t k = 0; k < ivc->nbarriers && slot < 0; k++) {
        ivclib_bar_t *b = ivclib_bar(ivc, k);
        /* A18: pairs with R18 below. */
        uint32_t st = ivc_load_acquire(&b->state);
        if (st != IVCLIB_BAR_READY) {
            if (free_slot < 0 && st == IVCLIB_BAR_FREE)
                free_slot = (int)k;
            continue;
        }
        char other[IVCLIB_NAME_MAX];
        ivclib_name_copy(other, b->name);
        if (strcmp(other, name) == 0)
            slot = (int)k;
    }
    ivclib_bar_t *b;
    if (slot >= 0) {
        b = ivclib_bar(ivc, (uint32_t)slot);
        uint32_t bcount = b->count;
        if (bcount == 0 || bcount > IVCLIB_BAR_MAX || bar_deserted(ivc, b, bcount)) {
            /* Left over by participants that are all gone (or damaged): start afresh. */
            bar_reset(b, name, count);
        } else if (bcount != count) {
            ivclib_create_unlock(ivc);
            ivc_error("libivc: barrier '%s' has %u participants, not %u", name, bcount, count);
            rc = -EINVAL;
            goto err_free;
        }
    } else {
        if (free_slot < 0) {
            ivclib_create_unlock(ivc);
            rc = -ENFILE;
            goto err_free;
        }
        slot = free_slot;
        b = ivclib_bar(ivc, (uint32_t)slot);
        ivc_store_relaxed(&b->state, IVCLIB_BAR_CLAIMED); /* under the creation lock */
        bar_reset(b, name, count);
        /* R18: publishes the barrier; pairs with A18 above. */
        ivc_store_release(&b->state, IVCLIB_BAR_READY);
    }
    int idx = -1;
    for (uint32_t i = 0; i < count && idx < 0; i++) {
        uint64_t zero = 0;
        if (ivc_cas(&b->part[i], &zero, ivc->who))
            idx = (int)i;
    }
    ivclib_create_unlock(ivc);
    if (idx < 0) {
        rc = -EUSERS;
        goto err_free;
    }
    h->ivc = ivc;
    h->slot = (uint32_t)slot;
    h->count = count;
    h->part_idx = (uint32_t)idx;
    h->sh = b;
    rc = ivclib_track(ivc, (void ***)&ivc->bars, &ivc->nbars, &ivc->cap_bars, h);
    if (rc != 0) {
        ivc_store_release(&b->part[idx], IVCLIB_BAR_LEFT);
        goto err_free;
    }
    *out = h;
    return 0;

err_free:
    free(h);
    return rc;
}

/* Rings every other participant (a release or a break: they may sleep). */
static void bar_kick_all(ivc_barrier_t *h)
{
    for (uint32_t i = 0; i < h->count; i++) {
        uint64_t w = ivc_load_relaxed(&h->sh->part[i]);
        if (i != h->part_idx && w != 0 && w != IVCLIB_BAR_LEFT)
            ivclib_kick(h->ivc, ivclib_who_id(w));
    }
}

typedef struct bar_wait {
    ivclib_bar_t *b;
    uint32_t gen;
} bar_wait_t;

/* A waiter's ready() (lib.h): released, or broken. */
static int bar_ready(void *arg)
{
    const bar_wait_t *bw = arg;
    return ivc_load_acquire(&bw->b->generation) != bw->gen || ivc_load_acquire(&bw->b->broken) != 0;
}

/* A participant that is dead or left, or 0. */
static uint64_t bar_missing(ivc_t *ivc, ivclib_bar_t *b, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        uint64_t w = ivc_load_acquire(&b->part[i]);
        if (w == IVCLIB_BAR_LEFT)
            return w;
        if (w != 0 && !ivclib_alive(ivc, w))
            return w;
    }
    return 0;
}

int ivc_barrier_wait(ivc_barrier_t *h, int mode, int timeout_ms)
{
    if (h == NULL || mode < IVC_WAIT_SPIN || mode > IVC_WAIT_BLOCK)
        return -EINVAL;
    ivclib_bar_t *b = h->sh;
    if (ivc_load_acquire(&b->broken) != 0)
        return -EOWNERDEAD;
    /* A19: the generation this arrival belongs to; pairs with R19. */
    uint32_t gen = ivc_load_acquire(&b->generation);
    uint32_t arrived = ivc_fetch_add(&b->arrived, 1) + 1;
    if (arrived > h->count) {
        ivc_error("libivc: barrier %u: %u arrivals for %u participants: its words were "
                  "overwritten",
                  h->slot, arrived, h->count);
        return -EPROTO;
    }
    if (arrived == h->count) {
        ivc_store_relaxed(&b->arrived, 0);
        /* R19: releases the waiters (and the reset above); pairs with A19. */
        ivc_store_release(&b->generation, gen + 1);
        bar_kick_all(h);
        return 0;
    }
    ivclib_waiter_t w;
    bar_wait_t bw = {b, gen};
    ivclib_waiter_init(&w, h->ivc, mode, timeout_ms);
    ivclib_waiter_ready(&w, bar_ready, &bw);
    for (;;) {
        /* A19 */
        if (ivc_load_acquire(&b->generation) != gen)
            return 0;
        int rc = ivclib_wait_event(&w);
        if (rc == 0)
            continue;
        uint64_t why = rc < 0 ? IVCLIB_BAR_TIMEOUT : 0;
        if (rc == 1) {
            if (ivc_load_acquire(&b->broken) != 0)
                return -EOWNERDEAD;
            why = bar_missing(h->ivc, b, h->count);
            if (why == 0)
                continue;
        }
        /* Released meanwhile? A participant leaves only after it passed, so a departure
         * seen here comes with the generation it saw. */
        if (ivc_load_acquire(&b->generation) != gen)
            return 0;
        uint64_t zero = 0;
        ivc_cas(&b->broken, &zero, why);
        bar_kick_all(h);
        return rc < 0 ? -ETIMEDOUT : -EOWNERDEAD;
    }
}

static void bar_release(ivc_barrier_t *h)
{
    ivc_t *ivc = h->ivc;
    ivclib_bar_t *b = h->sh;
    ivc_store_release(&b->part[h->part_idx], IVCLIB_BAR_LEFT);
    if (ivclib_create_lock(ivc) == 0) {
        uint32_t st = ivc_load_acquire(&b->state);
        if (st == IVCLIB_BAR_READY && bar_deserted(ivc, b, h->count))
            ivc_store_release(&b->state, IVCLIB_BAR_FREE);
        ivclib_create_unlock(ivc);
    }
    free(h);
}

int ivc_barrier_close(ivc_barrier_t *h)
{
    if (h == NULL)
        return 0;
    ivclib_untrack(h->ivc, (void **)h->ivc->bars, &h->ivc->nbars, h);
    bar_release(h);
    return 0;
}

void ivclib_bar_close_all(ivc_t *ivc)
{
    while (ivc->nbars > 0)
        ivc_barrier_close(ivc->bars[ivc->nbars - 1]);
}
