/* The SPH fluid: Mueller et al.'s particle forces (poly6 density kernel, spiky pressure
 * gradient, viscosity Laplacian) in 2-D, gravity, semi-implicit Euler steps, damped walls.
 * See sph.h for the layout and the determinism argument. */
#include "sph.h"

#include <math.h>
#include <string.h>

/* Constants, in pixels and seconds. The particles start on a lattice of spacing SPACING;
 * the particle mass is chosen at start-up so that the lattice's interior has the rest
 * density exactly (sph_init), and the gas constant gives a sound speed sqrt(GAS_CONST) of
 * 6000 px/s, about 3.5x the fastest fall, with a time step well inside its CFL limit. */
#define H 16.0f          /* kernel radius, also the cell size */
#define HSQ (H * H)
#define SPACING (0.5f * H)
#define REST_DENS 1000.0f
#define GAS_CONST 3.6e7f
#define VISC 5.0e5f      /* dynamic viscosity: kinematic 500 px^2/s */
#define DT 0.0007f
#define BOUND_DAMPING (-0.5f)
#define EPS (0.5f * H)   /* wall distance */
#define GRAVITY (-2000.0f) /* px/s^2: the column falls a few hundred pixels in 1000 steps */
#define MASS (h->mass)

#define PI_F 3.14159265358979f
#define POLY6 (4.0f / (PI_F * powf(H, 8.0f)))
#define SPIKY_GRAD (-10.0f / (PI_F * powf(H, 5.0f)))
#define VISC_LAP (40.0f / (PI_F * powf(H, 5.0f)))

static uint64_t align64(uint64_t v)
{
    return (v + 63) & ~63ull;
}

/* Block geometry for n particles: a column of fluid nx wide, in a domain 4x as wide and
 * 1.25x as high as the column. */
static void geometry(uint32_t n, uint32_t *nx, uint32_t *ny, float *w, float *hgt)
{
    uint32_t x = (uint32_t)sqrtf((float)n / 2.0f);
    if (x < 1)
        x = 1;
    *nx = x;
    *ny = (n + x - 1) / x;
    *w = 4.0f * (float)x * SPACING + 2 * EPS;
    *hgt = 1.25f * (float)*ny * SPACING + 2 * EPS;
}

uint64_t sph_bytes(uint32_t n, uint32_t p)
{
    uint32_t nx, ny;
    float w, hgt;
    geometry(n, &nx, &ny, &w, &hgt);
    uint64_t cells = (uint64_t)((uint32_t)(w / H) + 1) * ((uint32_t)(hgt / H) + 1);
    return align64(sizeof(sph_hdr_t)) + 2 * align64(2ull * n * sizeof(sph_vec_t)) +
           2 * align64((uint64_t)n * 4) + align64((uint64_t)n * 4) + 2 * align64(cells * 4) +
           align64((uint64_t)n * 4) + 64 * (uint64_t)p;
}

void sph_init(sph_hdr_t *h, uint32_t n, uint32_t p)
{
    uint32_t nx, ny;
    float w, hgt;
    geometry(n, &nx, &ny, &w, &hgt);
    memset(h, 0, sizeof(*h));
    h->n = n;
    h->nparts = p;
    h->width = w;
    h->height = hgt;
    h->cols = (uint32_t)(w / H) + 1;
    h->rows = (uint32_t)(hgt / H) + 1;
    uint64_t cells = (uint64_t)h->cols * h->rows, at = align64(sizeof(sph_hdr_t));
    h->pos_off = at, at += align64(2ull * n * sizeof(sph_vec_t));
    h->vel_off = at, at += align64(2ull * n * sizeof(sph_vec_t));
    h->rho_off = at, at += align64((uint64_t)n * 4);
    h->prs_off = at, at += align64((uint64_t)n * 4);
    h->cell_off = at, at += align64((uint64_t)n * 4);
    h->start_off = at, at += align64(cells * 4);
    h->count_off = at, at += align64(cells * 4);
    h->list_off = at, at += align64((uint64_t)n * 4);
    h->bytes = at;
    sph_vec_t *pos = (sph_vec_t *)((char *)h + h->pos_off);
    sph_vec_t *vel = (sph_vec_t *)((char *)h + h->vel_off);
    for (uint32_t i = 0; i < n; i++) {
        /* A small deterministic jitter breaks the lattice's symmetry. */
        uint32_t r = i * 2654435761u;
        float jx = (float)(r >> 24) / 256.0f - 0.5f;
        pos[i].x = EPS + (float)(i % nx) * SPACING + 0.05f * jx;
        pos[i].y = EPS + (float)(i / nx) * SPACING;
        vel[i].x = vel[i].y = 0.0f;
    }
    /* The mass that gives a lattice particle's interior neighbourhood the rest density. */
    float sum = 0.0f;
    for (int dy = -3; dy <= 3; dy++)
        for (int dx = -3; dx <= 3; dx++) {
            float r2 = SPACING * SPACING * (float)(dx * dx + dy * dy);
            if (r2 < HSQ)
                sum += POLY6 * (HSQ - r2) * (HSQ - r2) * (HSQ - r2);
        }
    h->mass = REST_DENS / sum;
}

