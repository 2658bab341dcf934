#include "opts.h"

#include "compat.h"
#include "migrate.h"

#include "base/ivc_config.h"
#include "shm/shm_config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef IVC_VERSION
#define IVC_VERSION "0.1.0"
#endif

#define MAX_RANKS 65536u

static void usage(FILE *f)
{
    fprintf(f, "usage: ivcrun -n N [options] [--] prog [args...] [: -n N2 [options] prog2 ...]\n"
               "Runs N ranks of an IVC job, spread over simulated VMs (Linux namespaces) that\n"
               "share nothing but the job's region file /dev/shm/ivc-<job>. Without the\n"
               "privilege for namespaces it creates them in a user namespace, or else says so\n"
               "and runs plain processes. Options take one or two dashes, and --opt=VALUE.\n"
               "\n"
               "  -n, -np, -c N        number of ranks\n"
               "  --vms M              simulated VMs, 1..N (default N); VM k gets a contiguous\n"
               "                       block of ranks\n"
               "  --hosts H            lay the job out over H simulated hosts (contiguous blocks\n"
               "                       of ranks), each with its own region: ranks on one host\n"
               "                       use shared memory, ranks on different hosts only the\n"
               "                       network channel (UCX over TCP). The VMs of all hosts are\n"
               "                       joined by veth pairs on a bridge (needs root)\n"
               "  --vms-per-host V     simulated VMs per host (default 1; or give --vms H*V)\n"
               "  --migrate VM:HOST@S  move simulated VM (all its ranks) to simulated HOST S\n"
               "                       seconds after start, while the job runs (repeatable;\n"
               "                       with --hosts): peers switch between shared memory and\n"
               "                       the network; each move and its switch time is printed\n"
               "  --net                give the VMs eth0 on a bridge (10.77.0.K+1 for VM K) also\n"
               "                       with one host, for programs that use TCP between VMs;\n"
               "                       each VM's /etc/hosts then names every VM (vmK) (root)\n"
               "  --no-ns              run plain processes, no namespaces\n"
               "  -l, -prepend-rank    prefix every output line with \"[rank] \"\n"
               "  --tag-output         prefix every output line with \"[1,rank]<stdout>:\" (or\n"
               "                       <stderr>), as Open MPI does\n"
               "  -v, --verbose        say where the job runs; each rank prints at MPI_Init\n"
               "                       its VM, simulated host, region and channel per peer\n"
               "  --region-size SIZE   region bytes, K/M/G suffixes (default: IVC_REGION_SIZE,\n"
               "                       else what the IVC_* tunables need for N ranks)\n"
               "  --timeout SEC        stop the job after SEC seconds (exit status 124; default:\n"
               "                       MPIEXEC_TIMEOUT, as Hydra)\n"
               "  --keep-region        do not remove the region file when the job ends\n"
               "  --universe-size N    the MPI_UNIVERSE_SIZE the ranks see (default: -n): how\n"
               "                       many processes the program may expect to run, spawned\n"
               "                       ones included (MPI_Comm_spawn starts new simulated VMs,\n"
               "                       and does not refuse more)\n"
               "  --share DIR          make DIR (and what is under it) the same directory in\n"
               "                       every simulated VM, e.g. for MPI-IO files under /tmp;\n"
               "                       may be repeated; IVC_SHARE=DIR:DIR... adds more. The\n"
               "                       working directory and all outside /tmp are shared anyway\n"
               "  --disable-auto-cleanup, --with-ft ulfm\n"
               "                       a rank that fails does not stop the others: ivcrun\n"
               "                       marks it failed in the region (the survivors' MPI calls\n"
               "                       involving it return MPI_ERR_PROC_FAILED under\n"
               "                       MPI_ERRORS_RETURN) and exits at the end with its status\n"
               "  --join FILE          run ranks F..F+N-1 of a larger job whose region FILE\n"
               "                       exists already (e.g. shared with QEMU guests running\n"
               "                       the other ranks); needs --job and --world, takes\n"
               "                       --first-rank F (default 0); the file is left in place\n"
               "  --job ID             the job id of --join (the IVC_JOB of the other ranks)\n"
               "  --world W            the job's total number of ranks, with --join\n"
               "  --first-rank F       the first global rank this launch runs, with --join\n"
               "  -h, --help           print this help\n"
               "  -V, --version        print the version\n"
               "\n"
               "Hydra (mpiexec.hydra) and Open MPI (mpirun) spellings, all ranks on this machine:\n"
               "  -host, -hosts, -H A,B[:SLOTS]   every distinct host name becomes a simulated\n"
               "  -f, -hostfile, -machinefile F   VM (\"name\", \"name:N\", \"name slots=N\"),\n"
               "                       filled slot by slot, round robin; --host-map hosts\n"
               "                       makes each a simulated host instead (UCX between them)\n"
               "  -ppn, -npernode, -N P, --map-by ppr:P:node\n"
               "                       P ranks per host (without a host list: per VM)\n"
               "  --map-by slot|core|hwthread|socket|node   node: one rank per host per round\n"
               "  -genv NAME VALUE, -x NAME[=VALUE]   set (or pass on) a variable in every rank\n"
               "  -genvall, -genvnone, -genvlist A,B  pass all (default), none or only these of\n"
               "                       ivcrun's variables; -env, -envall, -envnone, -envlist\n"
               "                       do the same for one program of an MPMD job\n"
               "  -bind-to core|hwthread|socket|none  pin rank k to the k-th core (hwthread,\n"
               "                       socket) of the CPUs ivcrun may use, round robin\n"
               "  --report-bindings    each rank says: \"rank R bound to CPU(s) X\"\n"
               "  -wdir, -wd DIR       the ranks' working directory (a relative program path\n"
               "                       is looked up there first)\n"
               "  -outfile-pattern P, -errfile-pattern P   each rank's stdout/stderr into file P\n"
               "                       (%%r: rank, %%h: its host name, %%%%: %%)\n"
               "  -a : -b              MPMD: \"-n 2 ./a : -n 3 ./b\" runs ranks 0-1 as ./a and\n"
               "                       2-4 as ./b in one MPI_COMM_WORLD\n"
               "  --oversubscribe, --allow-run-as-root, -nooversubscribe   accepted, no effect\n"
               "  --mca, -iface, -launcher, -bootstrap, --prefix ...   ignored, with a note why\n"
               "\n"
               "Each rank gets PMI_RANK, PMI_SIZE, IVC_JOB, IVC_REGION and IVC_VM. Rank 0 reads\n"
               "ivcrun's stdin, the others /dev/null. ivcrun exits 0 when every rank exits 0\n"
               "after MPI_Finalize (or without ever calling MPI_Init); otherwise it stops the\n"
               "job and exits with the first failure's status: the rank's exit status,\n"
               "128+signal, the MPI_Abort code, 1 for a missing MPI_Finalize, 124 on timeout,\n"
               "126/127 when prog cannot be run, 2 for a command-line error.\n");
}

