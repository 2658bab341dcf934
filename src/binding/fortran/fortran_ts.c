/* Non-contiguous choice buffers of mpi_f08 (hand-written; see fortran_ts.h and README.md,
 * "Choice buffers").
 *
 * A section is its descriptor's dimensions (extent, byte stride sm) over elements of
 * elem_len bytes, in array element order. The caller's (count, datatype) describe a
 * contiguous buffer; on a section they mean "as if the section were that contiguous
 * buffer" (MPI-4.1 section 19.1.12). When the datatype is dense (lb = true lb = 0,
 * extent = true extent = size: a predefined type or a contiguous one) and whole datatypes
 * fill whole elements (elem_len = m * size), the items are the section's elements split
 * into m each, and a derived datatype reaches them in place:
 *   - RUN buffers (count items from the start): the first count items of the section, as
 *     nested MPI_Type_create_hvector over the dimensions, innermost the caller's datatype
 *     (a struct of at most one such block per dimension when count stops mid-section);
 *     passed as (base_addr, 1, that type);
 *   - TILED buffers (items by index: blocks per process, displacements, partitions): a
 *     one-dimensional section with positive stride, elem_len = size: the caller's datatype
 *     resized to the stride, passed with the caller's count(s) and displacements.
 * The caller's datatype stays the type of every item, so reductions see their type.
 * Otherwise a blocking call gets a contiguous copy (copied back when the call may write
 * it), and a call that uses the buffer after returning (nonblocking, persistent, RMA,
 * attach) fails with MPI_ERR_BUFFER. Buffers sharing a count or datatype argument (a
 * reduction's two buffers) take one datatype only when their layouts are the same. */
#include "fortran_ts.h"

#include <stdint.h>

/* A section's layout: dimensions of extent > 1, adjacent ones merged where the outer stride
 * is the inner dimension's span. */
typedef struct {
    int n;
    CFI_index_t e[CFI_MAX_RANK + 1], sm[CFI_MAX_RANK + 1];
    size_t len;      /* elem_len */
    CFI_index_t nel; /* number of elements */
} ivcf_lay_t;

static void lay_push(ivcf_lay_t *l, CFI_index_t e, CFI_index_t sm)
{
    if (e == 1)
        return;
    if (l->n > 0 && l->sm[l->n - 1] * l->e[l->n - 1] == sm) {
        l->e[l->n - 1] *= e;
        return;
    }
    l->e[l->n] = e;
    l->sm[l->n] = sm;
    l->n++;
}

static void lay_of(const CFI_cdesc_t *d, ivcf_lay_t *l)
{
    l->n = 0;
    l->len = d->elem_len;
    l->nel = 1;
    for (int r = 0; r < d->rank; r++) {
        lay_push(l, d->dim[r].extent, d->dim[r].sm);
        l->nel *= d->dim[r].extent;
    }
}

static int lay_same(const ivcf_lay_t *a, const ivcf_lay_t *b)
{
    if (a->n != b->n || a->len != b->len)
        return 0;
    for (int k = 0; k < a->n; k++)
        if (a->e[k] != b->e[k] || a->sm[k] != b->sm[k])
            return 0;
    return 1;
}

static MPI_Count sec_count(const ivcf_sec_t *s)
{
    if (s->count == NULL)
        return 1;
    return (s->flags & IVCF_BIG) ? *(MPI_Count *)s->count : *(MPI_Fint *)s->count;
}

/* The first c items of a layout of units (dims l, unit datatype u of the first dimension's
 * stride ... see prefix below) as one datatype: *t. Returns MPI_SUCCESS or an MPI error. */
