/* Membership where the region has write-exclusive sections (region.h,
 * ivc_region_member_get): the file's table, which any rank and any process that opens the
 * file can write, counts only as far as the ranks' own section records confirm it. Six
 * ranks in one process, each with its own mapping of the region and its own sealed
 * section; this test plays the launcher and decides which rank has which peer's section
 * when, so that each interleaving happens in a fixed order:
 *  - forged records (FAILED by an honest peer, FAILED by the launcher for a live rank,
 *    ABORTED with an abort word, FINALIZED, a tag-less accusation) change no one's view, and
 *    the owner puts its slot back;
 *  - a true declaration counts although a forger blocked its record in the file (the
 *    reader learns it from the declarer's section in its liveness round), and before the
 *    reader has mapped the declarer's section (it maps it on demand);
 *  - the launcher's record counts once the rank's process is gone (its lock released);
 *  - an owner whose own record holds no state it could have set is its own failure. */
#define _GNU_SOURCE
#include "test_util.h"

#include "base/ivc_atomic.h"
#include "base/ivc_fdpass.h"
#include "region/region.h"
#include "region/region_sect.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define W 6
enum { VICTIM = 0, ACCUSER = 1, WATCHER = 2, GARBLED = 3, DYING = 4, VICTIM2 = 5 };

static ivc_region_t reg[W];
static int lsock[W]; /* the launcher's ends */
static int secfd[W];  /* each rank's section, as handed over */

static void give(uint32_t owner, uint32_t to)
{
    ivc_sect_msg_t m = {IVC_SECT_MAGIC, owner, IVC_SECT_ALL, 0, 0, reg[owner].sec_size};
    T_EQ(sizeof(m), ivc_fd_send(lsock[to], &m, sizeof(m), secfd[owner], 0), "hand a section");
}

static ivc_member_t *slot(uint32_t k)
{
    return ivc_region_member(&reg[WATCHER], k); /* the file, through any rank's mapping */
}

static void forge_failed(uint32_t k, uint32_t by)
{
    ivc_member_t *m = slot(k);
    m->fail_how = IVC_FAIL_PROTOCOL;
    m->fail_by = by;
    snprintf(m->fail_what, sizeof(m->fail_what), "forged");
    ivc_store_release(&m->fail_claim, 1);
    ivc_store_release(&m->state, IVC_MEMBER_FAILED);
}

static void put_back(uint32_t k, uint32_t forged)
{
    uint32_t was = 0;
    T_EQ(1, ivc_region_member_repair(&reg[k], &was), "the owner puts its forged slot back");
    T_EQ(forged, was, "the forged state it found");
    T_EQ(IVC_MEMBER_JOINED, ivc_load_acquire(&slot(k)->state), "the file's slot after repair");
    T_EQ(0, ivc_load_relaxed(&slot(k)->fail_claim), "the claim after repair");
}

