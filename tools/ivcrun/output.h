/* -l and --tag-output: forward a rank's stdout or stderr line by line with a prefix:
 * "[rank] " (-l, Hydra's -prepend-rank) or "[1,rank]<stdout>:" (Open MPI's --tag-output;
 * 1 is the job, as Open MPI numbers its first).
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
    int style;  /* IVCRUN_TAG_RANK or IVCRUN_TAG_OMPI */
    size_t len; /* bytes of the pending partial line */
    char buf[OUTPUT_LINE_MAX];
} output_t;

/* Takes ownership of `fd`; `style` is IVCRUN_TAG_*. */
void output_init(output_t *o, int fd, int dst, uint32_t rank, int style);

/* Reads what the pipe holds and forwards its complete lines. At EOF (or a read error) it
 * forwards the last partial line with a newline and closes the pipe. Returns 1 when the
 * pipe was closed, else 0. */
int output_pump(output_t *o);

/* Forwards the partial line, if any, and closes the pipe. */
void output_close(output_t *o);

#endif
