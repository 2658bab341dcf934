#define _GNU_SOURCE
#include "coord.h"

#include "coord_fail.h"
#include "coord_report.h"
#include "self_chan.h"

#include "../shm/shm_coll_config.h"
#include "../shm/shm_rma_config.h"
#include "../ivc/lib_config.h"

#include "../region/door.h"
#include "../region/region_sect.h"

#include "../base/ivc_log.h"
#include "../base/ivc_topo.h"
#include "../base/ivc_wait.h"

#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

ivc_coord_t ivc_coord;

static const ivc_cfg_entry_t coord_entries[] = {
    {"SPIN", "0",
     "polls a waiting rank makes before it yields the CPU on every poll; 0 = auto "
     "(2000, or 20 when this host's ranks outnumber the cores they may use together)",
     IVC_CFG_UINT, 0, 1u << 30, offsetof(ivc_coord_config_t, spin)},
    {"STARTUP_TIMEOUT", "120", "seconds MPI_Init waits for every rank of the job to arrive",
     IVC_CFG_UINT, 1, 86400, offsetof(ivc_coord_config_t, startup_timeout)},
    {"MIGRATE", "0",
     "1: this job's VMs may move between hosts while it runs (ivcrun --migrate sets it): every "
     "rank connects the network to every peer, and nothing of the program's lives in a region "
     "(no shared heap, windows through messages, collectives over point-to-point)",
     IVC_CFG_UINT, 0, 1, offsetof(ivc_coord_config_t, migrate)},
    {"HOST_REGIONS", "",
     "with IVC_MIGRATE=1: the job's host regions, ':'-separated in host order; a move order "
     "names one by its index (ivcrun --migrate sets it); in a guest, `ivshmem` names a host "
     "whose region is the ivshmem device plugged after a live migration",
     IVC_CFG_STRING, 0, 0, offsetof(ivc_coord_config_t, host_regions)},
    /* Issue 12 part 3 (real guests): the entry `ivshmem` of IVC_HOST_REGIONS. */
    {"MOVE_DEVICE_WAIT", "120",
     "with IVC_MIGRATE=1 in a guest: seconds a rank that left its host's ivshmem device waits "
     "for the destination host's to be hot-plugged (IVC_HOST_REGIONS entry `ivshmem`; the "
     "guest's live migration happens meanwhile)",
     IVC_CFG_UINT, 1, 86400, offsetof(ivc_coord_config_t, move_device_wait)},
    /* Issue 12: the test of a VM that dies mid-switch (tests/migrate/die.c). */
    {"MOVE_TEST_DIE", "",
     "testing only: a rank that moves kills itself (SIGKILL) at this point of its switch: "
     "`drain` (FLUSHes sent, old pairs draining), `moved` (its old slot says MOVED, the new "
     "region not yet joined), `hello` (new region joined, HELLOs sent); empty = never",
     IVC_CFG_STRING, 0, 0, offsetof(ivc_coord_config_t, move_test_die)},
    {"THREAD_MULTIPLE", "yes",
     "MPI_Init_thread grants MPI_THREAD_MULTIPLE when asked: every MPI call then takes one "
     "process-wide lock (waits hand it over) and collectives run over point-to-point (a rank's "
     "collective area holds one operation at a time); no = grant at most "
     "MPI_THREAD_SERIALIZED, for programs that ask for MULTIPLE but call MPI from one thread "
     "at a time (mpi4py asks by default)",
     IVC_CFG_BOOL, 0, 0, offsetof(ivc_coord_config_t, thread_multiple)},
};

const ivc_cfg_table_t ivc_coord_config_table = {"coordinator and progress", coord_entries,
                                                sizeof(coord_entries) / sizeof(coord_entries[0])};

/* Polled while waiting in a region barrier: gives up if the job aborted and, once the
 * channels are connected (`progress` non-NULL), moves messages: a peer may need this rank's
 * acknowledgements or data to reach the same barrier. */
