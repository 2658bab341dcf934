/* Groups and the communicators made from them: Comm_group, Group_*, Comm_create,
 * Comm_create_group, Comm_split_type, Comm_dup_with_info.
 *
 * A group is an array of world ranks. Groups are local objects: nothing here talks to other
 * ranks except the communicator constructors, which agree on a context id. */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

struct ivc_mpi_group_s ivc_obj_group_empty = {GROUP_MAGIC, 0, MPI_UNDEFINED, NULL, 1, 1};

MPI_Group ivc_mpi_group_new(const int *world, int n)
{
    MPI_Group g = calloc(1, sizeof(*g));
    int *w = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (g == NULL || w == NULL) {
        free(g);
        free(w);
        return NULL;
    }
    if (n > 0)
        memcpy(w, world, (size_t)n * sizeof(int));
    g->magic = GROUP_MAGIC;
    g->size = n;
    g->world = w;
    g->refs = 1;
    g->rank = MPI_UNDEFINED;
    for (int i = 0; i < n; i++)
        if (w[i] == ivc_mpi_world_rank)
            g->rank = i;
    return g;
}

void ivc_mpi_group_release(MPI_Group g)
{
    if (g == MPI_GROUP_NULL || g->predefined || --g->refs > 0)
        return;
    g->magic = 0;
    free(g->world);
    free(g);
}

static int check(const char *fn)
{
    return ivc_mpi_check_init(fn);
}

#define CHECK_GROUP(g, fn)                                                                         \
    do {                                                                                           \
        int rc_ = check(fn);                                                                       \
        if (rc_ != MPI_SUCCESS)                                                                    \
            return rc_;                                                                            \
        if (!ivc_mpi_group_valid(g))                                                               \
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_GROUP, fn, "invalid group");              \
    } while (0)