int main(void)
{
    char path[64];
    snprintf(path, sizeof(path), "/dev/shm/ivc-unit-members-%d", (int)getpid());
    uint64_t sec = ivc_sect_member_bytes(W) + 4096;
    int rc = ivc_region_create_sect(path, ivc_region_fixed_bytes(W) + (1 << 20), 42, W, sec,
                                    &reg[0]);
    if (rc != 0)
        T_SKIP("cannot create a region in /dev/shm: %s", strerror(-rc));
    for (uint32_t k = 0; k < W; k++) {
        if (k > 0)
            T_EQ(0, ivc_region_attach(path, 42, W, &reg[k]), "attach");
        T_EQ(0, ivc_region_lock(&reg[k], k), "lock");
        int sv[2];
        T_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), "socketpair");
        char fd[16];
        snprintf(fd, sizeof(fd), "%d", sv[1]);
        setenv("IVC_SECTION_FD", fd, 1);
        T_EQ(0, ivc_region_sect_join(&reg[k], k, 2000), "join the sections");
        lsock[k] = sv[0];
        ivc_sect_msg_t m;
        T_EQ(sizeof(m), ivc_fd_recv(lsock[k], &m, sizeof(m), &secfd[k], 0), "its section");
        T_TRUE(secfd[k] >= 0 && m.rank == k, "a section of its own");
        ivc_region_member_set(&reg[k], k, IVC_MEMBER_JOINED);
    }
    unlink(path);
    /* Every section to every rank, but the accuser's to the watcher and to the dying rank
     * (they take it on demand later). */
    for (uint32_t k = 0; k < W; k++)
        for (uint32_t q = 0; q < W; q++)
            if (q != k && !(k == ACCUSER && (q == WATCHER || q == DYING)))
                give(k, q);
    for (uint32_t k = 0; k < W; k++)
        ivc_region_member_scan(&reg[k]); /* maps what came */

    /* A FAILED record naming the accuser, which declared nothing: not believed, neither
     * before the watcher has the accuser's section (it cannot confirm) nor after. */
    forge_failed(VICTIM, ACCUSER);
    T_EQ(IVC_MEMBER_JOINED, ivc_region_member_get(&reg[WATCHER], VICTIM), "unconfirmable");
    give(ACCUSER, WATCHER);
    T_EQ(IVC_MEMBER_JOINED, ivc_region_member_get(&reg[WATCHER], VICTIM), "refuted");
    T_EQ(IVC_MEMBER_JOINED, ivc_region_member_get(&reg[VICTIM], VICTIM), "the victim's view");
    put_back(VICTIM, IVC_MEMBER_FAILED);

    /* The launcher's record for a rank whose lock is held. */
    forge_failed(VICTIM, IVC_FAIL_BY_LAUNCHER);
    T_EQ(IVC_MEMBER_JOINED, ivc_region_member_get(&reg[WATCHER], VICTIM), "launcher, live rank");
    put_back(VICTIM, IVC_MEMBER_FAILED);

    /* ABORTED with an abort word naming it; FINALIZED. */
    ivc_region_hdr_t *h = ivc_region_hdr(&reg[WATCHER]);
    ivc_store_release(&slot(VICTIM)->state, IVC_MEMBER_ABORTED);
    ivc_store_relaxed(&h->abort_rank, VICTIM);
    ivc_store_relaxed(&h->abort_code, 7);
    ivc_store_release(&h->abort_state, 2);
    uint32_t arank;
    int acode;
    T_EQ(0, ivc_region_aborted(&reg[WATCHER], &arank, &acode), "a forged abort");
    T_EQ(IVC_MEMBER_JOINED, ivc_region_member_get(&reg[WATCHER], VICTIM), "forged ABORTED");
    put_back(VICTIM, IVC_MEMBER_ABORTED);
    ivc_store_release(&h->abort_state, 0);
    ivc_store_release(&slot(VICTIM)->state, IVC_MEMBER_FINALIZED);
    T_EQ(IVC_MEMBER_JOINED, ivc_region_member_get(&reg[WATCHER], VICTIM), "forged FINALIZED");
    put_back(VICTIM, IVC_MEMBER_FINALIZED);

    /* An accusation word in the accuser's own section without its tag: what a rank that
     * scribbles its own section writes by chance. */
    ivc_sect_member_t *acc =
        (ivc_sect_member_t *)(reg[ACCUSER].base + ivc_region_sect_off(&reg[ACCUSER], ACCUSER));
    ivc_store_release(&acc->accused[VICTIM], IVC_FAIL_PROTOCOL);
    ivc_region_member_scan(&reg[WATCHER]);
    T_EQ(IVC_MEMBER_JOINED, ivc_region_member_get(&reg[WATCHER], VICTIM), "a tag-less word");
    ivc_store_release(&acc->accused[VICTIM], 0);

    /* A true declaration whose file record a forger blocked (the claim taken first): the
     * accuser knows at once, the watcher and the victim from the accuser's section in their
     * liveness round, and the victim's repair leaves it alone. */
    ivc_store_release(&slot(VICTIM)->fail_claim, 1);
    T_EQ(1, ivc_region_member_fail(&reg[ACCUSER], VICTIM, IVC_FAIL_PROTOCOL, ACCUSER, "test"),
         "the declaration counts");
    T_EQ(IVC_MEMBER_JOINED, ivc_load_acquire(&slot(VICTIM)->state), "the file: blocked");
    T_EQ(IVC_MEMBER_FAILED, ivc_region_member_get(&reg[ACCUSER], VICTIM), "the accuser's view");
    T_EQ(IVC_MEMBER_JOINED, ivc_region_member_get(&reg[WATCHER], VICTIM), "before the round");
    ivc_region_member_scan(&reg[WATCHER]);
    T_EQ(IVC_MEMBER_FAILED, ivc_region_member_get(&reg[WATCHER], VICTIM), "after the round");
    uint32_t how, by;
    char what[IVC_FAIL_WHAT_LEN];
    T_EQ(1, ivc_region_member_failure(&reg[WATCHER], VICTIM, &how, &by, what), "its record");
    T_EQ(ACCUSER, by, "declared by");
    T_EQ(IVC_FAIL_PROTOCOL, how, "how");
    ivc_region_member_scan(&reg[VICTIM]);
    T_EQ(IVC_MEMBER_FAILED, ivc_region_member_get(&reg[VICTIM], VICTIM), "the victim learns it");
    uint32_t was;
    T_EQ(0, ivc_region_member_repair(&reg[VICTIM], &was), "nothing to put back");

    /* A true declaration with its file record, read by a rank that has not mapped the
     * accuser's section yet (it lies in its socket): confirmed on demand. */
    T_EQ(1, ivc_region_member_fail(&reg[ACCUSER], VICTIM2, IVC_FAIL_SILENT, ACCUSER, "test"),
         "the second declaration");
    T_EQ(IVC_MEMBER_FAILED, ivc_load_acquire(&slot(VICTIM2)->state), "its file record");
    give(ACCUSER, DYING);
    T_EQ(IVC_MEMBER_FAILED, ivc_region_member_get(&reg[DYING], VICTIM2), "confirmed on demand");
    T_EQ(1, ivc_region_member_failure(&reg[DYING], VICTIM2, &how, &by, what), "its record");
    T_EQ(ACCUSER, by, "declared by");
    T_EQ(IVC_FAIL_SILENT, how, "how");

    /* An owner's record holding no state: its own failure. */
    ivc_sect_member_t *own =
        (ivc_sect_member_t *)(reg[GARBLED].base + ivc_region_sect_off(&reg[GARBLED], GARBLED));
    ivc_store_release(&own->state, 0x5a5a5a5au);
    T_EQ(IVC_MEMBER_FAILED, ivc_region_member_get(&reg[WATCHER], GARBLED), "a garbled record");
    T_EQ(1, ivc_region_member_failure(&reg[WATCHER], GARBLED, &how, &by, what), "its record");
    T_EQ(GARBLED, by, "blamed on");

    /* The launcher's record once the rank's process is gone (its lock with its file). */
    forge_failed(DYING, IVC_FAIL_BY_LAUNCHER);
    T_EQ(IVC_MEMBER_JOINED, ivc_region_member_get(&reg[WATCHER], DYING), "still locked");
    ivc_region_detach(&reg[DYING], 0);
    T_EQ(IVC_MEMBER_FAILED, ivc_region_member_get(&reg[WATCHER], DYING), "gone: believed");

    for (uint32_t k = 0; k < W; k++)
        if (k != DYING)
            ivc_region_detach(&reg[k], 0);
    printf("members: forged records refused, true declarations confirmed\n");
    return 0;
}