typedef struct view {
    sph_hdr_t *h;
    sph_vec_t *pos, *vel; /* current: [cur * n] */
    float *rho, *prs;
    uint32_t *cell, *start, *count, *list;
} view_t;

static void view_of(sph_hdr_t *h, view_t *v)
{
    char *b = (char *)h;
    v->h = h;
    v->pos = (sph_vec_t *)(b + h->pos_off);
    v->vel = (sph_vec_t *)(b + h->vel_off);
    v->rho = (float *)(b + h->rho_off);
    v->prs = (float *)(b + h->prs_off);
    v->cell = (uint32_t *)(b + h->cell_off);
    v->start = (uint32_t *)(b + h->start_off);
    v->count = (uint32_t *)(b + h->count_off);
    v->list = (uint32_t *)(b + h->list_off);
}

static uint32_t cell_of(const sph_hdr_t *h, sph_vec_t p)
{
    int cx = (int)(p.x / H), cy = (int)(p.y / H);
    cx = cx < 0 ? 0 : cx >= (int)h->cols ? (int)h->cols - 1 : cx;
    cy = cy < 0 ? 0 : cy >= (int)h->rows ? (int)h->rows - 1 : cy;
    return (uint32_t)cy * h->cols + (uint32_t)cx;
}

static void share(uint32_t total, uint32_t me, uint32_t parts, uint32_t *lo, uint32_t *hi)
{
    *lo = (uint32_t)((uint64_t)total * me / parts);
    *hi = (uint32_t)((uint64_t)total * (me + 1) / parts);
}