int ivcrun_opts_bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ivcrun: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'ivcrun --help' for more information.\n");
    va_end(ap);
    return -EINVAL;
}
#define bad ivcrun_opts_bad

int ivcrun_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    if (s == NULL || *s < '0' || *s > '9')
        return -EINVAL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -EINVAL;
    *out = v;
    return 0;
}
#define parse_uint ivcrun_parse_uint

/* The option name of `a` without its one or two dashes. */
const char *ivcrun_opt_undash(const char *a)
{
    return a[1] == '-' ? a + 2 : a + 1;
}

#define undash ivcrun_opt_undash

/* Whether `a` is the flag -name or --name. */
int ivcrun_opt_is(const char *a, const char *name)
{
    return !strcmp(undash(a), name);
}
#define is ivcrun_opt_is

/* Matches "-name VALUE", "--name VALUE", "-name=VALUE" and "--name=VALUE"; *value is NULL
 * when the value is missing. */
int ivcrun_opt_value(const char *name, int argc, char **argv, int *i, const char **value)
{
    const char *a = undash(argv[*i]);
    size_t len = strlen(name);
    if (strncmp(a, name, len) != 0)
        return 0;
    if (a[len] == '=') {
        *value = a + len + 1;
        return 1;
    }
    if (a[len] != '\0')
        return 0;
    *value = *i + 1 < argc ? argv[++*i] : NULL;
    return 1;
}

#define match_value ivcrun_opt_value

