#include "output.h"

#include "opts.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void output_init(output_t *o, int fd, int dst, uint32_t rank, int style)
{
    o->style = style;
    o->fd = fd;
    o->dst = dst;
    o->rank = rank;
    o->len = 0;
}

/* Writes the prefix + line (+ '\n' if missing) in one write. A destination that fails (e.g.
 * a closed pipe: SIGPIPE is ignored) just loses the line; the ranks keep running. */
static void emit(const output_t *o, const char *line, size_t len, int add_newline)
{
    static char out[OUTPUT_LINE_MAX + 32];
    size_t n;
    if (o->style == IVCRUN_TAG_OMPI)
        n = (size_t)snprintf(out, 32, "[1,%u]<%s>:", o->rank, o->dst == 2 ? "stderr" : "stdout");
    else
        n = (size_t)snprintf(out, 32, "[%u] ", o->rank);
    memcpy(out + n, line, len);
    n += len;
    if (add_newline)
        out[n++] = '\n';
    for (size_t done = 0; done < n;) {
        ssize_t w = write(o->dst, out + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        done += (size_t)w;
    }
}

void output_close(output_t *o)
{
    if (o->fd < 0)
        return;
    if (o->len > 0)
        emit(o, o->buf, o->len, 1);
    o->len = 0;
    close(o->fd);
    o->fd = -1;
}

int output_pump(output_t *o)
{
    ssize_t n = read(o->fd, o->buf + o->len, sizeof(o->buf) - o->len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (n <= 0) {
        output_close(o);
        return 1;
    }
    o->len += (size_t)n;
    char *start = o->buf, *end = o->buf + o->len, *nl;
    while ((nl = memchr(start, '\n', (size_t)(end - start))) != NULL) {
        emit(o, start, (size_t)(nl - start) + 1, 0);
        start = nl + 1;
    }
    if (start == o->buf && o->len == sizeof(o->buf)) {
        emit(o, o->buf, o->len, 1); /* a line longer than the buffer: forward a piece */
        start = end;
    }
    o->len = (size_t)(end - start);
    memmove(o->buf, start, o->len);
    return 0;
}
