/* ivc-info: prints every IVC tunable with its current value (from the environment) and
 * default, or inspects a region file. */
#include "base/ivc_log.h"
#include "coord/coord.h"
#include "region/region.h"
#include "shm/shm_config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: ivc-info            print all tunables (IVC_* variables) and their values\n"
               "       ivc-info -r FILE    inspect a region: header and membership table\n");
}

static int inspect(const char *path)
{
    ivc_region_t r;
    if (ivc_region_attach(path, 0, 0, &r) != 0)
        return 1;
    ivc_region_hdr_t *h = ivc_region_hdr(&r);
    printf("region %s\n  layout version %u, format 0x%08x, %" PRIu64 " bytes\n", path,
           h->layout_version, h->format, r.size);
    printf("  job %" PRIu64 ", %u ranks, heap %" PRIu64 " of %" PRIu64 " bytes used\n", r.job_id,
           r.world_size, ivc_load_relaxed(&h->heap_next) - r.heap_off, r.heap_end - r.heap_off);
    uint32_t arank;
    int acode;
    if (ivc_region_aborted(&r, &arank, &acode))
        printf("  aborted by rank %u with code %d\n", arank, acode);
    static const char *const names[] = {"absent", "joined", "finalized", "aborted"};
    for (uint32_t i = 0; i < r.world_size; i++) {
        uint32_t s = ivc_region_member_get(&r, i);
        printf("  rank %u: %s\n", i, s < 4 ? names[s] : "?");
    }
    ivc_region_detach(&r, 0);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "-r") == 0)
        return inspect(argv[2]);
    if (argc != 1) {
        usage(argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) ? stdout
                                                                                  : stderr);
        return argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) ? 0 : 2;
    }
    printf("# IVC tunables: set as environment variables of the ranks (ivcrun passes its own\n"
           "# environment on). Values shown are those this environment gives.\n");
    return ivc_coord_print_config(stdout) == 0 ? 0 : 1;
}
