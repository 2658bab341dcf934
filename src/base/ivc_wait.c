#include "ivc_wait.h"

#include "ivc_log.h"

uint32_t ivc_wait_spin = 1000;
uint32_t ivc_wait_mode = IVC_WAITING_YIELD;
uint64_t ivc_wait_poll_ns;
int ivc_wait_poll_spins;
int ivc_wait_can_sleep;
int ivc_wait_doors_known;
/* Why this rank cannot sleep (set where the doorbells are opened), for the one warning. */
const char *ivc_wait_no_doorbell_why = "no doorbells";

void ivc_wait_no_doorbell(void)
{
    static int said;
    /* Not before the doorbells are decided (the start-up barrier runs before). */
    if (said || !ivc_wait_doors_known)
        return;
    said = 1;
    /* Asked for: a warning. auto: a debug line (ranks started by hand have no doorbells). */
    if (ivc_wait_mode == IVC_WAITING_BLOCK)
        ivc_warn("IVC_WAIT=block would sleep, but %s: waiting ranks yield instead",
                 ivc_wait_no_doorbell_why);
    else
        ivc_debug("IVC_WAIT=auto would sleep, but %s: waiting ranks yield instead",
                  ivc_wait_no_doorbell_why);
}