static int barrier_poll(void *progress)
{
    ivc_coord_t *c = &ivc_coord;
    int n = progress != NULL ? ivc_coord_progress() : 0;
    if (progress == NULL && ivc_load_acquire(&c->fail_pending)) {
        for (uint32_t r = 0; r < c->boot.size; r++) {
            char why[160];
            if (r != c->boot.rank && ivc_region_member_get(&c->region, r) == IVC_MEMBER_FAILED) {
                ivc_error("start-up: %s", ivc_coord_failure_text(r, why, sizeof(why)));
                return -EOWNERDEAD;
            }
        }
    }
    uint32_t mrank, msize;
    if (progress == NULL && ivc_region_misfit(&c->region, &mrank, &msize)) {
        ivc_error("start-up: rank %u of this job was started with PMI_SIZE=%u, but the job has %u "
                  "ranks",
                  mrank, msize, c->boot.size);
        return -EXDEV;
    }
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
    c->my_local = UINT32_MAX;
    for (uint32_t r = 0; r < c->boot.size; r++) {
        if (ivc_region_member_get(&c->region, r) == IVC_MEMBER_ABSENT)
            continue;
        if (r == c->boot.rank)
            c->my_local = c->nlocal;
        c->local[c->nlocal++] = r;
    }
    if (c->my_local >= c->nlocal || c->local[c->my_local] != c->boot.rank) {
        ivc_error("rank %u's slot in the membership table of %s was cleared after it joined "
                  "(another process formatted or reset the region)",
                  c->boot.rank, c->region.path);
        return -EPROTO;
    }
    return 0;
}

/* The region of ranks started by a process manager, sized as ivcrun sizes one
 * (IVC_REGION_SIZE, else what the tunables need). Every rank of the host tries; the first
 * creates the file, zero-filled at its full size in one ftruncate (the first attacher
 * formats it), and the others wait for that size. Returns 1 (created here), 0 (another
 * rank did) or -errno (logged). */
static int create_region_file(const char *path, uint32_t world)
{
    uint64_t size;
    if (ivc_shm_job_region_size(world, &size) != 0)
        return -EINVAL;
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
        if (ftruncate(fd, (off_t)size) != 0) {
            int err = errno;
            ivc_error("cannot size the region %s to %" PRIu64 " bytes: %s", path, size,
                      strerror(err));
            close(fd);
            unlink(path);
            return -err;
        }
        close(fd);
        return 1;
    }
    if (errno != EEXIST) {
        int err = errno;
        ivc_error("cannot create the region %s: %s", path, strerror(err));
        return -err;
    }
    struct stat st;
    uint64_t end = ivc_now_ns() + 10000000000ull;
    while (stat(path, &st) == 0 && st.st_size == 0 && ivc_now_ns() < end)
        sched_yield();
    return 0;
}

/* Process-manager keys of a rank's network address: hex in chunks that fit a PMI value. */
#define NET_KEY_CHUNK 800

static int net_create(const ivc_chan_upcalls_t *up)
{
    ivc_coord_t *c = &ivc_coord;
    uint32_t far = 0;
    for (uint32_t r = 0; r < c->boot.size && far == 0; r++)
        if (ivc_region_member_get(&c->region, r) == IVC_MEMBER_ABSENT)
            far = r;
    if (!c->boot.have_pmi) {
        ivc_error("rank %u is not in this rank's region, and without a process manager "
                  "(PMI_FD/PMI_PORT) there is no way to exchange network addresses; start the "
                  "job with ivcrun --hosts, mpiexec.hydra or srun",
                  far);
        return -EHOSTUNREACH;
    }
    if (!ivc_net_available()) {
        ivc_error("rank %u is on another host, and this IVC was built without the network "
                  "channel (UCX)",
                  far);
        return -EHOSTUNREACH;
    }
    int rc = ivc_net_chan_create(c->boot.rank, c->boot.size, up, &c->net);
    if (rc != 0)
        return rc;
    const void *addr;
    size_t len;
    ivc_net_chan_address(c->net, &addr, &len);
    char key[64], val[NET_KEY_CHUNK + 1];
    size_t chunks = (2 * len + NET_KEY_CHUNK - 1) / NET_KEY_CHUNK;
    for (size_t k = 0; k < chunks && rc == 0; k++) {
        size_t n = 0;
        for (size_t i = k * NET_KEY_CHUNK / 2; i < len && n < NET_KEY_CHUNK; i++, n += 2)
            snprintf(val + n, 3, "%02x", ((const uint8_t *)addr)[i]);
        val[n] = '\0';
        snprintf(key, sizeof(key), "ivc-net-%u-%zu", c->boot.rank, k);
        rc = ivc_pmi_put(&c->boot.pmi, key, val);
    }
    snprintf(key, sizeof(key), "ivc-net-%u-n", c->boot.rank);
    snprintf(val, sizeof(val), "%zu", len);
    return rc != 0 ? rc : ivc_pmi_put(&c->boot.pmi, key, val);
}