int ivcrun_parse_size(const char *text, uint64_t *out)
{
    return ivc_shm_parse_region_size(text, out);
}

/* One option of a section; `app` is the section's program. Returns 0, 1 (help or version
 * printed) or -EINVAL (printed). */
/* Adds a directory every simulated VM must see (--share, IVC_SHARE): it must exist, and
 * cannot be under /dev/shm, which is each VM's own. Returns 0 or -EINVAL after a message. */
static int share_add(ivcrun_opts_t *o, const char *dir, const char *from)
{
    if (dir == NULL || *dir == '\0')
        return bad("%s needs a directory", from);
    char *abs = realpath(dir, NULL);
    if (abs == NULL)
        return bad("%s %s: %s", from, dir, strerror(errno));
    if (!strncmp(abs, "/dev/shm", 8) && (abs[8] == '\0' || abs[8] == '/')) {
        free(abs);
        return bad("%s %s: a simulated VM sees only its own /dev/shm; use another directory",
                   from, dir);
    }
    if (o->nshare == IVCRUN_SHARE_MAX) {
        free(abs);
        return bad("%s: at most %d shared directories", from, IVCRUN_SHARE_MAX);
    }
    o->share[o->nshare++] = abs;
    return 0;
}

static int parse_one(int argc, char **argv, int *ip, ivcrun_opts_t *o, ivcrun_app_t *app)
{
    const char *a = argv[*ip], *v;
    uint64_t n;
    int rc;
    if (is(a, "h") || is(a, "help")) {
        usage(stdout);
        return 1;
    }
    if (is(a, "version") || is(a, "V")) {
        printf("ivcrun (IVC) %s\n", IVC_VERSION);
        return 1;
    }
    if (is(a, "no-ns")) {
        o->no_ns = 1;
    } else if (is(a, "l") || is(a, "prepend-rank")) {
        o->tag_output = IVCRUN_TAG_RANK;
    } else if (is(a, "tag-output")) {
        o->tag_output = IVCRUN_TAG_OMPI;
    } else if (is(a, "v") || is(a, "verbose")) {
        o->verbose = 1;
    } else if (is(a, "keep-region")) {
        o->keep_region = 1;
    } else if (is(a, "net")) {
        o->vm_net = 1;
    } else if (is(a, "disable-auto-cleanup")) {
        o->no_cleanup = 1;
    } else if (match_value("with-ft", argc, argv, ip, &v)) {
        if (v == NULL || (strcmp(v, "ulfm") && strcmp(v, "mpi")))
            return bad("--with-ft takes 'ulfm' (or 'mpi'), got '%s'", v ? v : "");
        o->no_cleanup = 1;
    } else if (match_value("n", argc, argv, ip, &v) || match_value("np", argc, argv, ip, &v) ||
               match_value("c", argc, argv, ip, &v)) {
        if (parse_uint(v, 1, MAX_RANKS, &n) != 0)
            return bad("-n needs a number of ranks in 1..65536, got '%s'", v ? v : "");
        app->nranks = (uint32_t)n;
    } else if (match_value("vms", argc, argv, ip, &v)) {
        if (parse_uint(v, 1, MAX_RANKS, &n) != 0)
            return bad("--vms needs a number of VMs >= 1, got '%s'", v ? v : "");
        o->nvms = (uint32_t)n;
    } else if (match_value("timeout", argc, argv, ip, &v)) {
        if (parse_uint(v, 1, 100000000, &n) != 0)
            return bad("--timeout needs a whole number of seconds >= 1, got '%s'", v ? v : "");
        o->timeout_s = (uint32_t)n;
    } else if (match_value("hosts", argc, argv, ip, &v)) {
        /* ivcrun's --hosts H counts simulated hosts; Hydra's -hosts names them. */
        if (v != NULL && *v >= '0' && *v <= '9' && strspn(v, "0123456789") == strlen(v)) {
            if (parse_uint(v, 1, MAX_RANKS, &n) != 0)
                return bad("--hosts needs a number of hosts >= 1, got '%s'", v);
            o->hosts = (uint32_t)n;
        } else if ((rc = compat_host_list(o, "-hosts", v)) != 0) {
            return rc;
        }
    } else if (match_value("vms-per-host", argc, argv, ip, &v)) {
        if (parse_uint(v, 1, MAX_RANKS, &n) != 0)
            return bad("--vms-per-host needs a number >= 1, got '%s'", v ? v : "");
        o->vms_per_host = (uint32_t)n;
    } else if (match_value("migrate", argc, argv, ip, &v)) {
        if ((rc = migrate_parse(o, v)) != 0)
            return rc;
    } else if (match_value("join", argc, argv, ip, &v)) {
        if (v == NULL || *v == '\0')
            return bad("--join needs the region file of the job");
        o->join = v;
    } else if (match_value("job", argc, argv, ip, &v)) {
        if (parse_uint(v, 1, UINT64_MAX, &o->job_id) != 0)
            return bad("--job needs a job id >= 1, got '%s'", v ? v : "");
    } else if (match_value("world", argc, argv, ip, &v)) {
        if (parse_uint(v, 1, MAX_RANKS, &n) != 0)
            return bad("--world needs a number of ranks in 1..65536, got '%s'", v ? v : "");
        o->world = (uint32_t)n;
    } else if (match_value("first-rank", argc, argv, ip, &v)) {
        if (parse_uint(v, 0, MAX_RANKS - 1, &n) != 0)
            return bad("--first-rank needs a rank number, got '%s'", v ? v : "");
        o->first_rank = (uint32_t)n;
    } else if (match_value("share", argc, argv, ip, &v)) {
        if ((rc = share_add(o, v, "--share")) != 0)
            return rc;
    } else if (match_value("universe-size", argc, argv, ip, &v)) {
        if (parse_uint(v, 1, MAX_RANKS, &n) != 0)
            return bad("--universe-size needs a number of processes in 1..65536, got '%s'",
                       v ? v : "");
        o->universe = (uint32_t)n;
    } else if (match_value("dyn-parent", argc, argv, ip, &v)) {
        /* Internal: this ivcrun runs the children of a spawn (dyn_server.h). */
        if (parse_uint(v, 0, 1u << 20, &n) != 0)
            return bad("--dyn-parent needs a descriptor number, got '%s'", v ? v : "");
        o->dyn_parent = (int)n;
    } else if (match_value("region-size", argc, argv, ip, &v)) {
        if (v == NULL || ivcrun_parse_size(v, &o->region_size) != 0)
            return bad("--region-size needs a size such as 64M, got '%s'", v ? v : "");
    } else {
        /* The Hydra and Open MPI spellings (compat.c). */
        rc = compat_parse_one(argc, argv, ip, o, app);
        if (rc == 0)
            return bad("unknown option '%s'", a);
        return rc < 0 ? rc : 0;
    }
    return 0;
}

