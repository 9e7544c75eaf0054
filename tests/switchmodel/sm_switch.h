/* The switch model at run time: a Catalyst-like L2 switch with port-channels on Linux
 * interfaces (AF_PACKET with virtio-net headers), LACP per member, rate limits, failure
 * injection. Driven by a zvs_evloop; commands arrive as text (sm_ctl.c).
 */
#ifndef SM_SWITCH_H
#define SM_SWITCH_H

#include <stdio.h>

#include "tests/switchmodel/sm_config.h"
#include "daemon/evloop.h"

struct sm_switch;

/* Opens every attached interface, starts LACP, registers with the loop. Returns NULL
 * with *err = -errno (the log says which interface). */
struct sm_switch *sm_switch_create(const struct sm_config *cfg, struct zvs_evloop *loop,
                                   int *err);
void sm_switch_destroy(struct sm_switch *sw);

/* Execute one control command (IOS-like, see README.md); the response goes to out
 * without the terminating "." line. Returns 0, or -EINVAL when the command was refused
 * (the response then starts with "% "). */
int sm_switch_command(struct sm_switch *sw, const char *line, FILE *out);

#endif
