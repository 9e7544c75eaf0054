/* The running configuration as text, for unit tests that compare it (test_config.c,
 * test_config_vxlan.c, test_cfg_apply.c, test_machines.c). */
#ifndef ZVS_TEST_CFG_TEXT_H
#define ZVS_TEST_CFG_TEXT_H

#include "cp-commands/config.h"

/* zvs_cfg_dump into a malloc'ed string (free it); asserts that the dump and its flush succeed. */
char *cfg_dump_text(const struct zvs_cfg *cfg);

#endif
