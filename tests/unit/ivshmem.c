/* ivshmem device discovery against a fake sysfs tree: which PCI functions count, the order
 * (by PCI address), the selectors of IVC_REGION, BAR sizes, and the errors. */
#include "test_util.h"

#include "region/ivshmem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256];

static void put(const char *dev, const char *file, const char *text, long size)
{
    char p[512];
    snprintf(p, sizeof(p), "%s/%s", root, dev);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/%s/%s", root, dev, file);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || (text && write(fd, text, strlen(text)) < 0) || (size && ftruncate(fd, size)))
        T_FAIL("cannot make %s", p);
    close(fd);
}

static void device(const char *bdf, const char *vendor, const char *id, long bar2, int msix)
{
    put(bdf, "vendor", vendor, 0);
    put(bdf, "device", id, 0);
    put(bdf, "resource0", NULL, 256);
    put(bdf, "resource2", NULL, bar2);
    if (msix)
        put(bdf, "resource1", NULL, 4096);
}

int main(void)
{
    snprintf(root, sizeof(root), "/tmp/ivc-unit-sysfs-%d", (int)getpid());
    mkdir(root, 0755);
    ivc_ivshmem_t devs[IVC_IVSHMEM_MAX], d;
    T_EQ(0, ivc_ivshmem_list(root, devs, IVC_IVSHMEM_MAX), "devices in an empty tree");
    T_EQ(-ENODEV, ivc_ivshmem_select(root, NULL, &d), "select with no device");

    /* Created out of address order; other vendors' and devices' functions do not count. */
    device("0000:00:05.0", "0x1af4\n", "0x1110\n", 1 << 20, 1);
    device("0000:00:03.0", "0x1af4\n", "0x1110\n", 4 << 20, 0);
    device("0000:00:04.0", "0x1af4\n", "0x1000\n", 1 << 20, 0); /* virtio-net */
    device("0000:00:02.0", "0x8086\n", "0x1110\n", 1 << 20, 0);
    T_EQ(2, ivc_ivshmem_list(root, devs, IVC_IVSHMEM_MAX), "ivshmem devices");
    T_TRUE(!strcmp(devs[0].bdf, "0000:00:03.0") && !strcmp(devs[1].bdf, "0000:00:05.0"),
           "devices ordered by PCI address");
    T_EQ(4 << 20, (long)devs[0].bar2_size, "BAR2 size of the first");
    T_TRUE(!devs[0].has_msix && devs[1].has_msix, "MSI-X (doorbell) only on the second");
    T_TRUE(devs[0].has_regs, "BAR0 registers present");
    T_EQ(1, ivc_ivshmem_list(root, devs, 1), "list honours max");

    static const struct {
        const char *sel;
        int rc;
        const char *bdf;
    } cases[] = {
        {NULL, 0, "0000:00:03.0"},
        {"", 0, "0000:00:03.0"},
        {"ivshmem", 0, "0000:00:03.0"},
        {"ivshmem:0", 0, "0000:00:03.0"},
        {"ivshmem:1", 0, "0000:00:05.0"},
        {"ivshmem:2", -ENODEV, NULL},
        {"ivshmem:0000:00:05.0", 0, "0000:00:05.0"},
        {"ivshmem:00:05.0", 0, "0000:00:05.0"},
        {"ivshmem:0000:00:04.0", -ENODEV, NULL},
        {"ivshmem:", -EINVAL, NULL},
        {"/dev/shm/file", -EINVAL, NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        memset(&d, 0, sizeof(d));
        int rc = ivc_ivshmem_select(root, cases[i].sel, &d);
        if (rc != cases[i].rc)
            T_FAIL("select '%s': expected %d, got %d", cases[i].sel ? cases[i].sel : "(null)",
                   cases[i].rc, rc);
        if (rc == 0 && strcmp(d.bdf, cases[i].bdf) != 0)
            T_FAIL("select '%s': expected %s, got %s", cases[i].sel ? cases[i].sel : "(null)",
                   cases[i].bdf, d.bdf);
        if (rc == 0 && strstr(d.bar2, d.bdf) == NULL)
            T_FAIL("select '%s': BAR2 path %s does not name %s", cases[i].sel, d.bar2, d.bdf);
    }
    T_TRUE(ivc_ivshmem_is_selector(NULL) && ivc_ivshmem_is_selector("ivshmem:3") &&
               !ivc_ivshmem_is_selector("/dev/shm/ivc-1") && !ivc_ivshmem_is_selector("ivshmemx"),
           "selector syntax");
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    if (system(cmd) != 0)
        T_FAIL("cannot remove %s", root);
    return 0;
}
