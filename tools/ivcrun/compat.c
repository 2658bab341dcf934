#define _GNU_SOURCE
#include "compat.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define bad         ivcrun_opts_bad
#define is          ivcrun_opt_is
#define match_value ivcrun_opt_value

#define MAX_SLOTS 65536u

/* Strings the options allocate, freed together by compat_free() (opts live until exit,
 * but the sanitizer pass counts leaks). */
static void **allocs;
static size_t nallocs, allocs_cap;

static void *keep(void *p)
{
    if (p == NULL)
        return NULL;
    if (nallocs == allocs_cap) {
        size_t cap = allocs_cap ? 2 * allocs_cap : 16;
        void **n = realloc(allocs, cap * sizeof(*n));
        if (n == NULL) {
            free(p);
            return NULL;
        }
        allocs = n;
        allocs_cap = cap;
    }
    return allocs[nallocs++] = p;
}

void compat_free(ivcrun_opts_t *o)
{
    for (size_t i = 0; i < nallocs; i++)
        free(allocs[i]);
    free(allocs);
    allocs = NULL;
    nallocs = allocs_cap = 0;
    free(o->hostv);
    free(o->genv.vars);
    o->hostv = NULL;
    o->genv.vars = NULL;
    o->rank_vm = NULL; /* one of allocs */
    /* The apps' table has room for one more than napps: the section being parsed. */
    for (uint32_t k = 0; o->apps != NULL && k <= o->napps; k++) {
        free(o->apps[k].env.vars);
        o->apps[k].env.vars = NULL;
    }
}

/* ---- environment: -genv, -env, -x, -genvlist ---- */

/* Adds "NAME=VALUE" (value non-NULL) or "NAME" (pass ivcrun's value on) to `e`. */
static int env_add(ivcrun_env_t *e, const char *opt, const char *name, size_t len,
                   const char *value)
{
    if (len == 0 || memchr(name, '=', len) != NULL)
        return bad("%s needs a variable name, got '%.*s'", opt, (int)len, name);
    char *s = NULL;
    if (value != NULL) {
        if (asprintf(&s, "%.*s=%s", (int)len, name, value) < 0)
            s = NULL;
    } else {
        s = strndup(name, len);
    }
    char **vars = realloc(e->vars, (e->nvars + 1) * sizeof(*vars));
    if (vars != NULL)
        e->vars = vars; /* freed by compat_free() */
    if (s == NULL || vars == NULL) {
        free(s);
        return bad("out of memory");
    }
    e->vars[e->nvars++] = keep(s);
    return 0;
}

/* -genv NAME VALUE (also NAME=VALUE): the value is the next argument. */
static int env_set(ivcrun_env_t *e, const char *opt, const char *v, int argc, char **argv,
                   int *ip)
{
    if (v == NULL)
        return bad("%s needs NAME VALUE", opt);
    const char *eq = strchr(v, '=');
    if (eq != NULL)
        return env_add(e, opt, v, (size_t)(eq - v), eq + 1);
    if (*ip + 1 >= argc)
        return bad("%s %s needs a value", opt, v);
    return env_add(e, opt, v, strlen(v), argv[++*ip]);
}

/* -genvlist A,B: only these of ivcrun's variables. */
static int env_list(ivcrun_env_t *e, const char *opt, const char *v)
{
    if (v == NULL || *v == '\0')
        return bad("%s needs a comma-separated list of variable names", opt);
    e->prop = IVCRUN_ENV_LIST;
    for (const char *p = v; *p;) {
        size_t len = strcspn(p, ",");
        if (len > 0) {
            int rc = env_add(e, opt, p, len, NULL);
            if (rc != 0)
                return rc;
        }
        p += len + (p[len] == ',');
    }
    return 0;
}

/* ---- hosts: -host, -hosts, -H, hostfiles ---- */

static int host_add(ivcrun_opts_t *o, const char *name, size_t len, uint32_t slots)
{
    ivcrun_host_t *h = realloc(o->hostv, (o->nhostv + 1) * sizeof(*h));
    char *s = strndup(name, len);
    if (h != NULL)
        o->hostv = h; /* freed by compat_free() */
    if (h == NULL || s == NULL) {
        free(s);
        return bad("out of memory");
    }
    o->hostv[o->nhostv++] = (ivcrun_host_t){keep(s), slots};
    return 0;
}