/* Returns the new group in *out or raises MPI_ERR_NO_MEM. */
static int group_out(const int *world, int n, MPI_Group *out, const char *fn)
{
    if (n == 0) {
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    MPI_Group g = ivc_mpi_group_new(world, n);
    if (g == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    *out = g;
    return MPI_SUCCESS;
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    const char *fn = "MPI_Comm_group";
    int rc = check(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ivc_mpi_comm_valid(comm))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator");
    CHECK_NULL_ARG(comm, group, fn, "group");
    return group_out(comm->local_world, comm->local_size, group, fn); /* the local group */
}
IVC_MPI_WEAK(Comm_group)

int PMPI_Group_size(MPI_Group group, int *size)
{
    CHECK_GROUP(group, "MPI_Group_size");
    CHECK_NULL_ARG(MPI_COMM_WORLD, size, "MPI_Group_size", "size");
    *size = group->size;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Group_size)

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    CHECK_GROUP(group, "MPI_Group_rank");
    CHECK_NULL_ARG(MPI_COMM_WORLD, rank, "MPI_Group_rank", "rank");
    *rank = group->rank;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Group_rank)

int PMPI_Group_free(MPI_Group *group)
{
    const char *fn = "MPI_Group_free";
    if (group == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    CHECK_GROUP(*group, fn);
    ivc_mpi_group_release(*group);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Group_free)

/* Checks n distinct ranks of g and the output pointer; returns MPI_SUCCESS or raises
 * MPI_ERR_RANK / MPI_ERR_ARG. */
static int check_ranks(MPI_Group g, int n, const int *ranks, const MPI_Group *out,
                       const char *fn)
{
    if (n < 0 || n > g->size)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "count %d is out of range", n);
    if (n > 0)
        CHECK_NULL_ARG(MPI_COMM_WORLD, ranks, fn, "ranks");
    CHECK_NULL_ARG(MPI_COMM_WORLD, out, fn, "newgroup");
    char *seen = calloc((size_t)g->size + 1, 1);
    if (seen == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size || seen[ranks[i]]) {
            int r = ranks[i];
            free(seen);
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_RANK, fn,
                                 "rank %d is invalid or repeated (group of %d)", r, g->size);
        }
        seen[ranks[i]] = 1;
    }
    free(seen);
    return MPI_SUCCESS;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_incl";
    CHECK_GROUP(group, fn);
    int rc = check_ranks(group, n, ranks, newgroup, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    int *w = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (w == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n; i++)
        w[i] = group->world[ranks[i]];
    rc = group_out(w, n, newgroup, fn);
    free(w);
    return rc;
}
IVC_MPI_WEAK(Group_incl)

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_excl";
    CHECK_GROUP(group, fn);
    int rc = check_ranks(group, n, ranks, newgroup, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    char *drop = calloc((size_t)group->size + 1, 1);
    int *w = malloc((size_t)group->size * sizeof(int) + 1);
    if (drop == NULL || w == NULL) {
        free(drop);
        free(w);
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    for (int i = 0; i < n; i++)
        drop[ranks[i]] = 1;
    int k = 0;
    for (int i = 0; i < group->size; i++)
        if (!drop[i])
            w[k++] = group->world[i];
    rc = group_out(w, k, newgroup, fn);
    free(drop);
    free(w);
    return rc;
}
IVC_MPI_WEAK(Group_excl)

/* Checks the arguments of Group_range_incl/excl other than the triplets' values. */
static int check_range_args(int n, int ranges[][3], const MPI_Group *newgroup, const char *fn)
{
    if (n < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "negative count %d", n);
    if (n > 0)
        CHECK_NULL_ARG(MPI_COMM_WORLD, ranges, fn, "ranges");
    CHECK_NULL_ARG(MPI_COMM_WORLD, newgroup, fn, "newgroup");
    return MPI_SUCCESS;
}

/* Expands (first, last, stride) triplets into ranks; returns the count or -1 if invalid. */
static int expand_ranges(MPI_Group g, int n, int ranges[][3], int **out)
{
    long total = 0;
    for (int i = 0; i < n; i++) {
        int f = ranges[i][0], l = ranges[i][1], s = ranges[i][2];
        if (s == 0 || f < 0 || f >= g->size || l < 0 || l >= g->size)
            return -1;
        if ((s > 0 && l < f) || (s < 0 && l > f))
            continue;
        total += (l - f) / s + 1;
    }
    if (total > g->size)
        return -1;
    int *r = malloc((size_t)(total > 0 ? total : 1) * sizeof(int));
    if (r == NULL)
        return -1;
    int k = 0;
    for (int i = 0; i < n; i++) {
        int f = ranges[i][0], l = ranges[i][1], s = ranges[i][2];
        for (int v = f; s > 0 ? v <= l : v >= l; v += s)
            r[k++] = v;
    }
    *out = r;
    return k;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_range_incl";
    CHECK_GROUP(group, fn);
    int rc = check_range_args(n, ranges, newgroup, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    int *r = NULL, k = expand_ranges(group, n, ranges, &r);
    if (k < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_RANK, fn, "invalid range");
    rc = PMPI_Group_incl(group, k, r, newgroup);
    free(r);
    return rc;
}
IVC_MPI_WEAK(Group_range_incl)

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_range_excl";
    CHECK_GROUP(group, fn);
    int rc = check_range_args(n, ranges, newgroup, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    int *r = NULL, k = expand_ranges(group, n, ranges, &r);
    if (k < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_RANK, fn, "invalid range");
    rc = PMPI_Group_excl(group, k, r, newgroup);
    free(r);
    return rc;
}
IVC_MPI_WEAK(Group_range_excl)

static int find(MPI_Group g, int world)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == world)
            return i;
    return MPI_UNDEFINED;
}

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    const char *fn = "MPI_Group_translate_ranks";
    CHECK_GROUP(group1, fn);
    CHECK_GROUP(group2, fn);
    if (n < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "negative count %d", n);
    if (n > 0) {
        CHECK_NULL_ARG(MPI_COMM_WORLD, ranks1, fn, "ranks1");
        CHECK_NULL_ARG(MPI_COMM_WORLD, ranks2, fn, "ranks2");
    }
    for (int i = 0; i < n; i++) {
        int r = ranks1[i];
        if (r == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        if (r < 0 || r >= group1->size)
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_RANK, fn, "rank %d is not in the group",
                                 r);
        ranks2[i] = find(group2, group1->world[r]);
    }
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Group_translate_ranks)

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    const char *fn = "MPI_Group_compare";
    CHECK_GROUP(group1, fn);
    CHECK_GROUP(group2, fn);
    CHECK_NULL_ARG(MPI_COMM_WORLD, result, fn, "result");
    if (group1->size != group2->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    if (group1->size == 0 ||
        memcmp(group1->world, group2->world, (size_t)group1->size * sizeof(int)) == 0) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    for (int i = 0; i < group1->size; i++) {
        if (find(group2, group1->world[i]) == MPI_UNDEFINED) {
            *result = MPI_UNEQUAL;
            return MPI_SUCCESS;
        }
    }
    *result = MPI_SIMILAR;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Group_compare)

enum { SET_UNION, SET_INTER, SET_DIFF };

/* Union: group1's order, then group2's new members; intersection and difference keep
 * group1's order (MPI 4.1 sec. 7.3.2). */
