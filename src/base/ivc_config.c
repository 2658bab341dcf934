#include "ivc_config.h"
#include "ivc_log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

/* An unsigned integer (decimal, 0x hex or 0 octal); with_suffix: a size, optionally followed
 * by K, M, G or T (powers of 1024, any case), itself optionally followed by B or iB.
 * Returns 0, -EINVAL (not a number or a size) or -ERANGE (does not fit 64 bits). */
static int parse_u64(const char *s, int with_suffix, uint64_t *out)
{
    char *end;
    if (*s == '\0' || *s == '-' || *s == '+' || *s == ' ' || *s == '\t')
        return -EINVAL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (end == s)
        return -EINVAL;
    if (errno == ERANGE)
        return -ERANGE;
    if (errno != 0)
        return -EINVAL;
    if (with_suffix && *end != '\0') {
        unsigned shift;
        switch (*end) {
        case 'k':
        case 'K': shift = 10; break;
        case 'm':
        case 'M': shift = 20; break;
        case 'g':
        case 'G': shift = 30; break;
        case 't':
        case 'T': shift = 40; break;
        default: return -EINVAL;
        }
        end++;
        if (*end == 'i' && (end[1] == 'b' || end[1] == 'B'))
            end++;
        if (*end == 'b' || *end == 'B')
            end++;
        if (*end != '\0')
            return -EINVAL;
        if (v > (UINT64_MAX >> shift))
            return -ERANGE;
        v <<= shift;
    }
    if (*end != '\0')
        return -EINVAL;
    *out = v;
    return 0;
}

const char *ivc_cfg_size_syntax(void)
{
    return "a size in bytes, optionally with a suffix K, M, G or T (powers of 1024, e.g. 64K, "
           "4M, 1G, 1T; KB and KiB are the same as K)";
}

char *ivc_cfg_size_str(uint64_t v, char *buf, size_t len)
{
    static const char suffix[] = "KMGT";
    int k = -1;
    while (k < 3 && v != 0 && (v & 1023) == 0) {
        v >>= 10;
        k++;
    }
    if (k < 0)
        snprintf(buf, len, "%" PRIu64, v);
    else
        snprintf(buf, len, "%" PRIu64 "%c", v, suffix[k]);
    return buf;
}

int ivc_cfg_parse_value(const ivc_cfg_entry_t *e, const char *text, void *field)
{
    switch (e->type) {
    case IVC_CFG_SIZE:
    case IVC_CFG_UINT: {
        uint64_t v;
        int rc = parse_u64(text, e->type == IVC_CFG_SIZE, &v);
        if (rc != 0)
            return rc;
        if (v < e->min || v > e->max)
            return -ERANGE;
        *(uint64_t *)field = v;
        return 0;
    }
    case IVC_CFG_BOOL:
        if (!strcasecmp(text, "1") || !strcasecmp(text, "yes") || !strcasecmp(text, "on") ||
            !strcasecmp(text, "true") || !strcasecmp(text, "y")) {
            *(int *)field = 1;
            return 0;
        }
        if (!strcasecmp(text, "0") || !strcasecmp(text, "no") || !strcasecmp(text, "off") ||
            !strcasecmp(text, "false") || !strcasecmp(text, "n")) {
            *(int *)field = 0;
            return 0;
        }
        return -EINVAL;
    case IVC_CFG_STRING: *(const char **)field = text; return 0;
    }
    return -EINVAL;
}

int ivc_cfg_load(const ivc_cfg_table_t *table, void *out)
{
    for (size_t i = 0; i < table->count; i++) {
        const ivc_cfg_entry_t *e = &table->entries[i];
        char var[128];
        snprintf(var, sizeof(var), "IVC_%s", e->name);
        const char *text = getenv(var);
        void *field = (char *)out + e->offset;
        if (text == NULL || *text == '\0') {
            int rc = ivc_cfg_parse_value(e, e->dflt, field);
            if (rc != 0) {
                ivc_error("internal: bad default '%s' for %s", e->dflt, var);
                return -EINVAL;
            }
            continue;
        }
        int rc = ivc_cfg_parse_value(e, text, field);
        if (rc == -ERANGE && e->type == IVC_CFG_SIZE) {
            char lo[32], hi[32];
            ivc_error("%s=%s is out of range: sizes from %s to %s (%s)", var, text,
                      ivc_cfg_size_str(e->min, lo, sizeof(lo)),
                      ivc_cfg_size_str(e->max, hi, sizeof(hi)), e->help);
            return -EINVAL;
        }
        if (rc == -ERANGE) {
            ivc_error("%s=%s is out of range [%" PRIu64 ", %" PRIu64 "] (%s)", var, text, e->min,
                      e->max, e->help);
            return -EINVAL;
        }
        if (rc != 0) {
            const char *what = e->type == IVC_CFG_SIZE   ? ivc_cfg_size_syntax()
                               : e->type == IVC_CFG_UINT ? "an unsigned integer"
                               : e->type == IVC_CFG_BOOL ? "a boolean (yes/no, on/off, 1/0)"
                                                         : "text";
            ivc_error("%s=%s is not %s (%s)", var, text, what, e->help);
            return -EINVAL;
        }
    }
    return 0;
}

void ivc_cfg_print(FILE *f, const ivc_cfg_table_t *table, const void *values)
{
    fprintf(f, "# %s\n", table->layer);
    for (size_t i = 0; i < table->count; i++) {
        const ivc_cfg_entry_t *e = &table->entries[i];
        const void *field = (const char *)values + e->offset;
        char val[256];
        switch (e->type) {
        case IVC_CFG_SIZE: ivc_cfg_size_str(*(const uint64_t *)field, val, sizeof(val)); break;
        case IVC_CFG_UINT: snprintf(val, sizeof(val), "%" PRIu64, *(const uint64_t *)field); break;
        case IVC_CFG_BOOL:
            snprintf(val, sizeof(val), "%s", *(const int *)field ? "yes" : "no");
            break;
        case IVC_CFG_STRING: snprintf(val, sizeof(val), "%s", *(const char *const *)field); break;
        }
        char lhs[300];
        snprintf(lhs, sizeof(lhs), "IVC_%s=%s", e->name, val);
        fprintf(f, "%-36s # %s (default: %s)\n", lhs, e->help, e->dflt);
    }
}

void ivc_cfg_warn_unknown(const ivc_cfg_table_t *const *tables, const char *const *extra)
{
    for (char **ep = environ; ep && *ep; ep++) {
        const char *kv = *ep;
        if (strncmp(kv, "IVC_", 4) != 0)
            continue;
        const char *eq = strchr(kv, '=');
        size_t len = eq ? (size_t)(eq - kv) - 4 : strlen(kv) - 4;
        const char *name = kv + 4;
        int known = 0;
        for (size_t t = 0; tables[t] && !known; t++)
            for (size_t i = 0; i < tables[t]->count && !known; i++)
                known = strlen(tables[t]->entries[i].name) == len &&
                        !strncmp(tables[t]->entries[i].name, name, len);
        for (size_t i = 0; extra && extra[i] && !known; i++)
            known = strlen(extra[i]) == len && !strncmp(extra[i], name, len);
        if (!known)
            ivc_warn("unknown variable IVC_%.*s ignored (ivc-info lists the tunables)", (int)len,
                     name);
    }
}
