/* IVC_REPORT_MAP: at the end of start-up each rank says where it runs and which channel
 * reaches each peer, in one line on stderr:
 *
 *   ivc: rank 2 on vm1 (host 0, region /dev/shm/ivc-123): shm 0-1,3, net 4-7
 *
 * "on" is the kernel's host name (a simulated VM's is vm<k>), "host" the simulated host
 * IVC_REPORT_HOST names (ivcrun -v sets both variables; under another process manager set
 * IVC_REPORT_MAP=1 alone), then the region and the peers by channel, as rank ranges. */
#ifndef IVC_COORD_REPORT_H
#define IVC_COORD_REPORT_H

#include "../base/ivc_config.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ivc_coord_report_config {
    int map;          /* IVC_REPORT_MAP */
    const char *host; /* IVC_REPORT_HOST */
} ivc_coord_report_config_t;

extern const ivc_cfg_table_t ivc_report_config_table;

struct ivc_coord;

/* Prints this rank's line if IVC_REPORT_MAP asks for it; call once the VCs are built. */
void ivc_coord_report(const struct ivc_coord *c);

/* Appends `ranks` (ascending, n of them) as ranges ("0-3,5") to buf. Returns buf. */
char *ivc_coord_report_ranges(const uint32_t *ranks, uint32_t n, char *buf, size_t len);

#endif
