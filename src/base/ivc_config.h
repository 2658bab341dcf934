/* Tunables: every one is a row {name, default, help} of a per-layer table, read from an
 * IVC_<NAME> environment variable and checked at start-up (UCX config tables). */
#ifndef IVC_CONFIG_H
#define IVC_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    IVC_CFG_SIZE,  /* bytes; accepts suffixes K, M, G, T (powers of 1024; KB, KiB alike) */
    IVC_CFG_UINT,  /* unsigned integer */
    IVC_CFG_BOOL,  /* 0/1, yes/no, on/off, true/false */
    IVC_CFG_STRING /* free text; stored as const char * */
} ivc_cfg_type_t;

typedef struct ivc_cfg_entry {
    const char *name; /* variable name without the IVC_ prefix */
    const char *dflt; /* default, as the user would write it; "auto" allowed when min==max==0 */
    const char *help;
    ivc_cfg_type_t type;
    uint64_t min, max; /* inclusive bounds for SIZE/UINT */
    size_t offset;     /* where the parsed value goes in the layer's struct */
} ivc_cfg_entry_t;

typedef struct ivc_cfg_table {
    const char *layer;
    const ivc_cfg_entry_t *entries;
    size_t count;
} ivc_cfg_table_t;

/* Parses every entry of `table` from the environment (or its default) into `out`.
 * uint64_t fields for SIZE/UINT, int for BOOL, const char * for STRING.
 * Returns 0, or -EINVAL after logging one error naming the variable and what is wrong. */
int ivc_cfg_load(const ivc_cfg_table_t *table, void *out);

/* Parses one value; returns 0, -EINVAL (not of the entry's type) or -ERANGE (a number outside
 * [min, max], or one that does not fit 64 bits). No logging. */
int ivc_cfg_parse_value(const ivc_cfg_entry_t *e, const char *text, void *field);

/* What a size may look like, for error messages ("... is not <this>"). */
const char *ivc_cfg_size_syntax(void);

/* Writes v into buf (len bytes) with the largest suffix that keeps it exact ("64K", "1T",
 * "1000"); returns buf. */
char *ivc_cfg_size_str(uint64_t v, char *buf, size_t len);

/* Prints "IVC_NAME=value  # help (default: d)" rows for a loaded table; sizes are printed
 * with the largest suffix that keeps them exact (ivc_cfg_size_str), as they may be written. */
void ivc_cfg_print(FILE *f, const ivc_cfg_table_t *table, const void *values);

/* Warns about IVC_* variables in the environment that no table names (catches typos).
 * `tables` is NULL-terminated; `extra` lists other known names (launch state), NULL-terminated. */
void ivc_cfg_warn_unknown(const ivc_cfg_table_t *const *tables, const char *const *extra);

#endif
