/* ivcrun's command line: its own options and the common spellings of MPICH's Hydra
 * (mpiexec.hydra) and Open MPI's mpirun, each mapped to what it means here (compat.c). */
#ifndef IVCRUN_OPTS_H
#define IVCRUN_OPTS_H

#include <stdint.h>

/* Which of ivcrun's environment the ranks get (Hydra's -genvall/-genvnone/-genvlist). */
enum {
    IVCRUN_ENV_ALL = 0, /* all of it (the default) */
    IVCRUN_ENV_NONE,    /* none of it: only what -genv/-env/-x name, and the launch state */
    IVCRUN_ENV_LIST,    /* only the variables of -genvlist/-envlist (and -x NAME) */
};

/* An environment for ranks: `vars` in order, "NAME=VALUE" sets NAME, "NAME" passes
 * ivcrun's own value on (which matters only when `prop` is not IVCRUN_ENV_ALL). */
typedef struct ivcrun_env {
    char **vars;
    uint32_t nvars;
    int prop;     /* IVCRUN_ENV_*; for an app, -1: the global one */
} ivcrun_env_t;

/* One program of the job: MPMD jobs ("-n 2 a : -n 3 b") have several, ranked in order. */
typedef struct ivcrun_app {
    uint32_t nranks;  /* -n of its section */
    uint32_t first;   /* its first rank in this launch */
    char **argv;      /* program and arguments, NULL-terminated */
    ivcrun_env_t env; /* -env, -envall, -envnone, -envlist of its section */
    const char *wdir; /* -wdir of its section, else the global one, else NULL (ivcrun's) */
} ivcrun_app_t;

/* A host of -host/-H/-hosts or a hostfile, with its slots (ranks per round). */
typedef struct ivcrun_host {
    char *name;
    uint32_t slots;
} ivcrun_host_t;

enum { IVCRUN_TAG_NONE = 0, IVCRUN_TAG_RANK, IVCRUN_TAG_OMPI }; /* "[r] ", "[1,r]<stdout>:" */
enum { IVCRUN_BIND_NONE = 0, IVCRUN_BIND_HWTHREAD, IVCRUN_BIND_CORE, IVCRUN_BIND_SOCKET };
enum { IVCRUN_MAP_SLOT = 0, IVCRUN_MAP_NODE };

/* --migrate VM:HOST@SECONDS (migrate.h). */
typedef struct ivcrun_move {
    uint32_t vm, host;
    uint64_t at_ms; /* after the ranks started */
} ivcrun_move_t;

#define IVCRUN_SHARE_MAX 8

typedef struct ivcrun_opts {
    uint32_t nranks;       /* -n/-np N (the sum over the apps) */
    uint32_t nvms;         /* --vms M, 1..N; defaults to N */
    int no_ns;             /* --no-ns: plain processes */
    int tag_output;        /* IVCRUN_TAG_*: -l/-prepend-rank, --tag-output */
    int keep_region;       /* --keep-region */
    int vm_net;            /* --net: the VMs of one host get eth0 on a bridge too */
    int no_cleanup;        /* --disable-auto-cleanup, --with-ft ulfm: a failed rank does not
                            * stop the others (fault-tolerant programs) */
    uint32_t universe;     /* --universe-size N; 0: nranks (MPI_UNIVERSE_SIZE) */
    int dyn_parent;        /* --dyn-parent FD (internal): the spawning ivcrun's socket; -1 */
    uint64_t region_size;  /* --region-size; 0: IVC_REGION_SIZE or the default for N ranks */
    uint32_t timeout_s;    /* --timeout SEC; 0: none */
    const char *join;      /* --join FILE: run part of a job whose region FILE exists */
    uint64_t job_id;       /* --job ID (with --join) */
    uint32_t world;        /* --world W (with --join; default: the region's) */
    uint32_t first_rank;   /* --first-rank F: this launch runs ranks F..F+N-1 */
    uint32_t hosts;        /* --hosts H: simulated hosts (>= 1), each with its own region */
    uint32_t vms_per_host; /* nvms / hosts */
    char **argv;           /* the first app's program and arguments, NULL-terminated */

    ivcrun_app_t *apps; /* the programs, in rank order */
    uint32_t napps;
    ivcrun_env_t genv;     /* -genv, -genvall, -genvnone, -genvlist, -x */
    ivcrun_host_t *hostv;  /* -host/-hosts/-H and hostfile entries, in order */
    uint32_t nhostv;
    int hosts_as_hosts;    /* --host-map hosts: names become simulated hosts, not VMs */
    uint32_t ppn;          /* -ppn/-npernode/--map-by ppr:N:node; 0: by slots */
    int map_by;            /* IVCRUN_MAP_* */
    uint32_t *rank_vm;     /* per rank: its VM, from the host list or -ppn; NULL: blocks */
    int bind;              /* IVCRUN_BIND_*: -bind-to */
    int report_bindings;   /* --report-bindings */
    const char *outfile;   /* -outfile-pattern (%r rank, %h host) */
    const char *errfile;   /* -errfile-pattern */
    int verbose;           /* -v: where each rank runs, and its channel per peer */
    ivcrun_move_t *moves;  /* --migrate, sorted by time */
    uint32_t nmoves;
    const char *share[IVCRUN_SHARE_MAX]; /* --share DIR, then IVC_SHARE's entries: directories
                                          * every simulated VM sees (canonical paths) */
    uint32_t nshare;
} ivcrun_opts_t;

/* Parses argv into *o. Returns 0 to run a job, 1 when --help or --version was printed
 * (exit 0), or -EINVAL after printing a usage error to stderr (exit 2). May write NULL
 * over the ":" separators of argv (ending each app's argument list). */
int ivcrun_opts_parse(int argc, char **argv, ivcrun_opts_t *o);

/* Releases what ivcrun_opts_parse() allocated. */
void ivcrun_opts_free(ivcrun_opts_t *o);

/* Parses a byte count with an optional K, M or G suffix (powers of 1024), as the IVC_*
 * size tunables are. Returns 0 or -EINVAL/-ERANGE (nothing printed). */
int ivcrun_parse_size(const char *text, uint64_t *out);

/* The app that runs this launch's rank `r`. */
static inline const ivcrun_app_t *ivcrun_app_of(const ivcrun_opts_t *o, uint32_t r)
{
    uint32_t a = 0;
    while (a + 1 < o->napps && r >= o->apps[a + 1].first)
        a++;
    return &o->apps[a];
}

#endif
