/* Tunables: sizes with suffixes, bounds, booleans, and the errors that name the variable. */
#include "test_util.h"

#include "base/ivc_config.h"
#include "shm/shm_config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

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
        {"2048G", -ERANGE, 0},
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