/* "name" or "name:N" (Hydra and Open MPI). */
static int host_entry(ivcrun_opts_t *o, const char *opt, const char *p, size_t len)
{
    const char *colon = memchr(p, ':', len);
    uint64_t slots = 1;
    if (colon != NULL) {
        char num[24];
        size_t nlen = len - (size_t)(colon + 1 - p);
        snprintf(num, sizeof(num), "%.*s", (int)(nlen < sizeof(num) ? nlen : sizeof(num) - 1),
                 colon + 1);
        if (nlen >= sizeof(num) || ivcrun_parse_uint(num, 1, MAX_SLOTS, &slots) != 0)
            return bad("%s: '%.*s': slots after ':' must be a number >= 1", opt, (int)len, p);
        len = (size_t)(colon - p);
    }
    if (len == 0)
        return bad("%s: empty host name", opt);
    return host_add(o, p, len, (uint32_t)slots);
}

int compat_host_list(ivcrun_opts_t *o, const char *opt, const char *list)
{
    if (list == NULL || *list == '\0')
        return bad("%s needs a comma-separated list of hosts", opt);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        int rc = len ? host_entry(o, opt, p, len) : 0;
        if (rc != 0)
            return rc;
        p += len + (p[len] == ',');
    }
    return 0;
}

/* Hydra's "name[:N]" and Open MPI's "name [slots=N] [max_slots=M]" lines; '#' comments. */
static int hostfile(ivcrun_opts_t *o, const char *opt, const char *path)
{
    if (path == NULL || *path == '\0')
        return bad("%s needs a host file", opt);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return bad("%s %s: %s", opt, path, strerror(errno));
    char line[1024];
    int lineno = 0, rc = 0;
    uint32_t before = o->nhostv;
    while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        line[strcspn(line, "#\r\n")] = '\0';
        char *save, *tok = strtok_r(line, " \t", &save);
        if (tok == NULL)
            continue;
        char where[PATH_MAX + 32];
        snprintf(where, sizeof(where), "%s:%d", path, lineno);
        if ((rc = host_entry(o, where, tok, strlen(tok))) != 0)
            break;
        while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
            uint64_t n;
            if (!strncmp(tok, "slots=", 6)) {
                if (ivcrun_parse_uint(tok + 6, 1, MAX_SLOTS, &n) != 0) {
                    rc = bad("%s: '%s' needs a number >= 1", where, tok);
                    break;
                }
                o->hostv[o->nhostv - 1].slots = (uint32_t)n;
            } else if (strchr(tok, '=') == NULL) {
                /* max_slots=, ifhn= and the like steer a real launch: ignored. */
                rc = bad("%s: cannot read '%s' (expected 'name', 'name:N' or 'name slots=N')",
                         where, tok);
                break;
            }
        }
    }
    fclose(f);
    if (rc == 0 && o->nhostv == before)
        rc = bad("%s %s: no hosts in it", opt, path);
    return rc;
}

uint32_t compat_total_slots(const ivcrun_opts_t *o)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < o->nhostv; i++)
        sum += o->hostv[i].slots;
    return sum > 65536 ? 65536 : (uint32_t)sum;
}

/* ---- mapping and binding ---- */

/* "core", "core:overload-allowed" (modifiers ignored): the word before ':'. */
static int word_is(const char *v, const char *w)
{
    size_t len = strcspn(v, ":");
    return strlen(w) == len && !strncasecmp(v, w, len);
}

static int map_by(ivcrun_opts_t *o, const char *opt, const char *v)
{
    uint64_t n;
    if (v == NULL)
        return bad("%s needs a policy (slot, core, node or ppr:N:node)", opt);
    if (word_is(v, "ppr")) {
        const char *num = v + 4, *colon = strchr(num, ':');
        char buf[24];
        snprintf(buf, sizeof(buf), "%.*s", colon ? (int)(colon - num) : 0, num);
        if (colon == NULL || ivcrun_parse_uint(buf, 1, MAX_SLOTS, &n) != 0)
            return bad("%s %s: expected ppr:N:node", opt, v);
        if (!word_is(colon + 1, "node"))
            return bad("%s %s: IVC places ranks per host (ppr:N:node); for CPUs use -bind-to",
                       opt, v);
        o->ppn = (uint32_t)n;
    } else if (word_is(v, "node")) {
        o->map_by = IVCRUN_MAP_NODE;
    } else if (word_is(v, "slot") || word_is(v, "core") || word_is(v, "hwthread") ||
               word_is(v, "socket") || word_is(v, "numa") || word_is(v, "package")) {
        o->map_by = IVCRUN_MAP_SLOT; /* one host's slots first; CPUs come from -bind-to */
    } else {
        return bad("%s %s: accepted are slot, core, hwthread, socket, node and ppr:N:node", opt,
                   v);
    }
    return 0;
}

