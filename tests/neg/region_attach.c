/* A region that is not what this library expects is refused with an error naming what
 * differs: magic, layout version, format word, size, job, world size, inconsistent layout. */
#include "test_util.h"

#include "region/region.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static char path[64], logpath[64];

/* Attaches with stderr captured; checks the return code and that the message says `want`. */
static void expect(int rc_want, const char *want, uint64_t job, uint32_t world, const char *what)
{
    fflush(stderr);
    int saved = dup(2);
    int fd = open(logpath, O_CREAT | O_TRUNC | O_RDWR, 0600);
    dup2(fd, 2);
    ivc_region_t r;
    int rc = ivc_region_attach(path, job, world, &r);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char msg[1024] = "";
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, msg, sizeof(msg) - 1);
    msg[n > 0 ? n : 0] = '\0';
    close(fd);
    if (rc == 0)
        ivc_region_detach(&r, 0);
    if (rc != rc_want)
        T_FAIL("%s: expected rc %d, got %d (%s)", what, rc_want, rc, msg);
    if (want != NULL && strstr(msg, want) == NULL)
        T_FAIL("%s: expected the message to say '%s', got '%s'", what, want, msg);
    fprintf(stderr, "  %s -> %s", what, msg[0] ? msg : "accepted\n");
}

static void fresh(void)
{
    ivc_region_t r;
    if (ivc_region_create(path, 2u << 20, 7, 4, &r) != 0)
        T_FAIL("cannot create %s", path);
    ivc_region_detach(&r, 0);
}

static void poke(size_t off, const void *v, size_t len)
{
    int fd = open(path, O_RDWR);
    if (fd < 0 || pwrite(fd, v, len, (off_t)off) != (ssize_t)len)
        T_FAIL("cannot modify %s", path);
    close(fd);
}

int main(void)
{
    snprintf(path, sizeof(path), "/dev/shm/ivc-neg-region-%d", (int)getpid());
    snprintf(logpath, sizeof(logpath), "/tmp/ivc-neg-region-%d.log", (int)getpid());

    fresh();
    expect(0, NULL, 7, 4, "matching region");
    expect(0, NULL, 0, 0, "no expectations");

    uint64_t bad_magic = 0x1122334455667788ull;
    poke(offsetof(ivc_region_hdr_t, magic), &bad_magic, 8);
    expect(-EPROTO, "is not an IVC region: magic 0x1122334455667788", 7, 4, "bad magic");

    fresh();
    uint32_t v = IVC_LAYOUT_VERSION + 1;
    poke(offsetof(ivc_region_hdr_t, layout_version), &v, 4);
    char want[80];
    snprintf(want, sizeof(want), "layout version %u; this library speaks version %u", v,
             IVC_LAYOUT_VERSION);
    expect(-EPROTO, want, 7, 4, "bad version");

    fresh();
    uint32_t fmt = IVC_REGION_FORMAT ^ (0x20u << 16); /* another record header size */
    poke(offsetof(ivc_region_hdr_t, format), &fmt, 4);
    expect(-EPROTO, "record header", 7, 4, "bad format word");

    fresh();
    uint64_t sz = 3u << 20;
    poke(offsetof(ivc_region_hdr_t, size), &sz, 8);
    expect(-EBADF, "header says 3145728 bytes but 2097152 are mapped", 7, 4, "bad size");

    fresh();
    expect(-ESRCH, "belongs to job 7, not to this rank's job 8", 8, 4, "other job");
    expect(-EXDEV, "was made for 4 ranks, but this job has 5", 7, 5, "other world size");

    fresh();
    uint64_t heap = 1u << 30;
    poke(offsetof(ivc_region_hdr_t, heap_end), &heap, 8);
    expect(-EPROTO, "header layout is inconsistent", 7, 4, "heap beyond the region");

    fresh();
    if (truncate(path, 1u << 20) != 0)
        T_FAIL("truncate");
    expect(-EBADF, "header says 2097152 bytes but 1048576 are mapped", 7, 4, "shrunk file");
    if (truncate(path, 4096) != 0)
        T_FAIL("truncate");
    expect(-EBADF, "smaller than the minimum", 7, 4, "tiny file");

    /* A zero-filled file is formatted by the first attacher that knows the job size. */
    unlink(path);
    int fd = open(path, O_CREAT | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, 2u << 20) != 0)
        T_FAIL("cannot make a zero-filled region");
    close(fd);
    expect(-EPROTO, "does not know the job size", 9, 0, "empty region, unknown size");
    expect(0, NULL, 9, 3, "empty region formatted on attach");
    expect(0, NULL, 9, 3, "then attached as formatted");
    expect(-ESRCH, "belongs to job 9", 10, 3, "formatted for another job");

    unlink(path);
    unlink(logpath);
    printf("region_attach: ok\n");
    return 0;
}
