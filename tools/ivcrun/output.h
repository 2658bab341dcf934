/* --tag-output: forwards a rank's stdout or stderr line by line with a "[rank] " prefix.
 * Each line goes out in one write(), so lines of different ranks never interleave. */
#ifndef IVCRUN_OUTPUT_H
#define IVCRUN_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

/* A longer line is forwarded in pieces of this size, each with its prefix. */
#define OUTPUT_LINE_MAX 8192

typedef struct output {
    int fd;  /* read end of the rank's pipe; -1 once closed */
    int dst; /* ivcrun's fd 1 or 2 */
    uint32_t rank;
    size_t len; /* bytes of the pending partial line */
    char buf[OUTPUT_LINE_MAX];
} output_t;

/* Takes ownership of `fd`. */
void output_init(output_t *o, int fd, int dst, uint32_t rank);

/* Reads what the pipe holds and forwards its complete lines. At EOF (or a read error) it
 * forwards the last partial line with a newline and closes the pipe. Returns 1 when the
 * pipe was closed, else 0. */
int output_pump(output_t *o);

/* Forwards the partial line, if any, and closes the pipe. */
void output_close(output_t *o);

#endif