static int set_op(MPI_Group a, MPI_Group b, int kind, MPI_Group *out, const char *fn)
{
    CHECK_GROUP(a, fn);
    CHECK_GROUP(b, fn);
    CHECK_NULL_ARG(MPI_COMM_WORLD, out, fn, "newgroup");
    int *w = malloc((size_t)(a->size + b->size + 1) * sizeof(int));
    if (w == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    int k = 0;
    for (int i = 0; i < a->size; i++) {
        int inb = find(b, a->world[i]) != MPI_UNDEFINED;
        if (kind == SET_UNION || (kind == SET_INTER && inb) || (kind == SET_DIFF && !inb))
            w[k++] = a->world[i];
    }
    if (kind == SET_UNION)
        for (int i = 0; i < b->size; i++)
            if (find(a, b->world[i]) == MPI_UNDEFINED)
                w[k++] = b->world[i];
    int rc = group_out(w, k, out, fn);
    free(w);
    return rc;
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(group1, group2, SET_UNION, newgroup, "MPI_Group_union");
}
IVC_MPI_WEAK(Group_union)

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(group1, group2, SET_INTER, newgroup, "MPI_Group_intersection");
}
IVC_MPI_WEAK(Group_intersection)

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(group1, group2, SET_DIFF, newgroup, "MPI_Group_difference");
}
IVC_MPI_WEAK(Group_difference)

/* ---- communicators from groups ---- */

/* Checks that every member of g belongs to comm. */
static int group_in_comm(MPI_Group g, MPI_Comm comm)
{
    for (int i = 0; i < g->size; i++) {
        int found = 0;
        for (int j = 0; j < comm->size && !found; j++)
            found = comm->world[j] == g->world[i];
        if (!found)
            return 0;
    }
    return 1;
}