void sph_run(sph_hdr_t *h, uint32_t me, uint32_t steps, sph_barrier_fn barrier, void *arg)
{
    view_t v;
    view_of(h, &v);
    uint32_t n = h->n, p0, p1, r0, r1;
    share(n, me, h->nparts, &p0, &p1);
    share(h->rows, me, h->nparts, &r0, &r1);
    uint32_t c0 = r0 * h->cols, c1 = r1 * h->cols;
    for (uint32_t s = 0; s < steps; s++) {
        sph_vec_t *pos = v.pos + (size_t)(s & 1) * n, *npos = v.pos + (size_t)((s + 1) & 1) * n;
        sph_vec_t *vel = v.vel + (size_t)(s & 1) * n, *nvel = v.vel + (size_t)((s + 1) & 1) * n;
        /* 1: the cell of each of my particles. */
        for (uint32_t i = p0; i < p1; i++)
            v.cell[i] = cell_of(h, pos[i]);
        barrier(arg);
        /* 2: the lists of my slab of cells, particles in index order: counts, offsets
         * (my slab's lists lie in list[] where a global prefix sum would put them: every
         * participant counts the cells below its slab too, so no extra barrier). */
        uint32_t below = 0;
        for (uint32_t c = c0; c < c1; c++)
            v.count[c] = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t c = v.cell[i];
            if (c < c0)
                below++;
            else if (c < c1)
                v.count[c]++;
        }
        for (uint32_t c = c0, at = below; c < c1; c++) {
            v.start[c] = at;
            at += v.count[c];
            v.count[c] = 0;
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t c = v.cell[i];
            if (c >= c0 && c < c1)
                v.list[v.start[c] + v.count[c]++] = i;
        }
        barrier(arg);
        /* 3: density and pressure of my particles. */
        for (uint32_t i = p0; i < p1; i++) {
            float rho = 0.0f;
            int cx = (int)(v.cell[i] % h->cols), cy = (int)(v.cell[i] / h->cols);
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int x = cx + dx, y = cy + dy;
                    if (x < 0 || y < 0 || x >= (int)h->cols || y >= (int)h->rows)
                        continue;
                    uint32_t c = (uint32_t)y * h->cols + (uint32_t)x;
                    for (uint32_t k = 0; k < v.count[c]; k++) {
                        uint32_t j = v.list[v.start[c] + k];
                        float rx = pos[j].x - pos[i].x, ry = pos[j].y - pos[i].y;
                        float r2 = rx * rx + ry * ry;
                        if (r2 < HSQ) {
                            float d = HSQ - r2;
                            rho += MASS * POLY6 * d * d * d;
                        }
                    }
                }
            v.rho[i] = rho;
            v.prs[i] = GAS_CONST * (rho - REST_DENS);
        }
        barrier(arg);
        /* 4: forces on my particles and their step, into the other buffers. */
        for (uint32_t i = p0; i < p1; i++) {
            float fpx = 0, fpy = 0, fvx = 0, fvy = 0;
            int cx = (int)(v.cell[i] % h->cols), cy = (int)(v.cell[i] / h->cols);
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int x = cx + dx, y = cy + dy;
                    if (x < 0 || y < 0 || x >= (int)h->cols || y >= (int)h->rows)
                        continue;
                    uint32_t c = (uint32_t)y * h->cols + (uint32_t)x;
                    for (uint32_t k = 0; k < v.count[c]; k++) {
                        uint32_t j = v.list[v.start[c] + k];
                        if (j == i)
                            continue;
                        float rx = pos[j].x - pos[i].x, ry = pos[j].y - pos[i].y;
                        float r = sqrtf(rx * rx + ry * ry);
                        if (r < H && r > 0.0f) {
                            float f = -MASS * (v.prs[i] + v.prs[j]) / (2.0f * v.rho[j]) *
                                      SPIKY_GRAD * (H - r) * (H - r) / r;
                            fpx -= f * rx;
                            fpy -= f * ry;
                            float g = VISC * MASS / v.rho[j] * VISC_LAP * (H - r);
                            fvx += g * (vel[j].x - vel[i].x);
                            fvy += g * (vel[j].y - vel[i].y);
                        }
                    }
                }
            sph_vec_t nv = {vel[i].x + DT * (fpx + fvx) / v.rho[i],
                            vel[i].y + DT * ((fpy + fvy) / v.rho[i] + GRAVITY)};
            sph_vec_t np = {pos[i].x + DT * nv.x, pos[i].y + DT * nv.y};
            if (np.x < EPS) {
                nv.x *= BOUND_DAMPING;
                np.x = EPS;
            }
            if (np.x > h->width - EPS) {
                nv.x *= BOUND_DAMPING;
                np.x = h->width - EPS;
            }
            if (np.y < EPS) {
                nv.y *= BOUND_DAMPING;
                np.y = EPS;
            }
            if (np.y > h->height - EPS) {
                nv.y *= BOUND_DAMPING;
                np.y = h->height - EPS;
            }
            nvel[i] = nv;
            npos[i] = np;
        }
        barrier(arg);
    }
}

uint64_t sph_hash(const sph_hdr_t *h)
{
    const uint8_t *b = (const uint8_t *)h + h->pos_off;
    /* The positions of the last step are in the buffer the step count left current; hash
     * both buffers: equal runs agree on both. */
    uint64_t x = 0xcbf29ce484222325ull;
    for (uint64_t i = 0; i < 2ull * h->n * sizeof(sph_vec_t); i++)
        x = (x ^ b[i]) * 0x100000001b3ull;
    return x;
}