/* Connects to every rank outside this region through the addresses they published. */
static int net_connect(void)
{
    ivc_coord_t *c = &ivc_coord;
    char key[64], val[IVC_PMI_VAL_MAX];
    int rc = 0;
    for (uint32_t r = 0; r < c->boot.size && rc == 0; r++) {
        /* Migration: co-located peers too, for when one of the two moves away. */
        if (r == c->boot.rank || (c->vcs[r].state == IVC_VC_ACTIVE && !c->migrate))
            continue;
        snprintf(key, sizeof(key), "ivc-net-%u-n", r);
        if ((rc = ivc_pmi_get(&c->boot.pmi, key, val, sizeof(val))) != 0) {
            ivc_error("rank %u published no network address", r);
            return rc == -ENOENT ? -EHOSTUNREACH : rc;
        }
        size_t len = strtoul(val, NULL, 10);
        uint8_t *addr = len > 0 && len < (1u << 20) ? malloc(len) : NULL;
        if (addr == NULL)
            return -ENOMEM;
        for (size_t k = 0, i = 0; rc == 0 && i < len; k++) {
            snprintf(key, sizeof(key), "ivc-net-%u-%zu", r, k);
            rc = ivc_pmi_get(&c->boot.pmi, key, val, sizeof(val));
            for (size_t n = 0; rc == 0 && val[n] && val[n + 1] && i < len; n += 2) {
                unsigned byte;
                if (sscanf(val + n, "%2x", &byte) != 1)
                    rc = -EPROTO;
                addr[i++] = (uint8_t)byte;
            }
        }
        if (rc == 0)
            rc = ivc_net_chan_connect(c->net, r, addr, len);
        free(addr);
        if (rc == 0 && c->vcs[r].state != IVC_VC_ACTIVE)
            c->vcs[r] = (ivc_vc_t){.ops = &ivc_net_chan_ops,
                                   .ep = ivc_net_chan_endpoint(c->net, r),
                                   .state = IVC_VC_ACTIVE};
    }
    if (rc == 0)
        ivc_debug("network channel: %u peers on other hosts", c->boot.size - c->nlocal);
    return rc;
}

/* Takes this rank's slot: its lock on the region file (so that peers on this kernel see
 * the process end, however it ends), refusing a rank another live process holds. */
static int claim_slot(void)
{
    ivc_coord_t *c = &ivc_coord;
    int rc = ivc_region_lock(&c->region, c->boot.rank);
    if (rc == -EBUSY) {
        ivc_error("rank %u is already running in region %s: two processes claim PMI_RANK=%u "
                  "(or a process of an earlier job with the same IVC_JOB still runs)",
                  c->boot.rank, c->region.path, c->boot.rank);
        return -EBUSY;
    }
    if (rc != 0)
        ivc_debug("no lock on region %s (%s): peers see this rank's end by its heartbeat only",
                  c->region.path, strerror(-rc));
    return 0;
}

