/* ivcrun's command line. */
#ifndef IVCRUN_OPTS_H
#define IVCRUN_OPTS_H

#include <stdint.h>

typedef struct ivcrun_opts {
    uint32_t nranks;       /* -n/-np N */
    uint32_t nvms;         /* --vms M, 1..N; defaults to N */
    int no_ns;             /* --no-ns: plain processes */
    int tag_output;        /* -l/--tag-output */
    int keep_region;       /* --keep-region */
    int no_cleanup;        /* --disable-auto-cleanup, --with-ft ulfm: a failed rank does not
                            * stop the others (fault-tolerant programs) */
    uint64_t region_size;  /* --region-size; 0: IVC_REGION_SIZE or the default for N ranks */
    uint32_t timeout_s;    /* --timeout SEC; 0: none */
    const char *join;      /* --join FILE: run part of a job whose region FILE exists */
    uint64_t job_id;       /* --job ID (with --join) */
    uint32_t world;        /* --world W (with --join; default: the region's) */
    uint32_t first_rank;   /* --first-rank F: this launch runs ranks F..F+N-1 */
    uint32_t hosts;        /* --hosts H: simulated hosts (>= 1), each with its own region */
    uint32_t vms_per_host; /* nvms / hosts */
    char **argv;           /* the program and its arguments, NULL-terminated */
} ivcrun_opts_t;

/* Parses argv into *o. Returns 0 to run a job, 1 when --help or --version was printed
 * (exit 0), or -EINVAL after printing a usage error to stderr (exit 2). */
int ivcrun_opts_parse(int argc, char **argv, ivcrun_opts_t *o);

/* Parses a byte count with an optional K, M or G suffix (powers of 1024), as the IVC_*
 * size tunables are. Returns 0 or -EINVAL/-ERANGE (nothing printed). */
int ivcrun_parse_size(const char *text, uint64_t *out);

#endif
