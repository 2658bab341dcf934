#include "ivc_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int log_rank = -1;
static int log_level;

void ivc_log_set_rank(int rank)
{
    log_rank = rank;
}

void ivc_log_set_level(int level)
{
    log_level = level;
}

int ivc_log_level(void)
{
    return log_level;
}

int ivc_log_level_from_env(void)
{
    const char *text = getenv("IVC_DEBUG");
    if (text == NULL || *text == '\0') {
        log_level = 0;
        return 0;
    }
    int level = 0;
    const char *p = text;
    for (; *p >= '0' && *p <= '9' && level <= 99; p++)
        level = level * 10 + (*p - '0');
    if (*p != '\0' || level > 99) {
        ivc_error("IVC_DEBUG=%s is not a debug level (0 to 99: 0 is off, 1 and more print "
                  "debugging messages)",
                  text);
        return -EINVAL;
    }
    log_level = level;
    return 0;
}

/* Formats into one buffer and writes it with one call so lines of ranks sharing a
 * terminal do not interleave mid-line. */
static void log_emit(const char *kind, const char *fmt, va_list ap)
{
    char line[1024];
    int n;

    if (log_rank >= 0)
        n = snprintf(line, sizeof(line), "ivc[%d]: %s", log_rank, kind);
    else
        n = snprintf(line, sizeof(line), "ivc: %s", kind);
    if (n < 0 || (size_t)n >= sizeof(line))
        n = 0;
    vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    size_t len = strlen(line);
    line[len++] = '\n';
    fwrite(line, 1, len, stderr);
    fflush(stderr);
}

void ivc_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_emit("error: ", fmt, ap);
    va_end(ap);
}

void ivc_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_emit("warning: ", fmt, ap);
    va_end(ap);
}

void ivc_debug_msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_emit("", fmt, ap);
    va_end(ap);
}
