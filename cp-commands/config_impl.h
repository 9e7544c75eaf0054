/* What config.c and config_machines.c share; private to cp-commands/. */
#ifndef ZVS_CONFIG_IMPL_H
#define ZVS_CONFIG_IMPL_H

#include <stdio.h>

#include "cp-commands/config.h"

/* The cross-checks of IPL, GUESTIP and NICBIND LCS (after MACs are assigned). */
void zvs_cfg_check_machines(struct zvs_cfg *cfg);
/* No NIC may have the MAC of an LCS NIC's tap (check_macs calls it). */
void zvs_cfg_check_lcs_taps(struct zvs_cfg *cfg);
/* " IPL ... GUESTIP ..." on the dump's USER line; nothing for an entry without them. */
void zvs_cfg_dump_machine(const struct zvs_cfg_user *u, FILE *out);

#endif
