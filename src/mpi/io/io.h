/* I/O room: the objects behind MPI_File (io_file.c), file views and data representations
 * (io_view.c), independent access and the shared file pointer (io_indep.c, io_shared.c) and
 * collective access by two-phase I/O (io_coll.c).
 *
 * Where the data goes: every rank opens the file itself and reads and writes it with
 * pread/pwrite. Collective accesses are two-phase: ranks send the pieces they access to a few
 * aggregators (one per host by default: the lowest rank of each region), through IVC's own
 * collectives on the file's private communicator, so the shuffle moves through the shared
 * region; only aggregators touch the file then. The shared file pointer lives in a small
 * sidecar file beside the data file, updated under an fcntl lock (the region has one writer
 * per section, and a pointer every rank moves is not one). */
#ifndef IVC_MPI_IO_H
#define IVC_MPI_IO_H

#include <mpi.h>

#include "base/ivc_data.h"

#include <stdint.h>

#define FILE_MAGIC 0x46494c45u

/* ROMIO's romio_cb_read / romio_cb_write values. */
enum { IO_CB_ENABLE = 1, IO_CB_DISABLE, IO_CB_AUTO };

/* A contiguous run of file bytes that one access touches: `len` bytes at file offset `off`,
 * which are bytes [soff, soff + len) of the access's packed data stream. */
typedef struct io_piece {
    int64_t off;
    int64_t len;
    int64_t soff;
} io_piece_t;

/* A registered data representation (MPI_Register_datarep). */
typedef struct io_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *read_fn, *write_fn;
    MPI_Datarep_conversion_function_c *read_fn_c, *write_fn_c;
    MPI_Datarep_extent_function *extent_fn;
    void *extra;
} io_datarep_t;

struct io_coll;

struct ivc_mpi_file_s {
    uint32_t magic;
    MPI_Comm comm;  /* private duplicate: the blocking collectives of open, close, views */
    MPI_Comm ccomm; /* a second one: the two-phase engine's exchanges, which may be in flight
                       while the program calls other collectives on the file */
    int rank, size;
    int fd;        /* the data file */
    int sfd;       /* the shared-pointer sidecar (io_shared.c), -1 if none */
    char *path;    /* as the program named it */
    char *spath;   /* the sidecar's path; rank 0 removes it at close */
    int amode;
    int atomic;
    MPI_Errhandler errh;
    /* hints honoured (io_file.c) */
    int cb_nodes;           /* aggregators */
    int64_t cb_buffer_size; /* bytes an aggregator handles per round */
    int cb_read, cb_write;  /* IO_CB_* */
    int64_t striping_unit;  /* file domains start on multiples of it (0: no alignment) */
    int *aggr;              /* the cb_nodes aggregators: ranks of comm, ascending */
    /* the view (io_view.c) */
    MPI_Offset disp;
    MPI_Datatype etype, filetype;
    char datarep[MPI_MAX_DATAREP_STRING];
    int rep;                /* IO_REP_* */
    const io_datarep_t *urep;
    uint64_t esize;         /* etype size */
    uint64_t ft_size;       /* filetype size (its data bytes per tile) */
    int64_t ft_extent;      /* filetype extent (bytes between tiles) */
    int64_t ft_lb;
    uint64_t ft_nblocks;
    const ivc_block_t *ft_blocks; /* the filetype's blocks, displacements from its start */
    const uint64_t *ft_prefix;
    MPI_Offset fp;          /* individual file pointer, in etypes of the view */
    /* collective operations started and not finished, oldest first (io_coll.c) */
    struct io_coll *head, *tail;
    /* split collective in progress: its request, NULL if none */
    MPI_Request split;
    int split_kind;
};

enum { IO_REP_NATIVE = 1, IO_REP_INTERNAL, IO_REP_EXTERNAL32, IO_REP_USER };

/* ---- io_file.c ---- */
/* 1 if fh is an open file. */
int ivc_io_valid(MPI_File fh);
/* Raises class cls in fn on file fh (MPI_FILE_NULL: the handler of MPI_FILE_NULL, which is
 * the one opens use); returns cls, or never returns under a fatal handler. */
