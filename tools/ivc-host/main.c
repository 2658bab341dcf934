/* ivc-host: the host side of IVC jobs whose ranks run in real VMs (QEMU guests with an
 * ivshmem device). Creates and formats the job's region file, serves doorbells over a
 * UNIX socket with QEMU's ivshmem server protocol, prints how to attach guests, and
 * removes the region when the job is over. `ivc-host client` is a host-side ivshmem
 * client: it rings peers' doorbells and waits for its own. */
#include "client.h"
#include "move.h"
#include "server.h"

#include "base/ivc_log.h"
#include "base/ivc_wait.h"
#include "region/region.h"
#include "shm/shm_config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(
        f, "usage: ivc-host -n N [options]\n"
           "Creates the region of an N-rank IVC job for QEMU guests, optionally serves its\n"
           "doorbells, prints the QEMU/libvirt arguments that attach a guest, and removes the\n"
           "region when every rank has finalized or aborted (or on SIGINT/SIGTERM).\n"
           "\n"
           "  -n N              ranks in the job\n"
           "  -j, --job ID      job id (default: derived from the time); ranks get IVC_JOB=ID\n"
           "  -r, --region FILE region file (default /dev/shm/ivc-<job>)\n"
           "  -s, --size SIZE   region bytes, a power of two, K/M/G suffixes (default:\n"
           "                    IVC_REGION_SIZE, else what the IVC_* tunables need)\n"
           "  -S, --socket PATH serve doorbells on PATH (QEMU ivshmem server protocol)\n"
           "  --vectors V       doorbell vectors per peer, 1..64 (default 1)\n"
           "  --keep            leave the region file when the job is over\n"
           "  --no-wait         create the region, print the arguments and exit (no doorbells)\n"
           "\n"
           "usage: ivc-host client -S PATH [--ring PEER[:VECTOR] | --wait SEC]... [--timeout SEC]\n"
           "Connects to a doorbell server as a peer, prints its peer id and the region it was\n"
           "given, then in the order given rings PEER's VECTOR (waiting up to --timeout,\n"
           "default 60 s, for that peer to connect) or waits up to SEC seconds for one of its\n"
           "own doorbells. Exit 0 when every step succeeded.\n"
           "\n"
           "usage: ivc-host move --region FILE --ranks R1,R2... --to K [--wait SEC]\n"
           "Tells ranks of a job started with IVC_MIGRATE=1 to move to host K of their\n"
           "IVC_HOST_REGIONS (a move order in their slots of FILE) and waits up to SEC\n"
           "(default 60) until each one left FILE (MOVED): then their guest's ivshmem device\n"
           "may be unplugged and the guest migrated (ivc-vm-migrate). Exit 0 when all left.\n");
}

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig)
{
    stop_signal = sig;
}

static void print_attach(const char *region, uint64_t size, uint64_t job, uint32_t n,
                         const char *sock, unsigned vectors)
{
    const char *name = strncmp(region, "/dev/shm/", 9) == 0 ? region + 9 : NULL;
    printf("ivc-host: job %" PRIu64 ", %u ranks, region %s (%" PRIu64 " MiB)\n", job, n, region,
           size >> 20);
    printf("QEMU, shared memory only (IVC polls):\n"
           "  -object memory-backend-file,id=ivc,share=on,mem-path=%s,size=%" PRIu64 "M "
           "-device ivshmem-plain,memdev=ivc\n",
           region, size >> 20);
    if (sock)
        printf("QEMU, with doorbells:\n"
               "  -chardev socket,path=%s,id=ivcdb "
               "-device ivshmem-doorbell,chardev=ivcdb,vectors=%u\n",
               sock, vectors);
    if (name) {
        printf("libvirt (<devices>):\n"
               "  <shmem name='%s'><model type='ivshmem-plain'/><size unit='M'>%" PRIu64
               "</size></shmem>\n",
               name, size >> 20);
        if (sock)
            printf("  <shmem name='%s'><model type='ivshmem-doorbell'/><server path='%s'/>"
                   "<msi vectors='%u' ioeventfd='on'/></shmem>\n",
                   name, sock, vectors);
    }
    printf("In the guests, start rank R of the job as:\n"
           "  PMI_RANK=R PMI_SIZE=%u IVC_JOB=%" PRIu64 " ./program\n",
           n, job);
    fflush(stdout);
}

/* Prints each rank's membership changes (joined, finalized, failed with how and who saw it,
 * aborted); `seen` holds the states last printed. */