int ivc_coord_init(const ivc_chan_upcalls_t *up)
{
    ivc_coord_t *c = &ivc_coord;
    int rc;
    memset(c, 0, sizeof(*c));
    if ((rc = ivc_log_level_from_env()) != 0)
        return rc;
    if ((rc = ivc_boot_init(&c->boot)) != 0)
        return rc;
    if (!c->boot.singleton)
        ivc_log_set_rank((int)c->boot.rank);
    if ((rc = ivc_cfg_load(&ivc_coord_config_table, &c->cfg)) != 0)
        return rc;
    if ((rc = ivc_shm_config_load(&c->shm_cfg)) != 0)
        return rc;
    const ivc_cfg_table_t *tables[] = {
        &ivc_coord_config_table, &ivc_shm_config_table,  &ivc_coll_config_table,
        &ivc_rma_config_table,   &ivc_fail_config_table, &ivc_report_config_table,
        &ivclib_config_table,    &ivc_door_config_table, NULL};
    ivc_cfg_warn_unknown(tables, ivc_boot_env_names);
    if (!c->boot.singleton && (rc = ivc_door_open(c->boot.rank, c->boot.size, c->boot.device)) != 0)
        return rc;

    /* The channels report failed peers to the coordinator, which records them and tells
     * the MPI layer (coord_fail.c). */
    c->mpi_up = *up;
    c->chan_up = *up;
    c->chan_up.on_peer_failed = ivc_coord_on_peer_failed;
    up = &c->chan_up;
    c->vcs = calloc(c->boot.size, sizeof(*c->vcs));
    c->nvcs = c->boot.size;
    c->self = ivc_self_chan_create(c->boot.rank, up);
    if (c->vcs == NULL || c->self == NULL)
        return -ENOMEM;
    c->vcs[c->boot.rank] =
        (ivc_vc_t){.ops = &ivc_self_chan_ops, .ep = c->self, .state = IVC_VC_ACTIVE};
    c->nlocal = 1;

    if (!c->boot.singleton) {
        /* Every rank of a host that makes its region goes through the creation: a rank that
         * found the file already there must still wait until its creator has sized it. */
        if ((c->boot.create_region || (c->boot.have_pmi && c->boot.device[0] == '\0')) &&
            (rc = create_region_file(c->boot.region, c->boot.size)) < 0)
            return rc;
        c->created_region = rc == 1;
        rc = ivc_region_attach(c->boot.region, c->boot.job, c->boot.size, &c->region);
        if (rc == -EXDEV) {
            /* Started with another PMI_SIZE than the rest of its job: tell them. */
            ivc_region_t other;
            if (ivc_region_attach(c->boot.region, c->boot.job, 0, &other) == 0) {
                ivc_region_note_misfit(&other, c->boot.rank, c->boot.size);
                ivc_region_detach(&other, 0);
            }
        }
        if (rc != 0)
            return rc;
        /* Before anything keeps a pointer into the region: joining may move the mapping. */
        if ((rc = ivc_region_sect_join(&c->region, c->boot.rank,
                                       (uint64_t)c->cfg.startup_timeout * 1000)) != 0) {
            ivc_region_detach(&c->region, 0);
            return rc;
        }
        c->have_region = 1;
        if ((rc = ivc_coord_fail_init(&c->region, c->boot.rank, &c->mpi_up)) != 0)
            return rc;
        if ((rc = claim_slot()) != 0)
            return rc;
        ivc_door_publish(&c->region, c->boot.rank);
        ivc_region_member_set(&c->region, c->boot.rank, IVC_MEMBER_JOINED);
        if ((rc = ivc_coord_fail_start()) != 0)
            return rc;
        /* Under a process manager its barrier means every rank of the job has joined its
         * host's region: the membership table then lists exactly the co-located ranks,
         * whichever hosts the others are on. Alone, the region is the whole job. */
        rc = c->boot.have_pmi ? ivc_pmi_barrier(&c->boot.pmi) : startup_barrier("start-up");
        if (rc != 0)
            return rc;
        /* Every rank has mapped the region it made: the name can go, so that no crash
         * leaves the file behind. */
        if (c->created_region)
            unlink(c->boot.region);
        if ((rc = detect_local()) != 0)
            return rc;
        c->migrate = c->cfg.migrate != 0 && c->boot.size > 1;
        const ivc_chan_upcalls_t *shm_up = up, *net_up = up;
        if (c->migrate) {
            if (!c->boot.have_pmi) {
                ivc_error("IVC_MIGRATE=1 needs a process manager (ivcrun --hosts, Hydra) to "
                          "connect the network channel");
                return -EINVAL;
            }
            if ((rc = ivc_coord_move_init(up, &c->chan_up_shm, &c->chan_up_net)) != 0)
                return rc;
            c->shm_cfg.sparse = 1;
            shm_up = &c->chan_up_shm;
            net_up = &c->chan_up_net;
        }
        /* Doorbells only when every peer shares this region: a message over the network
         * channel rings nobody. */
        if (c->nlocal == c->boot.size && !c->migrate)
            ivc_door_connect(c->local, c->nlocal, (uint32_t)ivc_topo_my_cpus(NULL, 0, NULL));
        else {
            ivc_wait_no_doorbell_why =
                c->migrate ? "in migration mode (IVC_MIGRATE=1) peers may be reached over the "
                             "network, which rings no doorbell"
                           : "ranks on other hosts are reached over the network, which rings "
                             "no doorbell";
            ivc_wait_doors_known = 1;
        }
        if (c->migrate)
            rc = ivc_shm_chan_create(&c->region, &c->shm_cfg, c->boot.rank, ivc_coord_move_all(),
                                     c->boot.size, shm_up, &c->shm);
        else if (c->nlocal > 1)
            rc = ivc_shm_chan_create(&c->region, &c->shm_cfg, c->boot.rank, c->local, c->nlocal, up,
                                     &c->shm);
        if (rc != 0)
            return rc;
        if ((c->nlocal < c->boot.size || c->migrate) && (rc = net_create(net_up)) != 0)
            return rc;
        rc = c->boot.have_pmi ? ivc_pmi_barrier(&c->boot.pmi) : startup_barrier("connecting");
        if (rc != 0)
            return rc;
        /* The job has started: a later attacher finding a live rank here is refused, one
         * finding none resets what is left (region.c, region_renew). */
        ivc_store_relaxed(&ivc_region_hdr(&c->region)->started, 1);
        if (c->shm != NULL && (rc = ivc_shm_chan_connect(c->shm)) != 0)
            return rc;
        for (uint32_t i = 0; i < c->nlocal && c->shm != NULL; i++) {
            uint32_t r = c->local[i];
            if (r != c->boot.rank)
                c->vcs[r] = (ivc_vc_t){.ops = &ivc_shm_chan_ops,
                                       .ep = ivc_shm_chan_endpoint(c->shm, r),
                                       .state = IVC_VC_ACTIVE};
        }
        if (c->net != NULL && (rc = net_connect()) != 0)
            return rc;
    }
    if (c->boot.singleton && (rc = ivc_coord_fail_init(NULL, 0, &c->mpi_up)) != 0)
        return rc;
    /* Spinning only pays when every rank of this host has a core of its own. */
    ivc_wait_spin = (uint32_t)c->cfg.spin;
    /* IVC_SPIN=0 (auto): from this rank's mask until the collectives know the host's */
    ivc_coord_host_cpus((uint32_t)ivc_topo_my_cpus(NULL, 0, NULL));
    ivc_coord_report(c);
    return 0;
}

