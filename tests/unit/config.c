/* Tunables: sizes with suffixes (K, M, G, T; B and iB), bounds, booleans, and the errors that
 * name the variable and say what is allowed; IVC_DEBUG levels. */
#include "test_util.h"

#include "base/ivc_config.h"
#include "base/ivc_log.h"
#include "shm/shm_config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs fn with stderr captured into buf (NUL-terminated); returns what fn returned. */
static int captured(int (*fn)(void *), void *arg, char *buf, size_t len)
{
    FILE *tmp = tmpfile();
    if (tmp == NULL)
        T_FAIL("tmpfile failed");
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    int rc = fn(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(buf, 1, len - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
    return rc;
}

typedef struct {
    uint64_t size;
    uint64_t count;
} two_t;

static const ivc_cfg_entry_t two_entries[] = {
    {"TEST_SIZE", "1M", "a test size", IVC_CFG_SIZE, 4096, 1ull << 40, offsetof(two_t, size)},
    {"TEST_COUNT", "3", "a test count", IVC_CFG_UINT, 1, 64, offsetof(two_t, count)},
};
static const ivc_cfg_table_t two_table = {"test", two_entries, 2};

static int load_two(void *out)
{
    return ivc_cfg_load(&two_table, out);
}

static int debug_level(void *unused)
{
    (void)unused;
    return ivc_log_level_from_env();
}

int main(void)
{
    ivc_cfg_entry_t size = {"X", "1", "", IVC_CFG_SIZE, 1, 1ull << 40, 0};
    ivc_cfg_entry_t boolean = {"B", "no", "", IVC_CFG_BOOL, 0, 0, 0};
    static const struct {
        const char *text;
        int rc;
        uint64_t value;
    } sizes[] = {
        {"4096", 0, 4096},     {"64K", 0, 65536},     {"64k", 0, 65536}, {"1M", 0, 1048576},
        {"2MB", 0, 2 << 20},   {"1G", 0, 1ull << 30}, {"0x100", 0, 256}, {"", -EINVAL, 0},
        {"-1", -EINVAL, 0},    {"12Q", -EINVAL, 0},   {"K", -EINVAL, 0}, {"0", -ERANGE, 0},
        {"2048G", -ERANGE, 0}, {"1T", 0, 1ull << 40}, {"1t", 0, 1ull << 40},
        {"1TB", 0, 1ull << 40}, {"1TiB", 0, 1ull << 40}, {"4KiB", 0, 4096},
        {"2T", -ERANGE, 0},    {"1Ti", -EINVAL, 0},   {"1KBB", -EINVAL, 0}, {"1 K", -EINVAL, 0},
        {"+5", -EINVAL, 0},    {"99999999999999999999", -ERANGE, 0},
        {"16777216T", -ERANGE, 0}, {"1P", -EINVAL, 0},
    };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        uint64_t v = 0;
        int rc = ivc_cfg_parse_value(&size, sizes[i].text, &v);
        if (rc != sizes[i].rc)
            T_FAIL("parse '%s': expected rc %d, got %d", sizes[i].text, sizes[i].rc, rc);
        if (rc == 0)
            T_EQ(sizes[i].value, v, sizes[i].text);
    }
    int b = -1;
    T_EQ(0, ivc_cfg_parse_value(&boolean, "yes", &b), "parse yes");
    T_EQ(1, b, "yes");
    T_EQ(0, ivc_cfg_parse_value(&boolean, "OFF", &b), "parse OFF");
    T_EQ(0, b, "OFF");
    T_EQ(-EINVAL, ivc_cfg_parse_value(&boolean, "maybe", &b), "parse maybe");

    /* A region size of 1T is a size (IVC_REGION_SIZE has no upper bound). */
    uint64_t rs = 0;
    T_EQ(0, ivc_shm_parse_region_size("1T", &rs), "IVC_REGION_SIZE=1T");
    T_EQ(1ull << 40, rs, "1T in bytes");

    /* Sizes printed exactly with the largest suffix. */
    char sb[32];
    T_TRUE(strcmp(ivc_cfg_size_str(1ull << 40, sb, sizeof(sb)), "1T") == 0, "1T printed");
    T_TRUE(strcmp(ivc_cfg_size_str(65536, sb, sizeof(sb)), "64K") == 0, "64K printed");
    T_TRUE(strcmp(ivc_cfg_size_str(1000, sb, sizeof(sb)), "1000") == 0, "1000 printed");
    T_TRUE(strcmp(ivc_cfg_size_str(3ull << 50, sb, sizeof(sb)), "3072T") == 0, "3072T printed");
    T_TRUE(strstr(ivc_cfg_size_syntax(), "T") != NULL, "the size syntax names T");

    /* Errors name the variable and say what is allowed. */
    char msg[2048];
    two_t two;
    setenv("IVC_TEST_SIZE", "1X", 1);
    T_EQ(-EINVAL, captured(load_two, &two, msg, sizeof(msg)), "IVC_TEST_SIZE=1X refused");
    if (strstr(msg, "IVC_TEST_SIZE=1X") == NULL || strstr(msg, "K, M, G or T") == NULL)
        T_FAIL("message for IVC_TEST_SIZE=1X: expected the variable and the suffixes, got '%s'",
               msg);
    setenv("IVC_TEST_SIZE", "2T", 1);
    T_EQ(-EINVAL, captured(load_two, &two, msg, sizeof(msg)), "IVC_TEST_SIZE=2T refused");
    if (strstr(msg, "IVC_TEST_SIZE=2T") == NULL || strstr(msg, "from 4K to 1T") == NULL)
        T_FAIL("message for IVC_TEST_SIZE=2T: expected the variable and the range, got '%s'",
               msg);
    setenv("IVC_TEST_SIZE", "1T", 1);
    setenv("IVC_TEST_COUNT", "many", 1);
    T_EQ(-EINVAL, captured(load_two, &two, msg, sizeof(msg)), "IVC_TEST_COUNT=many refused");
    if (strstr(msg, "IVC_TEST_COUNT=many") == NULL || strstr(msg, "unsigned integer") == NULL)
        T_FAIL("message for IVC_TEST_COUNT=many: got '%s'", msg);
    unsetenv("IVC_TEST_COUNT");
    T_EQ(0, captured(load_two, &two, msg, sizeof(msg)), "IVC_TEST_SIZE=1T accepted");
    T_EQ(1ull << 40, two.size, "IVC_TEST_SIZE");
    T_EQ(3, two.count, "IVC_TEST_COUNT default");
    unsetenv("IVC_TEST_SIZE");

    /* IVC_DEBUG: a level, or an error that names the variable. */
    static const struct {
        const char *text;
        int rc, level;
    } dbg[] = {
        {NULL, 0, 0}, {"", 0, 0},  {"0", 0, 0},  {"1", 0, 1},  {"12", 0, 12}, {"abc", -EINVAL, 12},
        {"-1", -EINVAL, 12}, {"1x", -EINVAL, 12}, {"100", -EINVAL, 12},
        {"99999999999999999999", -EINVAL, 12}, {"2", 0, 2},
    };
    for (size_t i = 0; i < sizeof(dbg) / sizeof(dbg[0]); i++) {
        if (dbg[i].text == NULL)
            unsetenv("IVC_DEBUG");
        else
            setenv("IVC_DEBUG", dbg[i].text, 1);
        int rc = captured(debug_level, NULL, msg, sizeof(msg));
        if (rc != dbg[i].rc)
            T_FAIL("IVC_DEBUG=%s: expected rc %d, got %d", dbg[i].text ? dbg[i].text : "(unset)",
                   dbg[i].rc, rc);
        T_EQ(dbg[i].level, ivc_log_level(), "debug level");
        if (rc != 0 && (strstr(msg, "IVC_DEBUG=") == NULL || strstr(msg, "0 to 99") == NULL))
            T_FAIL("IVC_DEBUG=%s: expected a message naming the variable, got '%s'", dbg[i].text,
                   msg);
    }
    unsetenv("IVC_DEBUG");
    ivc_log_set_level(0);

    /* The shm table's cross-checks. */
    ivc_shm_config_t cfg;
    setenv("IVC_RING_SIZE", "4K", 1);
    setenv("IVC_EAGER_LIMIT", "64K", 1);
    T_EQ(-EINVAL, ivc_shm_config_load(&cfg), "eager limit larger than the ring allows");
    setenv("IVC_EAGER_LIMIT", "256", 1);
    T_EQ(0, ivc_shm_config_load(&cfg), "small ring with a small eager limit");
    T_EQ(256, cfg.eager_limit, "eager limit");
    setenv("IVC_RING_SIZE", "5000", 1);
    T_EQ(-EINVAL, ivc_shm_config_load(&cfg), "ring size not a power of two");
    unsetenv("IVC_RING_SIZE");
    setenv("IVC_CHUNKS", "3", 1);
    T_EQ(-EINVAL, ivc_shm_config_load(&cfg), "chunk count not a power of two");
    setenv("IVC_CHUNKS", "1", 1);
    T_EQ(-EINVAL, ivc_shm_config_load(&cfg), "a single chunk cannot pipeline");
    unsetenv("IVC_CHUNKS");
    unsetenv("IVC_EAGER_LIMIT");
    T_EQ(0, ivc_shm_config_load(&cfg), "defaults");
    /* Auto pipeline depth: 1 MiB per pair up to 16 co-located ranks, 256 KiB beyond. */
    ivc_shm_geometry_t geo;
    ivc_shm_geometry(&cfg, 2, &geo);
    T_EQ(1u << 20, geo.nchunks * geo.chunk_size, "pipeline bytes with 2 ranks");
    ivc_shm_geometry(&cfg, 16, &geo);
    T_EQ(1u << 20, geo.nchunks * geo.chunk_size, "pipeline bytes with 16 ranks");
    ivc_shm_geometry(&cfg, 17, &geo);
    T_EQ(256u << 10, geo.nchunks * geo.chunk_size, "pipeline bytes with 17 ranks");
    T_EQ(4096 + 16 * geo.inbox_stride, geo.block_bytes, "block holds one inbox per sender");
    T_TRUE(geo.inbox_stride % 4096 == 0, "inboxes are page aligned");
    setenv("IVC_CHUNK_SIZE", "1000", 1);
    T_EQ(-EINVAL, ivc_shm_config_load(&cfg), "chunk size not a multiple of 64");
    printf("config: ok\n");
    return 0;
}