static int bind_to(ivcrun_opts_t *o, const char *opt, const char *v)
{
    if (v == NULL)
        return bad("%s needs core, hwthread, socket or none", opt);
    if (word_is(v, "none"))
        o->bind = IVCRUN_BIND_NONE;
    else if (word_is(v, "core") || word_is(v, "cores"))
        o->bind = IVCRUN_BIND_CORE;
    else if (word_is(v, "hwthread") || word_is(v, "hwthreads") || word_is(v, "cpu"))
        o->bind = IVCRUN_BIND_HWTHREAD;
    else if (word_is(v, "socket") || word_is(v, "sockets") || word_is(v, "package"))
        o->bind = IVCRUN_BIND_SOCKET;
    else
        return bad("%s %s: IVC binds to core, hwthread or socket (or none)", opt, v);
    return 0;
}

/* Options that steer how a launcher reaches remote hosts: IVC starts every rank here, so
 * each is accepted with a note naming what does the job in IVC. */
static const struct {
    const char *name;
    int nvalues;
    const char *why;
} ignored[] = {
    {"mca", 2, "Open MPI's MCA parameters mean nothing to IVC (its tunables are IVC_* "
               "variables: ivc-info lists them)"},
    {"gmca", 2, "Open MPI's MCA parameters mean nothing to IVC (ivc-info lists IVC_*)"},
    {"prefix", 1, "the ranks use the libraries the program was linked with"},
    {"launcher", 1, "ivcrun starts every rank on this machine"},
    {"bootstrap", 1, "ivcrun starts every rank on this machine"},
    {"launcher-exec", 1, "ivcrun starts every rank on this machine"},
    {"bootstrap-exec", 1, "ivcrun starts every rank on this machine"},
    {"rmk", 1, "ivcrun starts every rank on this machine"},
    {"iface", 1, "the network channel's interface is UCX_NET_DEVICES"},
    {"netif", 1, "the network channel's interface is UCX_NET_DEVICES"},
};

/* No effect in IVC and nothing to say: a rank never lacks a slot. */
static const char *const no_ops[] = {"oversubscribe", "allow-run-as-root", "nooversubscribe",
                                     "use-hwthread-cpus", "byslot", "bycore", NULL};

