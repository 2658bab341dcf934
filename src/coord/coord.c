#define _GNU_SOURCE
#include "coord.h"

#include "self_chan.h"

#include "../base/ivc_log.h"
#include "../base/ivc_wait.h"

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ivc_coord_t ivc_coord;

static const ivc_cfg_entry_t coord_entries[] = {
    {"SPIN", "0",
     "polls a waiting rank makes before it yields the CPU on every poll; 0 = auto "
     "(2000, or 20 when this host's ranks outnumber its cores)",
     IVC_CFG_UINT, 0, 1u << 30, offsetof(ivc_coord_config_t, spin)},
    {"STARTUP_TIMEOUT", "120", "seconds MPI_Init waits for every rank of the job to arrive",
     IVC_CFG_UINT, 1, 86400, offsetof(ivc_coord_config_t, startup_timeout)},
};

const ivc_cfg_table_t ivc_coord_config_table = {"coordinator and progress", coord_entries,
                                                sizeof(coord_entries) / sizeof(coord_entries[0])};

static int cpus_online(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Polled while waiting in a region barrier: gives up if the job aborted and, once the
 * channels are connected (`progress` non-NULL), moves messages: a peer may need this rank's
 * acknowledgements or data to reach the same barrier. */
static int barrier_poll(void *progress)
{
    ivc_coord_t *c = &ivc_coord;
    int n = progress != NULL ? ivc_coord_progress() : 0;
    if ((++c->poll_count & 255) == 0) {
        uint32_t rank;
        int code;
        if (ivc_region_aborted(&c->region, &rank, &code)) {
            ivc_error("the job was aborted by rank %u (code %d)", rank, code);
            return -ECANCELED;
        }
    }
    return n > 0;
}

/* Start-up barrier with an error that names the ranks that never arrived. */
static int startup_barrier(const char *what)
{
    ivc_coord_t *c = &ivc_coord;
    int rc = ivc_region_barrier(&c->region, c->boot.size, c->cfg.startup_timeout * 1000,
                                barrier_poll, NULL);
    if (rc == -ETIMEDOUT) {
        char missing[256] = "";
        size_t len = 0;
        for (uint32_t r = 0; r < c->boot.size && len + 16 < sizeof(missing); r++)
            if (ivc_region_member_get(&c->region, r) == IVC_MEMBER_ABSENT)
                len += (size_t)snprintf(missing + len, sizeof(missing) - len, " %u", r);
        ivc_error("%s: waited %llu s (IVC_STARTUP_TIMEOUT) for all %u ranks; never arrived:%s",
                  what, (unsigned long long)c->cfg.startup_timeout, c->boot.size,
                  len ? missing : " (unknown)");
    }
    return rc;
}

/* The locality detector: after the first barrier every rank that shares this region has
 * marked its slot, and local order is slot order. Never from hostnames: they differ
 * between VMs and containers on one host. */
static int detect_local(void)
{
    ivc_coord_t *c = &ivc_coord;
    c->local = malloc(c->boot.size * sizeof(*c->local));
    if (c->local == NULL)
        return -ENOMEM;
    c->nlocal = 0;
    for (uint32_t r = 0; r < c->boot.size; r++) {
        if (ivc_region_member_get(&c->region, r) == IVC_MEMBER_ABSENT)
            continue;
        if (r == c->boot.rank)
            c->my_local = c->nlocal;
        c->local[c->nlocal++] = r;
    }
    return 0;
}

int ivc_coord_init(const ivc_chan_upcalls_t *up)
{
    ivc_coord_t *c = &ivc_coord;
    int rc;
    memset(c, 0, sizeof(*c));
    const char *dbg = getenv("IVC_DEBUG");
    if (dbg != NULL)
        ivc_log_set_level(atoi(dbg));
    if ((rc = ivc_boot_init(&c->boot)) != 0)
        return rc;
    if (!c->boot.singleton)
        ivc_log_set_rank((int)c->boot.rank);
    if ((rc = ivc_cfg_load(&ivc_coord_config_table, &c->cfg)) != 0)
        return rc;
    if ((rc = ivc_shm_config_load(&c->shm_cfg)) != 0)
        return rc;
    const ivc_cfg_table_t *tables[] = {&ivc_coord_config_table, &ivc_shm_config_table, NULL};
    ivc_cfg_warn_unknown(tables, ivc_boot_env_names);

    c->vcs = calloc(c->boot.size, sizeof(*c->vcs));
    c->self = ivc_self_chan_create(c->boot.rank, up);
    if (c->vcs == NULL || c->self == NULL)
        return -ENOMEM;
    c->vcs[c->boot.rank] = (ivc_vc_t){&ivc_self_chan_ops, c->self, IVC_VC_ACTIVE};
    c->nlocal = 1;

    if (!c->boot.singleton) {
        rc = ivc_region_attach(c->boot.region, c->boot.job, c->boot.size, &c->region);
        if (rc != 0)
            return rc;
        c->have_region = 1;
        ivc_region_member_set(&c->region, c->boot.rank, IVC_MEMBER_JOINED);
        if ((rc = startup_barrier("start-up")) != 0)
            return rc;
        if ((rc = detect_local()) != 0)
            return rc;
        if (c->nlocal > 1) {
            rc = ivc_shm_chan_create(&c->region, &c->shm_cfg, c->boot.rank, c->local, c->nlocal, up,
                                     &c->shm);
            if (rc != 0)
                return rc;
        }
        if ((rc = startup_barrier("connecting")) != 0)
            return rc;
        if (c->shm != NULL && (rc = ivc_shm_chan_connect(c->shm)) != 0)
            return rc;
        for (uint32_t i = 0; i < c->nlocal; i++) {
            uint32_t r = c->local[i];
            if (r != c->boot.rank)
                c->vcs[r] =
                    (ivc_vc_t){&ivc_shm_chan_ops, ivc_shm_chan_endpoint(c->shm, r), IVC_VC_ACTIVE};
        }
        for (uint32_t r = 0; r < c->boot.size; r++) {
            if (c->vcs[r].state != IVC_VC_ACTIVE) {
                ivc_error("rank %u does not share this rank's region and no network channel "
                          "exists yet",
                          r);
                return -EHOSTUNREACH;
            }
        }
    }
    /* Spinning only pays when every rank of this host has a core of its own. */
    ivc_wait_spin = (uint32_t)c->cfg.spin;
    if (ivc_wait_spin == 0)
        ivc_wait_spin = c->nlocal > (uint32_t)cpus_online() ? 20 : 2000;
    return 0;
}

int ivc_coord_finalize(void)
{
    ivc_coord_t *c = &ivc_coord;
    int rc = 0;
    if (c->have_region) {
        rc = ivc_region_barrier(&c->region, c->boot.size, 0, barrier_poll, c);
        ivc_region_member_set(&c->region, c->boot.rank, IVC_MEMBER_FINALIZED);
        ivc_shm_chan_destroy(c->shm);
        ivc_region_detach(&c->region, 0);
        c->have_region = 0;
    }
    ivc_self_chan_destroy(c->self);
    free(c->vcs);
    free(c->local);
    c->self = NULL;
    c->vcs = NULL;
    c->local = NULL;
    return rc;
}

void ivc_coord_abort(int code)
{
    ivc_coord_t *c = &ivc_coord;
    if (!c->have_region)
        return;
    ivc_region_abort(&c->region, c->boot.rank, code);
    ivc_region_member_set(&c->region, c->boot.rank, IVC_MEMBER_ABORTED);
}

int ivc_coord_aborted(uint32_t *rank, int *code)
{
    return ivc_coord.have_region && ivc_region_aborted(&ivc_coord.region, rank, code);
}

int ivc_coord_progress(void)
{
    ivc_coord_t *c = &ivc_coord;
    int n = ivc_self_chan_progress(c->self);
    if (c->shm != NULL)
        n += ivc_shm_chan_progress(c->shm);
    return n;
}

int ivc_coord_print_config(FILE *f)
{
    ivc_coord_config_t cc;
    ivc_shm_config_t sc;
    int rc = 0;
    if (ivc_cfg_load(&ivc_coord_config_table, &cc) == 0)
        ivc_cfg_print(f, &ivc_coord_config_table, &cc);
    else
        rc = -EINVAL;
    if (ivc_shm_config_load(&sc) == 0)
        ivc_cfg_print(f, &ivc_shm_config_table, &sc);
    else
        rc = -EINVAL;
    const ivc_cfg_table_t *tables[] = {&ivc_coord_config_table, &ivc_shm_config_table, NULL};
    ivc_cfg_warn_unknown(tables, ivc_boot_env_names);
    return rc;
}