static void report_members(const ivc_region_t *r, uint32_t *seen)
{
    for (uint32_t i = 0; i < r->world_size; i++) {
        uint32_t s = ivc_region_member_get(r, i);
        if (s == seen[i])
            continue;
        seen[i] = s;
        uint32_t h, by;
        char what[IVC_FAIL_WHAT_LEN];
        if (s == IVC_MEMBER_JOINED)
            printf("ivc-host: rank %u joined\n", i);
        else if (s == IVC_MEMBER_FINALIZED)
            printf("ivc-host: rank %u finalized\n", i);
        else if (s == IVC_MEMBER_ABORTED)
            printf("ivc-host: rank %u aborted\n", i);
        else if (ivc_region_member_failure(r, i, &h, &by, what))
            printf("ivc-host: rank %u %s (%s), seen by %s%.0u\n", i, ivc_region_fail_how_text(h), what,
                   by == IVC_FAIL_BY_LAUNCHER ? "the launcher" : "rank ",
                   by == IVC_FAIL_BY_LAUNCHER ? 0 : by);
        fflush(stdout);
    }
}

/* Whether every rank has joined and then finalized, aborted or failed, or the job was
 * aborted. */
static int job_over(const ivc_region_t *r, int *aborted)
{
    uint32_t arank;
    int code;
    *aborted = ivc_region_aborted(r, &arank, &code);
    if (*aborted)
        return 1;
    for (uint32_t i = 0; i < r->world_size; i++) {
        uint32_t s = ivc_region_member_get(r, i);
        if (s == IVC_MEMBER_ABORTED || s == IVC_MEMBER_FAILED)
            *aborted = 1;
        else if (s != IVC_MEMBER_FINALIZED)
            return 0;
    }
    return 1;
}

static int serve(int argc, char **argv)
{
    uint64_t n = 0, job = 0, size = 0, vectors = 1;
    const char *region = NULL, *sock = NULL;
    int keep = 0, no_wait = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--keep")) {
            keep = 1;
        } else if (!strcmp(a, "--no-wait")) {
            no_wait = 1;
        } else if (v == NULL) {
            fprintf(stderr, "ivc-host: %s: missing or unknown option\n", a);
            return 2;
        } else if (!strcmp(a, "-n")) {
            n = strtoull(v, &end, 10);
            if (*end || n == 0 || n > 65536)
                return fprintf(stderr, "ivc-host: -n wants 1..65536, got %s\n", v), 2;
            i++;
        } else if (!strcmp(a, "-j") || !strcmp(a, "--job")) {
            job = strtoull(v, &end, 10);
            if (*end || job == 0)
                return fprintf(stderr, "ivc-host: --job wants a positive number\n"), 2;
            i++;
        } else if (!strcmp(a, "-r") || !strcmp(a, "--region")) {
            region = argv[++i];
        } else if (!strcmp(a, "-s") || !strcmp(a, "--size")) {
            if (ivc_shm_parse_region_size(v, &size) != 0 || (size & (size - 1)) != 0)
                return fprintf(stderr, "ivc-host: --size wants a power of two, got %s\n", v), 2;
            i++;
        } else if (!strcmp(a, "-S") || !strcmp(a, "--socket")) {
            sock = argv[++i];
        } else if (!strcmp(a, "--vectors")) {
            vectors = strtoull(v, &end, 10);
            if (*end || vectors == 0 || vectors > IVSHMEM_MAX_VECTORS)
                return fprintf(stderr, "ivc-host: --vectors wants 1..64\n"), 2;
            i++;
        } else {
            fprintf(stderr, "ivc-host: unknown option %s\nTry 'ivc-host --help'.\n", a);
            return 2;
        }
    }
    if (n == 0) {
        usage(stderr);
        return 2;
    }
    if (job == 0)
        job = ((uint64_t)time(NULL) << 16 | (uint64_t)getpid()) & 0x7fffffffffffull;
    char path[PATH_MAX];
    if (region == NULL)
        snprintf(path, sizeof(path), "/dev/shm/ivc-%" PRIu64, job);
    else
        snprintf(path, sizeof(path), "%s", region);
    if (size == 0) {
        if (ivc_shm_job_region_size((uint32_t)n, &size) != 0)
            return 2;
        if ((size & (size - 1)) != 0) { /* IVC_REGION_SIZE may say anything */
            fprintf(stderr,
                    "ivc-host: a region for QEMU must be a power of two, not %" PRIu64
                    " bytes (IVC_REGION_SIZE)\n",
                    size);
            return 2;
        }
    }
    struct stat st;
    if (stat(path, &st) == 0) {
        fprintf(stderr, "ivc-host: %s exists; remove it or choose another --region/--job\n", path);
        return 1;
    }
    ivc_region_t r;
    if (ivc_region_create(path, size, job, (uint32_t)n, &r) != 0)
        return 1;
    host_server_t srv = {.listen_fd = -1};
    int shm_fd = -1, rc = 0;
    if (sock != NULL && !no_wait) {
        shm_fd = open(path, O_RDWR | O_CLOEXEC);
        if (shm_fd < 0 || host_server_start(&srv, sock, shm_fd, (unsigned)vectors) != 0) {
            rc = 1;
            goto out;
        }
    }
    print_attach(path, size, job, (uint32_t)n, sock, (unsigned)vectors);
    if (no_wait) {
        ivc_region_detach(&r, 0);
        return 0;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    printf("ivc-host: ready\n");
    fflush(stdout);
    int aborted = 0;
    uint32_t *seen = calloc(r.world_size, sizeof(*seen));
    if (seen == NULL) {
        rc = 1;
        goto out;
    }
    while (!stop_signal && (report_members(&r, seen), !job_over(&r, &aborted))) {
        struct pollfd fds[1024];
        size_t nfds = srv.listen_fd >= 0 ? host_server_pollfds(&srv, fds, 1024) : 0;
        int k = poll(fds, nfds, 100);
        if (k > 0 && host_server_handle(&srv, fds, nfds) != 0) {
            rc = 1;
            break;
        }
    }
    if (stop_signal)
        printf("ivc-host: stopped by signal %d\n", (int)stop_signal);
    else if (rc == 0)
        printf("ivc-host: job %" PRIu64 " is over%s\n", job,
               aborted ? " (aborted, or a rank failed)" : ": every rank finalized");
    free(seen);
    rc = rc ? rc : aborted;
out:
    host_server_stop(&srv);
    if (shm_fd >= 0)
        close(shm_fd);
    ivc_region_detach(&r, !keep);
    return rc;
}