int compat_parse_one(int argc, char **argv, int *ip, ivcrun_opts_t *o, ivcrun_app_t *app)
{
    const char *a = argv[*ip], *v;
    int rc = 0;
    for (int k = 0; no_ops[k] != NULL; k++)
        if (is(a, no_ops[k]))
            return 1;
    if (is(a, "bynode")) {
        o->map_by = IVCRUN_MAP_NODE;
    } else if (is(a, "genvall") || is(a, "envall")) {
        (is(a, "genvall") ? &o->genv : &app->env)->prop = IVCRUN_ENV_ALL;
    } else if (is(a, "genvnone") || is(a, "envnone")) {
        (is(a, "genvnone") ? &o->genv : &app->env)->prop = IVCRUN_ENV_NONE;
    } else if (match_value("genvlist", argc, argv, ip, &v)) {
        rc = env_list(&o->genv, "-genvlist", v);
    } else if (match_value("envlist", argc, argv, ip, &v)) {
        rc = env_list(&app->env, "-envlist", v);
    } else if (match_value("genv", argc, argv, ip, &v)) {
        rc = env_set(&o->genv, "-genv", v, argc, argv, ip);
    } else if (match_value("env", argc, argv, ip, &v)) {
        rc = env_set(&app->env, "-env", v, argc, argv, ip);
    } else if (match_value("x", argc, argv, ip, &v)) {
        /* Open MPI: -x NAME=VALUE sets it, -x NAME passes ivcrun's value on. */
        if (v == NULL)
            return bad("-x needs NAME or NAME=VALUE");
        const char *eq = strchr(v, '=');
        rc = env_add(&o->genv, "-x", v, eq ? (size_t)(eq - v) : strlen(v), eq ? eq + 1 : NULL);
    } else if (match_value("host", argc, argv, ip, &v) || match_value("H", argc, argv, ip, &v)) {
        rc = compat_host_list(o, "-host", v);
    } else if (match_value("f", argc, argv, ip, &v) ||
               match_value("hostfile", argc, argv, ip, &v) ||
               match_value("machinefile", argc, argv, ip, &v) ||
               match_value("default-hostfile", argc, argv, ip, &v)) {
        rc = hostfile(o, "-f", v);
    } else if (match_value("host-map", argc, argv, ip, &v)) {
        if (v == NULL || (strcmp(v, "vms") && strcmp(v, "hosts")))
            return bad("--host-map takes 'vms' or 'hosts', got '%s'", v ? v : "");
        o->hosts_as_hosts = !strcmp(v, "hosts");
    } else if (match_value("ppn", argc, argv, ip, &v) ||
               match_value("npernode", argc, argv, ip, &v) ||
               match_value("N", argc, argv, ip, &v)) {
        uint64_t n;
        if (ivcrun_parse_uint(v, 1, MAX_SLOTS, &n) != 0)
            return bad("-ppn needs a number of ranks per host >= 1, got '%s'", v ? v : "");
        o->ppn = (uint32_t)n;
    } else if (match_value("map-by", argc, argv, ip, &v)) {
        rc = map_by(o, "--map-by", v);
    } else if (match_value("bind-to", argc, argv, ip, &v)) {
        rc = bind_to(o, "-bind-to", v);
    } else if (is(a, "bind-to-core")) {
        o->bind = IVCRUN_BIND_CORE;
    } else if (is(a, "bind-to-socket")) {
        o->bind = IVCRUN_BIND_SOCKET;
    } else if (is(a, "report-bindings")) {
        o->report_bindings = 1;
    } else if (match_value("wdir", argc, argv, ip, &v) || match_value("wd", argc, argv, ip, &v)) {
        if (v == NULL || *v == '\0')
            return bad("-wdir needs a directory");
        app->wdir = v;
    } else if (match_value("outfile-pattern", argc, argv, ip, &v) ||
               match_value("outfile", argc, argv, ip, &v)) {
        if (v == NULL || *v == '\0')
            return bad("-outfile-pattern needs a file name pattern");
        o->outfile = v;
    } else if (match_value("errfile-pattern", argc, argv, ip, &v) ||
               match_value("errfile", argc, argv, ip, &v)) {
        if (v == NULL || *v == '\0')
            return bad("-errfile-pattern needs a file name pattern");
        o->errfile = v;
    } else {
        for (size_t k = 0; k < sizeof(ignored) / sizeof(ignored[0]); k++) {
            if (!match_value(ignored[k].name, argc, argv, ip, &v))
                continue;
            const char *v2 = NULL;
            if (v != NULL && ignored[k].nvalues == 2)
                v2 = *ip + 1 < argc ? argv[++*ip] : NULL;
            if (v == NULL || (ignored[k].nvalues == 2 && v2 == NULL))
                return bad("%s needs %s", a, ignored[k].nvalues == 2 ? "NAME VALUE" : "a value");
            fprintf(stderr, "ivcrun: note: ignoring %.*s %s%s%s: %s\n",
                    (int)strcspn(a, "="), a, v, v2 ? " " : "", v2 ? v2 : "", ignored[k].why);
            return 1;
        }
        return 0;
    }
    return rc < 0 ? rc : 1;
}

/* ---- layout ---- */

static int alloc_rank_vm(ivcrun_opts_t *o)
{
    o->rank_vm = keep(calloc(o->nranks, sizeof(*o->rank_vm)));
    return o->rank_vm != NULL ? 0 : bad("out of memory");
}

static int place_hosts(ivcrun_opts_t *o)
{
    if (o->join != NULL)
        return bad("a host list (-host, -f) does not go with --join");
    if (o->nvms != 0)
        return bad("--vms and a host list do not go together: each host name is a VM");
    if (o->hosts != 0)
        return bad("--hosts and a host list do not go together (--host-map hosts makes each "
                   "host name a simulated host)");
    uint32_t e = o->nhostv, n = o->nranks;
    uint32_t *idx = calloc(e, sizeof(*idx)), *vm_of = calloc(e, sizeof(*vm_of));
    if (idx == NULL || vm_of == NULL || alloc_rank_vm(o) != 0) {
        free(idx);
        free(vm_of);
        return -ENOMEM;
    }
    /* Distinct names in order of first appearance. */
    uint32_t ndistinct = 0;
    for (uint32_t i = 0; i < e; i++) {
        uint32_t j = 0;
        while (j < i && strcmp(o->hostv[j].name, o->hostv[i].name) != 0)
            j++;
        idx[i] = j < i ? idx[j] : ndistinct++;
    }
    /* Round robin over the entries: each takes its slots (or -ppn, or one by node). */
    for (uint32_t r = 0; r < n;) {
        for (uint32_t i = 0; i < e && r < n; i++) {
            uint32_t take = o->ppn               ? o->ppn
                            : o->map_by == IVCRUN_MAP_NODE ? 1
                                                           : o->hostv[i].slots;
            for (uint32_t t = 0; t < take && r < n; t++)
                o->rank_vm[r++] = idx[i];
        }
    }
    /* Hosts that got no rank get no VM; the others keep their order. */
    for (uint32_t d = 0; d < ndistinct; d++)
        vm_of[d] = UINT32_MAX;
    for (uint32_t r = 0; r < n; r++)
        vm_of[o->rank_vm[r]] = 0;
    uint32_t nvms = 0;
    for (uint32_t d = 0; d < ndistinct; d++)
        if (vm_of[d] == 0)
            vm_of[d] = nvms++;
    for (uint32_t r = 0; r < n; r++)
        o->rank_vm[r] = vm_of[o->rank_vm[r]];
    free(idx);
    free(vm_of);
    o->nvms = nvms;
    if (o->hosts_as_hosts) {
        o->hosts = nvms;
        o->vms_per_host = 0;
    }
    return 0;
}