int ivc_io_raise(MPI_File fh, int cls, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The MPI error class of an errno value from a file system call. */
int ivc_io_errno_class(int err);
/* The handler MPI_FILE_NULL holds (MPI_File_set_errhandler(MPI_FILE_NULL, ...)). */
extern MPI_Errhandler ivc_io_default_errh;

/* Entry checks for a call on an open file: returns from the caller on failure. */
#define IO_CHECK(fh, fn)                                                                           \
    do {                                                                                           \
        int rc_ = ivc_mpi_check_init(fn);                                                          \
        if (rc_ != MPI_SUCCESS)                                                                    \
            return rc_;                                                                            \
        if (!ivc_io_valid(fh))                                                                     \
            return ivc_io_raise(MPI_FILE_NULL, MPI_ERR_FILE, fn, "invalid file handle");          \
    } while (0)

/* ---- io_view.c ---- */
/* Sets the default view: displacement 0, etype and filetype MPI_BYTE, "native". */
void ivc_io_view_default(MPI_File fh);
void ivc_io_view_free(MPI_File fh);
/* The file pieces of `nbytes` bytes of the view's data stream starting at etype `pos`:
 * *out (malloc'd, merged where adjacent, in stream order), *n. Returns MPI_SUCCESS or an
 * error class (MPI_ERR_NO_MEM, MPI_ERR_ARG for a negative position, MPI_ERR_IO for data
 * past the largest offset). */
int ivc_io_view_pieces(MPI_File fh, MPI_Offset pos, uint64_t nbytes, io_piece_t **out,
                       uint64_t *n);
/* Absolute byte offset of etype position pos of the view. */
MPI_Offset ivc_io_view_byte(MPI_File fh, MPI_Offset pos);
/* Etype position of the first data byte of the view at or after byte offset `byte`. */
MPI_Offset ivc_io_view_pos_of_byte(MPI_File fh, MPI_Offset byte);
/* Packs count elements of dt at buf into the file's representation: *out is buf itself when
 * nothing is to do (*owned 0), else a malloc'd buffer (*owned 1). *nbytes: the stream's
 * length. Returns MPI_SUCCESS or an error class. */
int ivc_io_pack(MPI_File fh, const void *buf, int count, MPI_Datatype dt, void **out,
                int *owned, uint64_t *nbytes);
/* The inverse for reads: `nbytes` stream bytes in src (file representation) into count
 * elements of dt at buf. */
int ivc_io_unpack(MPI_File fh, const void *src, uint64_t nbytes, void *buf, int count,
                  MPI_Datatype dt);
/* 1 if buf can receive the stream directly (contiguous native data at buf). */
int ivc_io_direct(MPI_File fh, int count, MPI_Datatype dt);

/* ---- io_indep.c ---- */
/* Reads or writes the pieces with pread/pwrite (under a byte-range lock in atomic mode).
 * data: the packed stream. *done: bytes moved (a read may stop at the end of the file).
 * Returns MPI_SUCCESS or an error class. */
int ivc_io_rw_pieces(MPI_File fh, int write, const io_piece_t *pc, uint64_t n, char *data,
                     uint64_t *done);
/* Fills a status for an access that moved `bytes` bytes. */
void ivc_io_status(MPI_Status *st, uint64_t bytes);
/* An already complete request carrying status `st` and error class `err` (nonblocking
 * calls that finish at start). */
int ivc_io_req_done(const MPI_Status *st, int err, MPI_Request *req);
/* The checks every data access makes: amode (read access, write access), count, type.
 * Returns MPI_SUCCESS or raises. */
int ivc_io_check_access(MPI_File fh, int write, int count, MPI_Datatype dt, const void *buf,
                        const char *fn);

/* ---- io_shared.c ---- */
/* Creates (rank 0, name chosen there) and opens (every rank) the sidecar at open; doubles as
 * the probe that every rank sees the same directory. Collective. */
int ivc_io_shared_open(MPI_File fh, const char *fn);
void ivc_io_shared_close(MPI_File fh);
/* Adds delta to the shared pointer and returns its value before, atomically for every rank
 * of the file. Returns MPI_SUCCESS or an error class. */
int ivc_io_shared_fetch_add(MPI_File fh, MPI_Offset delta, MPI_Offset *old);
int ivc_io_shared_set(MPI_File fh, MPI_Offset v);

/* ---- io_coll.c ---- */
enum { IO_ACC_READ = 0, IO_ACC_WRITE = 1 };
/* Starts a collective access of count dt at buf at etype position pos of the view; *req
 * completes when it is done. Collective over the file's ranks, in the same order everywhere.
 * Returns MPI_SUCCESS or an error class. */
int ivc_io_coll_start(MPI_File fh, int write, MPI_Offset pos, void *buf, int count,
                      MPI_Datatype dt, MPI_Request *req);
/* Finishes every collective operation the file has in flight (before close, set_view ...). */
void ivc_io_coll_drain(MPI_File fh);
/* Advances collective operations of every file (from ivc_mpi_progress). */
extern int ivc_io_coll_active;
int ivc_io_coll_progress(void);

#endif