void ivc_coord_host_cpus(uint32_t cpus)
{
    if (ivc_coord.cfg.spin == 0)
        ivc_wait_spin = ivc_coord.nlocal > cpus ? 20 : 2000;
}

/* ivc_pmi_barrier_until's give_up in finalize: progresses (which is how failures of peers
 * on other hosts are learnt) and gives up once a peer is known to have failed, since the
 * failed rank never enters the barrier and a process manager may leave the job running
 * (srun does). */
static int finalize_give_up(void *arg)
{
    (void)arg;
    ivc_coord_progress();
    return ivc_coord_nfailed() != 0;
}

/* Re-check of the finalize wait: progress, or peer *arg left JOINED. */
static int finalize_recheck(void *arg)
{
    uint32_t r = *(const uint32_t *)arg;
    int n = ivc_coord_progress();
    return n > 0 || ivc_region_member_get(&ivc_coord.region, r) != IVC_MEMBER_JOINED;
}

/* A sleeping rank also wakes when a dynamic-process peer's socket has something. */
static int sock_wake_fds(struct pollfd *fds, int max)
{
    return ivc_coord.sock != NULL ? ivc_sock_chan_fds(ivc_coord.sock, fds, max) : 0;
}

int ivc_coord_sock_add(int fd, int *id)
{
    ivc_coord_t *c = &ivc_coord;
    /* Straight to the MPI layer: the region's failure records know only this job's ranks;
     * the channel reports each peer once. */
    if (c->sock == NULL && (c->sock = ivc_sock_chan_create(&c->mpi_up)) == NULL) {
        close(fd);
        return -ENOMEM;
    }
    ivc_vc_t *v = realloc(c->vcs, (c->nvcs + 1) * sizeof(*v));
    if (v == NULL) {
        close(fd);
        return -ENOMEM;
    }
    c->vcs = v;
    void *ep = ivc_sock_chan_add(c->sock, fd, (int)c->nvcs);
    if (ep == NULL)
        return -ENOMEM;
    v[c->nvcs] = (ivc_vc_t){.ops = &ivc_sock_chan_ops, .ep = ep, .state = IVC_VC_ACTIVE};
    *id = (int)c->nvcs++;
    ivc_door_extra_fds = sock_wake_fds;
    return 0;
}

