/* launcher_member WHO ACTION [CODE]: a stand-in for an MPI rank that only plays with its
 * membership slot, to check how ivcrun judges a rank's end.
 *
 * Every rank attaches the job's region from the PMI-style environment ivcrun provides and
 * marks its slot JOINED. The rank named WHO (a number, or "all") then does ACTION:
 *   join          exit 0 while still JOINED (never "called MPI_Finalize")
 *   finalize      mark FINALIZED, exit 0
 *   abort CODE    mark ABORTED, ivc_region_abort(CODE), exit CODE
 *   abort-wait CODE  the same, but wait (up to 60 s) to be stopped instead of exiting
 * The other ranks wait up to 60 s (ivcrun stops them), then finalize.
 *
 * With MEMBER_HOLD=FILE in the environment, rank WHO first creates FILE.waiting and waits
 * (at most 10 s) for FILE to exist before it hands over its section, and creates FILE.done
 * just before it ends: a test can stop ivcrun meanwhile, so that the hand-over and the end
 * reach ivcrun at once. */
#include "boot/boot.h"
#include "region/region.h"
#include "region/region_sect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Creates PATH + SUFFIX (an empty file), or says why not. */
static void touch(const char *path, const char *suffix)
{
    char name[4096];
    snprintf(name, sizeof(name), "%s%s", path, suffix);
    FILE *f = fopen(name, "w");
    if (f == NULL)
        perror(name);
    else
        fclose(f);
}

static void await_file(const char *path)
{
    touch(path, ".waiting");
    for (int t = 0; t < 1000 && access(path, F_OK) != 0; t++)
        usleep(10000);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: launcher_member WHO join|finalize|abort CODE|abort-wait CODE\n");
        return 2;
    }
    ivc_boot_t b;
    static ivc_region_t r; /* reachable at exit: the ranks end without detaching */
    if (ivc_boot_init(&b) != 0 || b.singleton ||
        ivc_region_attach(b.region, b.job, b.size, &r) != 0) {
        fprintf(stderr, "launcher_member: no region to attach (run me under ivcrun)\n");
        return 2;
    }
    /* As a rank does: its lock, JOINED, then a start-up wait for every rank (so that no
     * slot is left by a rank that ended before the others arrived: that would be what an
     * earlier job leaves, and a late attacher would format the region afresh). */
    ivc_region_lock(&r, b.rank);
    const char *hold = getenv("MEMBER_HOLD");
    int me = strcmp(argv[1], "all") == 0 || (uint32_t)atoi(argv[1]) == b.rank;
    if (hold != NULL && me)
        await_file(hold);
    /* Its write-exclusive section, where ivcrun made them: the slot's state counts only as
     * its owner's section confirms it (region.h). */
    if (ivc_region_sect_join(&r, b.rank, 10000) != 0) {
        fprintf(stderr, "launcher_member: cannot join the region's sections\n");
        return 2;
    }
    ivc_region_member_set(&r, b.rank, IVC_MEMBER_JOINED);
    for (int t = 0; t < 1000; t++) {
        uint32_t k = 0;
        while (k < b.size && ivc_region_member_get(&r, k) != IVC_MEMBER_ABSENT)
            k++;
        if (k == b.size)
            break;
        usleep(10000);
    }
    const char *action = argv[2];
    int code = argc > 3 ? atoi(argv[3]) : 0;
    if (!me) {
        sleep(60);
        action = "finalize";
    }
    if (!strcmp(action, "join"))
        return 0;
    if (!strcmp(action, "finalize")) {
        ivc_region_member_set(&r, b.rank, IVC_MEMBER_FINALIZED);
        return 0;
    }
    if (!strcmp(action, "abort") || !strcmp(action, "abort-wait")) {
        ivc_region_member_set(&r, b.rank, IVC_MEMBER_ABORTED);
        ivc_region_abort(&r, b.rank, code);
        if (!strcmp(action, "abort-wait"))
            sleep(60);
        if (hold != NULL)
            touch(hold, ".done");
        return code;
    }
    fprintf(stderr, "launcher_member: unknown action %s\n", action);
    return 2;
}
