#include "coord_report.h"

#include "coord.h"
#include "self_chan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const ivc_cfg_entry_t report_entries[] = {
    {"REPORT_MAP", "0",
     "1: each rank prints at start-up where it runs and which channel reaches each peer "
     "(ivcrun -v sets it)",
     IVC_CFG_BOOL, 0, 1, offsetof(ivc_coord_report_config_t, map)},
    {"REPORT_HOST", "",
     "the simulated host named in that line (ivcrun -v sets it); empty: none named",
     IVC_CFG_STRING, 0, 0, offsetof(ivc_coord_report_config_t, host)},
};

const ivc_cfg_table_t ivc_report_config_table = {
    "start-up report", report_entries, sizeof(report_entries) / sizeof(report_entries[0])};

char *ivc_coord_report_ranges(const uint32_t *ranks, uint32_t n, char *buf, size_t len)
{
    size_t at = strlen(buf);
    for (uint32_t i = 0; i < n && at < len; i++) {
        uint32_t j = i;
        while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
            j++;
        int w = j == i ? snprintf(buf + at, len - at, "%s%u", i ? "," : "", ranks[i])
                       : snprintf(buf + at, len - at, "%s%u-%u", i ? "," : "", ranks[i], ranks[j]);
        at += w > 0 ? (size_t)w : 0;
        i = j;
    }
    return buf;
}

/* "shm 0-3" for the peers (this rank left out) whose VC uses `ops`; "" when none. */
static void add_kind(const ivc_coord_t *c, const ivc_chan_ops_t *ops, const char *name,
                     uint32_t *tmp, char *line, size_t len)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < c->boot.size; r++)
        if (r != c->boot.rank && c->vcs[r].ops == ops)
            tmp[n++] = r;
    if (n == 0)
        return;
    size_t at = strlen(line);
    snprintf(line + at, len - at, "%s%s ", line[at - 1] == ':' ? " " : ", ", name);
    ivc_coord_report_ranges(tmp, n, line, len);
}

void ivc_coord_report(const ivc_coord_t *c)
{
    ivc_coord_report_config_t cfg;
    if (ivc_cfg_load(&ivc_report_config_table, &cfg) != 0 || !cfg.map)
        return;
    char host[64] = "?";
    if (gethostname(host, sizeof(host)) != 0)
        snprintf(host, sizeof(host), "?");
    host[sizeof(host) - 1] = '\0';
    size_t len = 256 + 16 * (size_t)c->boot.size;
    char *line = malloc(len);
    uint32_t *tmp = malloc(c->boot.size * sizeof(*tmp));
    if (line == NULL || tmp == NULL)
        goto out;
    int n = snprintf(line, len, "ivc: rank %u on %s (", c->boot.rank, host);
    if (cfg.host != NULL && cfg.host[0] != '\0')
        n += snprintf(line + n, len - (size_t)n, "host %s, ", cfg.host);
    snprintf(line + n, len - (size_t)n, "%s%s):", c->boot.singleton ? "" : "region ",
             c->boot.singleton ? "no region: a singleton" : c->region.path);
    add_kind(c, &ivc_shm_chan_ops, "shm", tmp, line, len);
    add_kind(c, &ivc_net_chan_ops, "net", tmp, line, len);
    /* A peer without a channel would be a bug to report, not to hide. */
    uint32_t none = 0;
    for (uint32_t r = 0; r < c->boot.size; r++)
        if (r != c->boot.rank && c->vcs[r].ops == NULL)
            tmp[none++] = r;
    if (none > 0) {
        size_t at = strlen(line);
        snprintf(line + at, len - at, "%sunreachable ", line[at - 1] == ':' ? " " : ", ");
        ivc_coord_report_ranges(tmp, none, line, len);
    }
    if (line[strlen(line) - 1] == ':')
        snprintf(line + strlen(line), len - strlen(line), " no peers");
    /* One write, so that the lines of ranks sharing stderr do not mix. */
    size_t at = strlen(line);
    if (at + 1 < len) {
        line[at++] = '\n';
        ssize_t w = write(2, line, at);
        (void)w;
    }
out:
    free(line);
    free(tmp);
}