static int prefix_type(const ivcf_lay_t *l, MPI_Datatype u, MPI_Count c, MPI_Datatype *t)
{
    int R = l->n;
    MPI_Count P[CFI_MAX_RANK + 2], q[CFI_MAX_RANK + 1];
    MPI_Datatype F[CFI_MAX_RANK + 2], piece[CFI_MAX_RANK + 1];
    MPI_Aint disp[CFI_MAX_RANK + 1];
    int blen[CFI_MAX_RANK + 1], np = 0, built = 0, rc = MPI_SUCCESS;
    P[0] = 1;
    for (int k = 0; k < R; k++)
        P[k + 1] = P[k] * l->e[k];
    for (int k = 0; k < R; k++)
        q[k] = k < R - 1 ? (c / P[k]) % l->e[k] : c / P[k];
    int top = 0; /* highest k with q[k] > 0: F[0..top] are needed */
    for (int k = 0; k < R; k++)
        if (q[k] > 0)
            top = k;
    F[0] = u;
    for (int k = 0; k < top && rc == MPI_SUCCESS; k++, built++)
        rc = PMPI_Type_create_hvector_c(l->e[k], 1, l->sm[k], F[k], &F[k + 1]);
    MPI_Aint off = 0;
    for (int k = R - 1; k >= 0 && rc == MPI_SUCCESS; k--) {
        if (q[k] == 0)
            continue;
        if (q[k] == 1)
            piece[np] = F[k];
        else
            rc = PMPI_Type_create_hvector_c(q[k], 1, l->sm[k], F[k], &piece[np]);
        if (rc != MPI_SUCCESS)
            break;
        disp[np] = off;
        blen[np] = 1;
        np++;
        off += (MPI_Aint)q[k] * l->sm[k];
    }
    if (rc == MPI_SUCCESS) {
        if (np == 1 && disp[0] == 0 && piece[0] != u) {
            *t = piece[0];
            np = 0; /* kept: not freed below */
            for (int k = 1; k <= built; k++)
                if (F[k] == *t)
                    F[k] = MPI_DATATYPE_NULL;
        } else {
            rc = PMPI_Type_create_struct(np, blen, disp, piece, t);
        }
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(t);
    for (int i = 0; i < np; i++) {
        int is_f = 0;
        for (int k = 0; k <= built; k++)
            is_f |= piece[i] == F[k];
        if (!is_f)
            PMPI_Type_free(&piece[i]);
    }
    for (int k = 1; k <= built; k++)
        if (F[k] != MPI_DATATYPE_NULL)
            PMPI_Type_free(&F[k]);
    return rc;
}

enum { SEC_KEEP_AS_IS = 1, SEC_TYPE = 0, SEC_NO_TYPE = -1, SEC_TOO_SMALL = -2 };

/* A datatype for buffer s of layout l: *t with SEC_TYPE (RUN: count 1; TILED: the caller's
 * counts), or SEC_KEEP_AS_IS (the caller's count and datatype already fit: an invalid
 * datatype, which the C call then reports, count 0, or a contiguous prefix), SEC_NO_TYPE,
 * SEC_TOO_SMALL (count items do not fit in the section: MPI_ERR_BUFFER). */
static int sec_type(const ivcf_sec_t *s, const ivcf_lay_t *l, MPI_Datatype *t)
{
    MPI_Datatype d = PMPI_Type_f2c(*(MPI_Fint *)s->type);
    MPI_Count size, lb, ext, tlb, text;
    if (d == MPI_DATATYPE_NULL || PMPI_Type_size_c(d, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent_c(d, &lb, &ext) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent_c(d, &tlb, &text) != MPI_SUCCESS)
        return SEC_KEEP_AS_IS;
    if (size <= 0 || lb != 0 || tlb != 0 || ext != size || text != size ||
        l->len % (size_t)size != 0)
        return SEC_NO_TYPE;
    if (s->role == IVCF_TILED) {
        if ((size_t)size != l->len || l->n != 1 || l->sm[0] <= 0)
            return SEC_NO_TYPE;
        int rc = PMPI_Type_create_resized_c(d, 0, l->sm[0], t);
        if (rc == MPI_SUCCESS && (rc = PMPI_Type_commit(t)) != MPI_SUCCESS)
            PMPI_Type_free(t);
        return rc == MPI_SUCCESS ? SEC_TYPE : SEC_NO_TYPE;
    }
    /* RUN: units of the caller's datatype, m per element, then the section's dimensions */
    MPI_Count c = sec_count(s), m = (MPI_Count)l->len / size;
    if (c < 0)
        return SEC_KEEP_AS_IS; /* the C call reports MPI_ERR_COUNT */
    if (c > (MPI_Count)l->nel * m)
        return SEC_TOO_SMALL;
    ivcf_lay_t u = {.n = 0, .len = (size_t)size, .nel = l->nel * m};
    lay_push(&u, m, size);
    for (int k = 0; k < l->n; k++)
        lay_push(&u, l->e[k], l->sm[k]);
    if (c == 0 || c == 1 || (u.n > 0 && u.sm[0] == size && c <= u.e[0]))
        return SEC_KEEP_AS_IS;
    return prefix_type(&u, d, c, t) == MPI_SUCCESS ? SEC_TYPE : SEC_NO_TYPE;
}

/* Copies between the section and the contiguous buffer c, in array element order. */
static void sec_copy(const ivcf_lay_t *l, char *base, char *c, int back)
{
    size_t chunk = l->len;
    int k0 = 0;
    if (l->n > 0 && (size_t)l->sm[0] == l->len) {
        chunk *= (size_t)l->e[0];
        k0 = 1;
    }
    CFI_index_t idx[CFI_MAX_RANK + 1] = {0};
    for (;;) {
        char *p = base;
        for (int k = k0; k < l->n; k++)
            p += idx[k] * l->sm[k];
        if (back)
            memcpy(p, c, chunk);
        else
            memcpy(c, p, chunk);
        c += chunk;
        int k = k0;
        while (k < l->n && ++idx[k] == l->e[k])
            idx[k++] = 0;
        if (k >= l->n)
            break;
    }
}

static int sec_copy_in(ivcf_sec_t *s, const ivcf_lay_t *l)
{
    s->copy = malloc(l->len * (size_t)l->nel);
    if (s->copy == NULL)
        return MPI_ERR_NO_MEM;
    sec_copy(l, s->addr, s->copy, 0);
    s->addr = s->copy;
    return MPI_SUCCESS;
}

static int is_in_place(const ivcf_sec_t *s)
{
    return s->addr == (void *)ivc_obj_f_in_place_;
}

/* One group: the buffers i of s with s[i].group == g. */
static int group_prepare(ivcf_sec_t *s, int n, int g)
{
    ivcf_lay_t l0 = {0}, l;
    int first = -1, same = 1, nb = 0, any = 0;
    for (int i = 0; i < n; i++) {
        if (s[i].group != g)
            continue;
        nb |= s[i].flags & IVCF_NB;
        if (s[i].contig || s[i].role == IVCF_FIRST) {
            /* a contiguous buffer passes the caller's datatype: the others must as well,
             * unless it is MPI_IN_PLACE, which has none */
            if (!is_in_place(&s[i]) && s[i].role != IVCF_FIRST)
                same = 0;
            continue;
        }
        if (s[i].role == IVCF_KEEP)
            return MPI_ERR_BUFFER;
        any = 1;
        lay_of(s[i].d, &l);
        if (first < 0) {
            first = i;
            l0 = l;
        } else if (!lay_same(&l0, &l) || s[i].role != s[first].role) {
            same = 0;
        }
    }
    if (!any)
        return MPI_SUCCESS;
    if (same && (s[first].role == IVCF_RUN || s[first].role == IVCF_TILED)) {
        MPI_Datatype t;
        switch (sec_type(&s[first], &l0, &t)) {
        case SEC_KEEP_AS_IS:
            return MPI_SUCCESS;
        case SEC_TOO_SMALL:
            return MPI_ERR_BUFFER;
        case SEC_TYPE:
            s[first].made = t;
            s[first].ftype = PMPI_Type_c2f(t);
            s[first].one_fint = 1;
            s[first].one_count = 1;
            /* Every buffer of the group passes the made type, MPI_IN_PLACE included: the
             * glue passes the first buffer's count and datatype, and that may be it. */
            for (int i = 0; i < n; i++) {
                if (s[i].group != g || s[i].role == IVCF_FIRST ||
                    (s[i].contig && !is_in_place(&s[i])))
                    continue;
                s[i].type = &s[first].ftype;
                if (s[first].role == IVCF_RUN && s[i].count != NULL)
                    s[i].count = (s[i].flags & IVCF_BIG) ? (void *)&s[first].one_count
                                                         : (void *)&s[first].one_fint;
            }
            return MPI_SUCCESS;
        default:
            break;
        }
    }
    if (nb)
        return MPI_ERR_BUFFER;
    for (int i = 0; i < n; i++) {
        if (s[i].group != g || s[i].contig || s[i].role == IVCF_FIRST)
            continue;
        lay_of(s[i].d, &l);
        if (s[i].role == IVCF_RUN && s[i].type != NULL) {
            /* the copy holds the section: count items of datatype must fit in it */
            MPI_Datatype d = PMPI_Type_f2c(*(MPI_Fint *)s[i].type);
            MPI_Count c = sec_count(&s[i]), lb, ext, tlb, text;
            if (d != MPI_DATATYPE_NULL && c > 0 &&
                PMPI_Type_get_extent_c(d, &lb, &ext) == MPI_SUCCESS &&
                PMPI_Type_get_true_extent_c(d, &tlb, &text) == MPI_SUCCESS &&
                (tlb < 0 || (c - 1) * ext + tlb + text > (MPI_Count)(l.len * (size_t)l.nel)))
                return MPI_ERR_BUFFER;
        }
        int rc = sec_copy_in(&s[i], &l);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int ivcf_sec_prepare(ivcf_sec_t *s, int n)
{
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen |= s[j].group == s[i].group;
        if (seen)
            continue;
        int rc = group_prepare(s, n, s[i].group);
        if (rc != MPI_SUCCESS) {
            ivcf_sec_done(s, n, rc);
            return rc;
        }
    }
    return MPI_SUCCESS;
}

void ivcf_sec_done(ivcf_sec_t *s, int n, int rc)
{
    for (int i = 0; i < n; i++) {
        if (s[i].copy != NULL) {
            if (rc == MPI_SUCCESS && (s[i].flags & IVCF_OUT)) {
                ivcf_lay_t l;
                lay_of(s[i].d, &l);
                sec_copy(&l, s[i].d->base_addr, s[i].copy, 1);
            }
            free(s[i].copy);
            s[i].copy = NULL;
            s[i].addr = s[i].d->base_addr;
        }
        if (s[i].made != MPI_DATATYPE_NULL)
            PMPI_Type_free(&s[i].made);
    }
}

int ivcf_sec_error(int rc, int kind, void *obj)
{
    switch (kind) {
    case IVCF_OBJ_COMM:
        PMPI_Comm_call_errhandler((MPI_Comm)obj, rc);
        return rc;
    case IVCF_OBJ_WIN:
        PMPI_Win_call_errhandler((MPI_Win)obj, rc);
        return rc;
    case IVCF_OBJ_FILE:
        PMPI_File_call_errhandler((MPI_File)obj, rc);
        return rc;
    case IVCF_OBJ_SESSION:
        PMPI_Session_call_errhandler((MPI_Session)obj, rc);
        return rc;
    default:
        PMPI_Comm_call_errhandler(MPI_COMM_SELF, rc);
        return rc;
    }
}
