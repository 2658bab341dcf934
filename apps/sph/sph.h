/* A 2-D smoothed-particle-hydrodynamics fluid (a dam break): the simulation state, laid
 * out in one block of memory that lives either in the IVC region (processes in VMs) or in
 * the heap (threads), and one step as four phases with a barrier after each. Every
 * participant runs the same code on its share: a range of particles for the per-particle
 * phases, a slab of grid rows for the cell lists. Sums over neighbours run in a fixed
 * order (cells in a fixed order, particles in index order within a cell), so the result
 * does not depend on how many participants there are or whether they are threads or
 * processes: runs are bit-identical. */
#ifndef SPH_H
#define SPH_H

#include <stddef.h>
#include <stdint.h>

typedef struct sph_vec {
    float x, y;
} sph_vec_t;

/* The block's header; arrays follow at the offsets it records (bytes from the header). */
typedef struct sph_hdr {
    uint32_t n, nparts;      /* particles, participants */
    uint32_t cols, rows;     /* grid of cells of side H */
    float width, height;     /* the domain */
    float mass, rsvd;        /* particle mass (sph_init) */
    uint64_t pos_off, vel_off, rho_off, prs_off, cell_off, start_off, count_off, list_off;
    uint64_t bytes;          /* the whole block */
} sph_hdr_t;

/* Bytes of the block for n particles and p participants; sph_init lays it out. */
uint64_t sph_bytes(uint32_t n, uint32_t p);
/* Writes the header and the initial state (a block of fluid at rest at the left). */
void sph_init(sph_hdr_t *h, uint32_t n, uint32_t p);

typedef void (*sph_barrier_fn)(void *arg);

/* Runs `steps` steps as participant `me` of h->nparts, calling barrier(arg) four times per
 * step. */
void sph_run(sph_hdr_t *h, uint32_t me, uint32_t steps, sph_barrier_fn barrier, void *arg);

/* FNV-1a hash of the positions: runs that agree bit for bit have the same hash. */
uint64_t sph_hash(const sph_hdr_t *h);

/* Writes a PNG of the particles (coloured by speed). Returns 0 or -errno. */
int sph_png(const sph_hdr_t *h, const char *path, uint32_t w);

#endif