/* One step of `ivc-host client`, run in command-line order. */
typedef struct client_step {
    int wait;     /* 1: wait for a doorbell; 0: ring */
    int64_t peer; /* ring: target */
    unsigned vec; /* ring: vector */
    double secs;  /* wait: limit */
} client_step_t;

static int client_ring(host_client_t *c, const client_step_t *st, double timeout_s)
{
    /* The peer may not have connected yet: wait for its vectors. */
    uint64_t end = ivc_now_ns() + (uint64_t)(timeout_s * 1e9);
    while (host_client_ring(c, st->peer, st->vec) == -ENOENT) {
        if (ivc_now_ns() > end || host_client_update(c, 100) != 0) {
            fprintf(stderr, "ivc-host client: peer %" PRId64 " vector %u never appeared\n",
                    st->peer, st->vec);
            return 1;
        }
    }
    printf("ivc-host client: rang peer %" PRId64 " vector %u\n", st->peer, st->vec);
    return 0;
}

static int client(int argc, char **argv)
{
    const char *sock = NULL;
    client_step_t steps[64];
    unsigned nsteps = 0;
    double timeout_s = 60;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (v == NULL) {
            fprintf(stderr, "ivc-host client: %s: missing or unknown option\n", a);
            return 2;
        } else if (!strcmp(a, "-S") || !strcmp(a, "--socket")) {
            sock = v;
        } else if (!strcmp(a, "--ring") && nsteps < 64) {
            client_step_t *st = &steps[nsteps++];
            st->wait = 0;
            st->peer = strtoll(v, &end, 10);
            st->vec = *end == ':' ? (unsigned)strtoul(end + 1, &end, 10) : 0;
            if (*end || st->peer < 0 || st->vec >= IVSHMEM_MAX_VECTORS)
                return fprintf(stderr, "ivc-host client: --ring wants PEER[:VECTOR]\n"), 2;
        } else if (!strcmp(a, "--wait") && nsteps < 64) {
            steps[nsteps++] = (client_step_t){.wait = 1, .secs = atof(v)};
        } else if (!strcmp(a, "--timeout")) {
            timeout_s = atof(v);
        } else {
            fprintf(stderr, "ivc-host client: unknown option %s\n", a);
            return 2;
        }
        i++;
    }
    if (sock == NULL) {
        usage(stderr);
        return 2;
    }
    host_client_t c;
    if (host_client_connect(&c, sock) != 0)
        return 1;
    printf("ivc-host client: peer id %" PRId64 "\n", c.id);
    char fdpath[64];
    snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", c.shm_fd);
    ivc_region_t r;
    if (ivc_region_attach(fdpath, 0, 0, &r) == 0) {
        printf("ivc-host client: region of job %" PRIu64 ", %u ranks, %" PRIu64 " bytes\n",
               r.job_id, r.world_size, r.size);
        ivc_region_detach(&r, 0);
    }
    fflush(stdout);
    int rc = 0;
    for (unsigned k = 0; k < nsteps && rc == 0; k++) {
        if (!steps[k].wait) {
            rc = client_ring(&c, &steps[k], timeout_s);
        } else {
            int v = host_client_wait(&c, (int)(steps[k].secs * 1000));
            if (v >= 0) {
                printf("ivc-host client: doorbell received on vector %d\n", v);
            } else {
                fprintf(stderr, "ivc-host client: no doorbell within %g s (%s)\n", steps[k].secs,
                        strerror(-v));
                rc = 1;
            }
        }
        fflush(stdout);
    }
    host_client_close(&c);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "client"))
        return client(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "move"))
        return host_move(argc, argv);
    return serve(argc, argv);
}
