#include "ivc_wait.h"

#include "ivc_log.h"

uint32_t ivc_wait_spin = 1000;
uint32_t ivc_wait_mode = IVC_WAIT_YIELD;
uint64_t ivc_wait_yield_ns;
int ivc_wait_can_sleep;
/* Why this rank cannot sleep (set where the doorbells are opened), for the one warning. */
const char *ivc_wait_no_doorbell_why = "no doorbells";

void ivc_wait_no_doorbell(void)
{
    static int said;
    if (said)
        return;
    said = 1;
    ivc_warn("IVC_WAIT would sleep, but %s: waiting ranks yield instead", ivc_wait_no_doorbell_why);
}
