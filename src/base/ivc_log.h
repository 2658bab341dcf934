/* Diagnostics: one line per message on stderr, prefixed with the rank when known. */
#ifndef IVC_LOG_H
#define IVC_LOG_H

#include <stdarg.h>

/* Sets the prefix of later messages ("ivc[3]"); -1 for none. */
void ivc_log_set_rank(int rank);
/* Enables ivc_debug() output when level >= 1 (IVC_DEBUG). */
void ivc_log_set_level(int level);
int ivc_log_level(void);
/* Sets the level from IVC_DEBUG: unset or empty is 0 (off), else a decimal level from 0 to
 * 99 (1 and more turn ivc_debug() output on). Returns 0, or -EINVAL after logging an error
 * that names the variable and what it may be (the level is then left unchanged). */
int ivc_log_level_from_env(void);

void ivc_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ivc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ivc_debug_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define ivc_debug(...)                                                                             \
    do {                                                                                           \
        if (ivc_log_level() > 0)                                                                   \
            ivc_debug_msg(__VA_ARGS__);                                                            \
    } while (0)

#endif