static int *world_copy(MPI_Group g)
{
    int *w = malloc((size_t)(g->size > 0 ? g->size : 1) * sizeof(int));
    if (w != NULL && g->size > 0)
        memcpy(w, g->world, (size_t)g->size * sizeof(int));
    return w;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create";
    CHECK_COMM(comm, fn);
    if (!ivc_mpi_group_valid(group))
        return ivc_mpi_raise(comm, MPI_ERR_GROUP, fn, "invalid group");
    if (newcomm == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL newcomm");
    if (comm->inter)
        return ivc_mpi_intercomm_create(comm, group, newcomm);
    if (!group_in_comm(group, comm))
        return ivc_mpi_raise(comm, MPI_ERR_GROUP, fn, "the group is not a subset of comm");
    int *w = world_copy(group);
    if (w == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    int rc = ivc_mpi_comm_make(comm, comm, group->rank != MPI_UNDEFINED, w, group->size, newcomm);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "creating the communicator failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_create)

/* Collective over the group's members only: the id agreement runs over a temporary
 * communicator of the group on a context reserved for the parent and tag, so that threads
 * creating communicators at once (with different tags or parents, as MPI asks) keep their
 * agreements apart. */
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create_group";
    CHECK_COMM(comm, fn);
    if (!ivc_mpi_group_valid(group))
        return ivc_mpi_raise(comm, MPI_ERR_GROUP, fn, "invalid group");
    if (comm->inter)
        return ivc_mpi_raise(comm, MPI_ERR_COMM, fn, "comm is an intercommunicator");
    if (tag < 0)
        return ivc_mpi_raise(comm, MPI_ERR_TAG, fn, "tag %d is invalid", tag);
    CHECK_NULL_ARG(comm, newcomm, fn, "newcomm");
    if (!group_in_comm(group, comm))
        return ivc_mpi_raise(comm, MPI_ERR_GROUP, fn, "the group is not a subset of comm");
    if (group->rank == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    struct ivc_mpi_comm_s tmp;
    memset(&tmp, 0, sizeof(tmp));
    tmp.magic = COMM_MAGIC;
    tmp.ctx = ivc_mpi_comm_reserved_ctx(comm->ctx_id, tag);
    tmp.rank = group->rank;
    tmp.size = tmp.local_size = group->size;
    tmp.world = tmp.local_world = group->world;
    tmp.errh = comm->errh;
    tmp.predefined = 1; /* requests neither retain nor free it */
    tmp.standin = 1;
    int *w = world_copy(group);
    if (w == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    int rc = ivc_mpi_comm_make(&tmp, comm, 1, w, group->size, newcomm);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "creating the communicator failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_create_group)

/* The one hardware resource IVC knows: the ranks that share this rank's region (the
 * coordinator's locality detector), whichever VMs they run in. Its color is the lowest world
 * rank of the region; ranks reached through another channel (other hosts) get other
 * colors. */
#define HW_SHARED_MEMORY "mpi_shared_memory"

static int region_color(void)
{
    return ivc_coord.local != NULL && ivc_coord.nlocal > 0 ? (int)ivc_coord.local[0]
                                                           : ivc_mpi_world_rank;
}

/* Whether every member of intracommunicator comm shares this rank's region. The same
 * answer on every member, so MPI_COMM_TYPE_HW_UNGUIDED needs no extra agreement. */
static int comm_in_region(MPI_Comm comm)
{
    for (int i = 0; i < comm->size; i++) {
        int w = comm->world[i], in = w == ivc_mpi_world_rank;
        for (uint32_t j = 0; !in && ivc_coord.local != NULL && j < ivc_coord.nlocal; j++)
            in = (int)ivc_coord.local[j] == w;
        if (!in)
            return 0;
    }
    return 1;
}

/* Color of a guided split: the resource that info's "mpi_hw_resource_type" names
 * (HW_SHARED_MEMORY) or, for RESOURCE_GUIDED, the process set "mpi_pset_name" names
 * ("mpi://WORLD", "mpi://SELF", "ivc://host": mpi_session.c). MPI_UNDEFINED (newcomm
 * MPI_COMM_NULL) without the key or for a value IVC does not know. */
static int guided_color(MPI_Info info, int resource)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int len = (int)sizeof(v), flag = 0;
    if (info == MPI_INFO_NULL)
        return MPI_UNDEFINED;
    if (PMPI_Info_get_string(info, "mpi_hw_resource_type", &len, v, &flag) == MPI_SUCCESS &&
        flag && strcmp(v, HW_SHARED_MEMORY) == 0)
        return region_color();
    len = (int)sizeof(v);
    flag = 0;
    if (!resource || PMPI_Info_get_string(info, "mpi_pset_name", &len, v, &flag) != MPI_SUCCESS ||
        !flag)
        return MPI_UNDEFINED;
    if (strcmp(v, "mpi://WORLD") == 0)
        return 0;
    if (strcmp(v, "mpi://SELF") == 0)
        return ivc_mpi_world_rank;
    if (strcmp(v, "ivc://host") == 0)
        return region_color();
    return MPI_UNDEFINED;
}

/* MPI_COMM_TYPE_SHARED and the guided types with HW_SHARED_MEMORY group the ranks of one
 * region. MPI_COMM_TYPE_HW_UNGUIDED splits by region when comm spans several (and sets
 * "mpi_hw_resource_type" in info to say so), else returns MPI_COMM_NULL: IVC knows no
 * smaller resource, and the result must be a strict subset of comm. */
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_split_type";
    CHECK_COMM(comm, fn);
    if (info != MPI_INFO_NULL && (info == NULL || info->magic != INFO_MAGIC))
        return ivc_mpi_raise(comm, MPI_ERR_INFO, fn, "invalid info");
    CHECK_NULL_ARG(comm, newcomm, fn, "newcomm");
    int color;
    switch (split_type) {
    case MPI_UNDEFINED: color = MPI_UNDEFINED; break;
    case MPI_COMM_TYPE_SHARED: color = region_color(); break;
    case MPI_COMM_TYPE_HW_GUIDED: color = guided_color(info, 0); break;
    case MPI_COMM_TYPE_RESOURCE_GUIDED: color = guided_color(info, 1); break;
    case MPI_COMM_TYPE_HW_UNGUIDED:
        color = comm->inter || comm_in_region(comm) ? MPI_UNDEFINED : region_color();
        if (color != MPI_UNDEFINED && info != MPI_INFO_NULL) {
            int rc = PMPI_Info_set(info, "mpi_hw_resource_type", HW_SHARED_MEMORY);
            if (rc != MPI_SUCCESS)
                return ivc_mpi_raise(comm, rc, fn, "setting mpi_hw_resource_type failed");
        }
        break;
    default: return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "unknown split type %d", split_type);
    }
    return PMPI_Comm_split(comm, color, key, newcomm);
}
IVC_MPI_WEAK(Comm_split_type)

/* The new communicator's hints are those of info, not comm's. */
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_dup_with_info";
    CHECK_COMM(comm, fn);
    if (info != MPI_INFO_NULL && (info == NULL || info->magic != INFO_MAGIC))
        return ivc_mpi_raise(comm, MPI_ERR_INFO, fn, "invalid info");
    CHECK_NULL_ARG(comm, newcomm, fn, "newcomm");
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = ivc_mpi_comm_info_set(*newcomm, info, 1);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "storing the hints failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_dup_with_info)
