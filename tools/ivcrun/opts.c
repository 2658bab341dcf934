#include "opts.h"

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
    fprintf(f, "usage: ivcrun -n N [options] [--] prog [args...]\n"
               "Runs N ranks of an IVC job, spread over simulated VMs (Linux namespaces) that\n"
               "share nothing but the job's region file /dev/shm/ivc-<job>. Without the\n"
               "privilege for namespaces it creates them in a user namespace, or else says so\n"
               "and runs plain processes.\n"
               "\n"
               "  -n, -np N            number of ranks\n"
               "  --vms M              simulated VMs, 1..N (default N); VM k gets a contiguous\n"
               "                       block of ranks\n"
               "  --hosts H            lay the job out over H simulated hosts (contiguous blocks\n"
               "                       of ranks), each with its own region: ranks on one host\n"
               "                       use shared memory, ranks on different hosts only the\n"
               "                       network channel (UCX over TCP). The VMs of all hosts are\n"
               "                       joined by veth pairs on a bridge (needs root)\n"
               "  --vms-per-host V     simulated VMs per host (default 1; or give --vms H*V)\n"
               "  --no-ns              run plain processes, no namespaces\n"
               "  -l, --tag-output     prefix every output line with \"[rank] \"\n"
               "  --region-size SIZE   region bytes, K/M/G suffixes (default: IVC_REGION_SIZE,\n"
               "                       else what the IVC_* tunables need for N ranks)\n"
               "  --timeout SEC        stop the job after SEC seconds (exit status 124)\n"
               "  --keep-region        do not remove the region file when the job ends\n"
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
               "  --version            print the version\n"
               "\n"
               "Each rank gets PMI_RANK, PMI_SIZE, IVC_JOB, IVC_REGION and IVC_VM. Rank 0 reads\n"
               "ivcrun's stdin, the others /dev/null. ivcrun exits 0 when every rank exits 0\n"
               "after MPI_Finalize (or without ever calling MPI_Init); otherwise it stops the\n"
               "job and exits with the first failure's status: the rank's exit status,\n"
               "128+signal, the MPI_Abort code, 1 for a missing MPI_Finalize, 124 on timeout,\n"
               "126/127 when prog cannot be run.\n");
}

/* Prints a usage error; returns -EINVAL. */
static int __attribute__((format(printf, 1, 2))) bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ivcrun: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'ivcrun --help' for more information.\n");
    va_end(ap);
    return -EINVAL;
}

static int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
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

/* Matches "--name VALUE" and "--name=VALUE"; *value is NULL when the value is missing. */
static int match_value(const char *name, int argc, char **argv, int *i, const char **value)
{
    size_t len = strlen(name);
    const char *a = argv[*i];
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

int ivcrun_parse_size(const char *text, uint64_t *out)
{
    return ivc_shm_parse_region_size(text, out);
}

int ivcrun_opts_parse(int argc, char **argv, ivcrun_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        uint64_t n;
        if (a[0] != '-' || strcmp(a, "-") == 0)
            break;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 1;
        }
        if (!strcmp(a, "--version")) {
            printf("ivcrun (IVC) %s\n", IVC_VERSION);
            return 1;
        }
        if (!strcmp(a, "--no-ns")) {
            o->no_ns = 1;
        } else if (!strcmp(a, "-l") || !strcmp(a, "--tag-output")) {
            o->tag_output = 1;
        } else if (!strcmp(a, "--keep-region")) {
            o->keep_region = 1;
        } else if (!strcmp(a, "--disable-auto-cleanup") || !strcmp(a, "-disable-auto-cleanup")) {
            o->no_cleanup = 1;
        } else if (match_value("--with-ft", argc, argv, &i, &v)) {
            if (v == NULL || (strcmp(v, "ulfm") && strcmp(v, "mpi")))
                return bad("--with-ft takes 'ulfm' (or 'mpi'), got '%s'", v ? v : "");
            o->no_cleanup = 1;
        } else if (match_value("-n", argc, argv, &i, &v) ||
                   match_value("-np", argc, argv, &i, &v) ||
                   match_value("--np", argc, argv, &i, &v)) {
            if (parse_uint(v, 1, MAX_RANKS, &n) != 0)
                return bad("-n needs a number of ranks in 1..65536, got '%s'", v ? v : "");
            o->nranks = (uint32_t)n;
        } else if (match_value("--vms", argc, argv, &i, &v)) {
            if (parse_uint(v, 1, MAX_RANKS, &n) != 0)
                return bad("--vms needs a number of VMs >= 1, got '%s'", v ? v : "");
            o->nvms = (uint32_t)n;
        } else if (match_value("--timeout", argc, argv, &i, &v)) {
            if (parse_uint(v, 1, 100000000, &n) != 0)
                return bad("--timeout needs a whole number of seconds >= 1, got '%s'", v ? v : "");
            o->timeout_s = (uint32_t)n;
        } else if (match_value("--hosts", argc, argv, &i, &v)) {
            if (parse_uint(v, 1, MAX_RANKS, &n) != 0)
                return bad("--hosts needs a number of hosts >= 1, got '%s'", v ? v : "");
            o->hosts = (uint32_t)n;
        } else if (match_value("--vms-per-host", argc, argv, &i, &v)) {
            if (parse_uint(v, 1, MAX_RANKS, &n) != 0)
                return bad("--vms-per-host needs a number >= 1, got '%s'", v ? v : "");
            o->vms_per_host = (uint32_t)n;
        } else if (match_value("--join", argc, argv, &i, &v)) {
            if (v == NULL || *v == '\0')
                return bad("--join needs the region file of the job");
            o->join = v;
        } else if (match_value("--job", argc, argv, &i, &v)) {
            if (parse_uint(v, 1, UINT64_MAX, &o->job_id) != 0)
                return bad("--job needs a job id >= 1, got '%s'", v ? v : "");
        } else if (match_value("--world", argc, argv, &i, &v)) {
            if (parse_uint(v, 1, MAX_RANKS, &n) != 0)
                return bad("--world needs a number of ranks in 1..65536, got '%s'", v ? v : "");
            o->world = (uint32_t)n;
        } else if (match_value("--first-rank", argc, argv, &i, &v)) {
            if (parse_uint(v, 0, MAX_RANKS - 1, &n) != 0)
                return bad("--first-rank needs a rank number, got '%s'", v ? v : "");
            o->first_rank = (uint32_t)n;
        } else if (match_value("--region-size", argc, argv, &i, &v)) {
            if (v == NULL || ivcrun_parse_size(v, &o->region_size) != 0)
                return bad("--region-size needs a size such as 64M, got '%s'", v ? v : "");
        } else {
            return bad("unknown option '%s'", a);
        }
    }
    if (o->nranks == 0)
        return bad("missing -n N (the number of ranks)");
    if (i >= argc)
        return bad("missing the program to run");
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
    if ((o->job_id || o->world || o->first_rank) && o->join == NULL)
        return bad("--job, --world and --first-rank go with --join");
    if (o->join != NULL && (o->job_id == 0 || o->world == 0))
        return bad("--join needs --job and --world");
    if (o->join == NULL)
        o->world = o->nranks;
    if ((uint64_t)o->first_rank + o->nranks > o->world)
        return bad("ranks %u..%u do not fit a job of %u ranks", o->first_rank,
                   o->first_rank + o->nranks - 1, o->world);
    o->argv = argv + i;
    return 0;
}