/* The VMs and simulated hosts of the job, from --vms/--hosts and the host list. */
static int lay_out(ivcrun_opts_t *o)
{
    int rc = compat_place(o); /* host list, -ppn, --map-by: may set nvms, hosts, rank_vm */
    if (rc != 0)
        return rc;
    if (o->hosts == 0) {
        if (o->vms_per_host != 0)
            return bad("--vms-per-host goes with --hosts");
        o->hosts = 1;
    } else {
        if (o->join != NULL)
            return bad("--hosts and --join do not go together");
        if (o->nvms != 0 && o->vms_per_host != 0 && o->nvms != o->hosts * o->vms_per_host)
            return bad("--vms %u is not --hosts %u times --vms-per-host %u", o->nvms, o->hosts,
                       o->vms_per_host);
        if (o->nvms != 0 && o->nvms % o->hosts != 0)
            return bad("--vms %u does not divide into %u hosts", o->nvms, o->hosts);
        if (o->nvms == 0)
            o->nvms = o->hosts * (o->vms_per_host ? o->vms_per_host : 1);
        if (o->hosts > o->nranks)
            return bad("--hosts %u is more than the %u ranks", o->hosts, o->nranks);
    }
    if (o->nvms == 0)
        o->nvms = o->nranks;
    o->vms_per_host = o->nvms / o->hosts;
    if (o->nvms > o->nranks)
        return bad("--vms %u is more than the %u ranks (each VM runs at least one)", o->nvms,
                   o->nranks);
    if ((rc = migrate_check(o)) != 0)
        return rc;
    return compat_place_round_robin(o);
}