int compat_place(ivcrun_opts_t *o)
{
    if (o->nhostv > 0)
        return place_hosts(o);
    if (o->hosts_as_hosts)
        return bad("--host-map goes with a host list (-host, -f)");
    if (o->ppn == 0)
        return 0;
    /* Without a host list, -ppn P means P ranks per VM. */
    uint32_t nvms = (o->nranks + o->ppn - 1) / o->ppn;
    if (o->nvms != 0 && o->nvms != nvms)
        return bad("-ppn %u makes %u VMs of the %u ranks, but --vms says %u", o->ppn, nvms,
                   o->nranks, o->nvms);
    o->nvms = nvms;
    if (alloc_rank_vm(o) != 0)
        return -ENOMEM;
    for (uint32_t r = 0; r < o->nranks; r++)
        o->rank_vm[r] = r / o->ppn;
    return 0;
}

int compat_place_round_robin(ivcrun_opts_t *o)
{
    if (o->map_by != IVCRUN_MAP_NODE || o->rank_vm != NULL || o->nvms >= o->nranks)
        return 0;
    if (alloc_rank_vm(o) != 0)
        return -ENOMEM;
    for (uint32_t r = 0; r < o->nranks; r++)
        o->rank_vm[r] = r % o->nvms;
    return 0;
}

/* %r, %h and %% only (Hydra's %g and %p name process groups and proxies IVC has not). */
static int check_pattern(const char *opt, const char *p)
{
    for (const char *c = p; c != NULL && *c; c++) {
        if (*c != '%')
            continue;
        c++;
        if (*c != 'r' && *c != 'h' && *c != '%')
            return bad("%s %s: only %%r (rank), %%h (host name) and %%%% may follow '%%'", opt,
                       p);
    }
    return 0;
}

int compat_check(ivcrun_opts_t *o)
{
    int rc;
    if ((rc = check_pattern("-outfile-pattern", o->outfile)) != 0 ||
        (rc = check_pattern("-errfile-pattern", o->errfile)) != 0)
        return rc;
    /* Working directories: absolute (ranks resolve them wherever they start), existing, and
     * visible in a simulated VM. */
    for (uint32_t k = 0; k < o->napps; k++) {
        ivcrun_app_t *app = &o->apps[k];
        if (app->wdir == NULL)
            continue;
        if (k > 0 && app->wdir == o->apps[0].wdir) {
            continue; /* shared with the first program: already resolved */
        }
        char *abs = realpath(app->wdir, NULL);
        struct stat st;
        if (abs == NULL || stat(abs, &st) != 0 || !S_ISDIR(st.st_mode)) {
            int err = abs == NULL ? errno : ENOTDIR;
            free(abs);
            return bad("-wdir %s: %s", app->wdir, strerror(err));
        }
        if (!o->no_ns && !strncmp(abs, "/dev/shm", 8) && (abs[8] == '/' || abs[8] == '\0')) {
            free(abs);
            return bad("-wdir %s: a simulated VM sees only its own /dev/shm; use another "
                       "directory (or --no-ns)",
                       app->wdir);
        }
        const char *prev = app->wdir;
        app->wdir = keep(abs);
        for (uint32_t j = k + 1; j < o->napps; j++)
            if (o->apps[j].wdir == prev)
                o->apps[j].wdir = app->wdir;
    }
    return 0;
}
