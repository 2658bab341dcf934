#include "ivc_wait.h"

uint32_t ivc_wait_spin = 1000;