int ivcrun_opts_parse(int argc, char **argv, ivcrun_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->genv.prop = IVCRUN_ENV_ALL;
    o->dyn_parent = -1;
    o->apps = calloc((size_t)argc + 1, sizeof(*o->apps));
    if (o->apps == NULL)
        return bad("out of memory");
    int i = 1, rc;
    /* One section per program; ':' separates them (MPMD). */
    for (;;) {
        ivcrun_app_t *app = &o->apps[o->napps];
        app->env.prop = -1;
        for (; i < argc; i++) {
            const char *a = argv[i];
            if (a[0] != '-' || strcmp(a, "-") == 0)
                break;
            if (strcmp(a, "--") == 0) {
                i++;
                break;
            }
            if ((rc = parse_one(argc, argv, &i, o, app)) != 0)
                return rc;
        }
        if (i >= argc || strcmp(argv[i], ":") == 0)
            return bad("missing the program to run%s", o->napps > 0 ? " after ':'" : "");
        app->argv = argv + i;
        while (i < argc && strcmp(argv[i], ":") != 0)
            i++;
        o->napps++;
        if (i >= argc)
            break;
        argv[i++] = NULL; /* ends this program's arguments */
    }
    o->argv = o->apps[0].argv;

    uint64_t total = 0;
    for (uint32_t k = 0; k < o->napps; k++) {
        ivcrun_app_t *app = &o->apps[k];
        if (app->nranks == 0 && o->napps == 1 && o->nhostv > 0)
            app->nranks = compat_total_slots(o); /* as Hydra and Open MPI: one per slot */
        if (app->nranks == 0) {
            if (o->napps == 1)
                return bad("missing -n N (the number of ranks)");
            return bad("program %u (%s) of the MPMD job needs its own -n N", k + 1,
                       app->argv[0]);
        }
        if (app->wdir == NULL)
            app->wdir = o->apps[0].wdir; /* the first section's -wdir serves them all */
        app->first = (uint32_t)total;
        total += app->nranks;
    }
    if (total > MAX_RANKS)
        return bad("%llu ranks in all: at most %u", (unsigned long long)total, MAX_RANKS);
    o->nranks = (uint32_t)total;

    /* Hydra's MPIEXEC_TIMEOUT (seconds) stands for --timeout when that is not given: test
     * harnesses written for MPICH (its own test suite's runtests) bound each job that way. */
    const char *env_timeout = getenv("MPIEXEC_TIMEOUT");
    if (o->timeout_s == 0 && env_timeout != NULL && *env_timeout != '\0') {
        uint64_t n;
        if (ivcrun_parse_uint(env_timeout, 1, 100000000, &n) != 0)
            return bad("MPIEXEC_TIMEOUT needs a whole number of seconds >= 1, got '%s'",
                       env_timeout);
        o->timeout_s = (uint32_t)n;
    }
    /* IVC_SHARE: more shared directories, colon-separated. */
    const char *env_share = getenv("IVC_SHARE");
    if (env_share != NULL && *env_share != '\0') {
        char *list = strdup(env_share), *save = NULL;
        for (char *d = list ? strtok_r(list, ":", &save) : NULL; d != NULL;
             d = strtok_r(NULL, ":", &save))
            if ((rc = share_add(o, d, "IVC_SHARE")) != 0) {
                free(list);
                return rc;
            }
        free(list);
    }
    if ((rc = lay_out(o)) != 0)
        return rc;
    if ((o->job_id || o->world || o->first_rank) && o->join == NULL)
        return bad("--job, --world and --first-rank go with --join");
    if (o->join != NULL && (o->job_id == 0 || o->world == 0))
        return bad("--join needs --job and --world");
    if (o->join == NULL)
        o->world = o->nranks;
    if ((uint64_t)o->first_rank + o->nranks > o->world)
        return bad("ranks %u..%u do not fit a job of %u ranks", o->first_rank,
                   o->first_rank + o->nranks - 1, o->world);
    return compat_check(o);
}

void ivcrun_opts_free(ivcrun_opts_t *o)
{
    compat_free(o);
    free(o->apps);
    o->apps = NULL;
    free(o->moves);
    o->moves = NULL;
    o->nmoves = 0;
    for (uint32_t i = 0; i < o->nshare; i++)
        free((char *)o->share[i]);
    o->nshare = 0;
}