void ivc_coord_sock_bye(int id)
{
    ivc_coord_t *c = &ivc_coord;
    if (id >= (int)c->boot.size && id < (int)c->nvcs)
        ivc_sock_chan_bye(c->vcs[id].ep);
}

int ivc_coord_sleep(int (*recheck)(void *), void *arg)
{
    return ivc_door_wait(recheck, arg);
}

int ivc_coord_finalize(void)
{
    ivc_coord_t *c = &ivc_coord;
    int rc = 0;
    if (c->sock != NULL) {
        ivc_door_extra_fds = NULL;
        ivc_sock_chan_destroy(c->sock, 5000);
        c->sock = NULL;
    }
    if (c->have_region) {
        if (c->migrate)
            ivc_coord_move_close();
        /* Ranks on other hosts: send out what is queued (acknowledgements a peer's Ssend
         * waits for), then meet them all before the network channel closes. */
        if (c->net != NULL) {
            ivc_net_chan_flush(c->net);
            if (c->boot.have_pmi && ivc_coord_nfailed() == 0)
                rc = ivc_pmi_barrier_until(&c->boot.pmi, finalize_give_up, NULL);
            if (rc == -ECANCELED)
                rc = 0; /* the failure was reported when it was learnt */
        }
        /* FINALIZED says this rank needs nothing more from its peers; it stays (and keeps
         * progressing, for what they still need from it) until no co-located peer is
         * running: each has finalized, aborted or failed. A peer that died meanwhile is
         * declared failed by the liveness thread, so this wait cannot hang on it. */
        ivc_region_member_set(&c->region, c->boot.rank, IVC_MEMBER_FINALIZED);
        ivc_door_kick_all(); /* peers waiting in finalize, or in collectives, look again */
        ivc_backoff_t b;
        ivc_backoff_init_idle(&b, NULL, NULL);
        for (uint32_t i = 0; i < c->nlocal;) {
            uint32_t r = c->local[i];
            if (r == c->boot.rank || ivc_region_member_get(&c->region, r) != IVC_MEMBER_JOINED) {
                i++;
                continue;
            }
            if (ivc_coord_progress() == 0 && ivc_backoff_idle(&b)) {
                ivc_coord_sleep(finalize_recheck, &r);
                ivc_backoff_reset(&b);
            }
            uint32_t arank;
            int acode;
            if (ivc_region_aborted(&c->region, &arank, &acode)) {
                rc = -ECANCELED;
                break;
            }
        }
        ivc_coord_fail_stop();
        ivc_door_close();
        ivc_coord_move_free();
        ivc_shm_chan_destroy(c->shm);
        ivc_net_chan_destroy(c->net);
        c->net = NULL;
        ivc_region_detach(&c->region, 0);
        c->have_region = 0;
    }
    ivc_coord_fail_free();
    ivc_boot_finalize(&c->boot);
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
    if (c->have_region) {
        /* The slot first: an abort word is believed only when the rank it names has left
         * as ABORTED (ivc_region_aborted). */
        ivc_store_release(&c->aborting, 1);
        ivc_region_member_set(&c->region, c->boot.rank, IVC_MEMBER_ABORTED);
        ivc_region_abort(&c->region, c->boot.rank, code);
        ivc_door_kick_all();
    }
    if (c->created_region)
        unlink(c->boot.region);
    /* The process manager stops the other ranks (they also see the region's abort word). */
    if (c->boot.have_pmi)
        ivc_pmi_abort(&c->boot.pmi, code, "MPI_Abort");
}

int ivc_coord_aborted(uint32_t *rank, int *code)
{
    return ivc_coord.have_region && ivc_region_aborted(&ivc_coord.region, rank, code);
}

#define NET_QUIET_POLLS 256 /* network polls without an event before polling less often */
#define NET_POLL_EVERY  16  /* then: one network poll per this many calls (a power of 2) */

int ivc_coord_progress(void)
{
    ivc_coord_t *c = &ivc_coord;
    int n = ivc_self_chan_progress(c->self);
    if (__builtin_expect(ivc_load_relaxed(&c->fail_pending) != 0, 0))
        n += ivc_coord_fail_handle();
    if (c->shm != NULL)
        n += ivc_shm_chan_progress(c->shm);
    if (c->sock != NULL)
        n += ivc_sock_chan_progress(c->sock);
    /* Each network poll is a system call with TCP: while the network has been quiet for a
     * while, poll it only every NET_POLL_EVERY calls, so that shared-memory traffic in a
     * multi-host job keeps its latency; any network event restores polling every call. */
    if (__builtin_expect(c->migrate, 0))
        n += ivc_coord_move_progress();
    if (c->net != NULL &&
        (c->net_quiet < NET_QUIET_POLLS || (++c->net_skip & (NET_POLL_EVERY - 1)) == 0)) {
        int k = ivc_net_chan_progress(c->net);
        c->net_quiet = k > 0 ? 0 : c->net_quiet + (c->net_quiet < NET_QUIET_POLLS);
        n += k;
    }
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
    /* issue 14: the run-time choice of streaming stores, explained (base/ivc_topo.h). */
    {
        char why[256];
        uint64_t v = ivc_topo_stream_min(0, why, sizeof(why));
        fprintf(f, "#   IVC_STREAM_MIN=auto is %llu here (IVC_COLL_STREAM_MIN=auto: %llu): %s\n",
                (unsigned long long)v,
                (unsigned long long)ivc_topo_stream_min(IVC_COLL_STREAM_SMALL, NULL, 0), why);
    }
    ivc_coll_config_t lc;
    if (ivc_coll_config_load(&lc) == 0)
        ivc_cfg_print(f, &ivc_coll_config_table, &lc);
    else
        rc = -EINVAL;
    ivc_rma_config_t ra;
    if (ivc_rma_config_load(&ra) == 0)
        ivc_cfg_print(f, &ivc_rma_config_table, &ra);
    else
        rc = -EINVAL;
    ivc_fail_config_t fc;
    if (ivc_cfg_load(&ivc_fail_config_table, &fc) == 0)
        ivc_cfg_print(f, &ivc_fail_config_table, &fc);
    else
        rc = -EINVAL;
    ivc_coord_report_config_t rpc;
    if (ivc_cfg_load(&ivc_report_config_table, &rpc) == 0)
        ivc_cfg_print(f, &ivc_report_config_table, &rpc);
    else
        rc = -EINVAL;
    /* libivc's tunables (src/ivc/lib_config.c, compiled into the core library) are listed
     * here too, so that ivc-info shows them and a program that uses MPI and libivc side by
     * side is not warned about their variables. */
    ivclib_config_t lib;
    if (ivclib_config_load(&lib) == 0)
        ivc_cfg_print(f, &ivclib_config_table, &lib);
    else
        rc = -EINVAL;
    ivc_door_config_t dc;
    if (ivc_cfg_load(&ivc_door_config_table, &dc) == 0)
        ivc_cfg_print(f, &ivc_door_config_table, &dc);
    else
        rc = -EINVAL;
    const ivc_cfg_table_t *tables[] = {
        &ivc_coord_config_table, &ivc_shm_config_table,  &ivc_coll_config_table,
        &ivc_rma_config_table,   &ivc_fail_config_table, &ivc_report_config_table,
        &ivclib_config_table,    &ivc_door_config_table, NULL};
    ivc_cfg_warn_unknown(tables, ivc_boot_env_names);
    return rc;
}
