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

/* The I/O seam: how the model reaches the interfaces its ports `attach`. The kind is a
 * backend class (backends/backend.h): "afpacket" (NULL) opens Linux interfaces (veth ends
 * in the labs), carrier comes from netlink and "shutdown" sets the interface down; "dummy"
 * opens named in-memory links of this process (dummy.h: the hermetic suite runs the model
 * beside the daemon on one virtual loop), carrier comes from the link's own events and
 * "shutdown" cuts the link's carrier. Nothing else in the model depends on it. */
struct sm_switch_io {
    const char *kind;
};

/* Opens every attached interface, starts LACP, registers with the loop (whose clock,
 * real or virtual, is the model's). Returns NULL with *err = -errno (the log says which
 * interface). sm_switch_create is sm_switch_create_io with AF_PACKET. */
struct sm_switch *sm_switch_create(const struct sm_config *cfg, struct zvs_evloop *loop,
                                   int *err);
struct sm_switch *sm_switch_create_io(const struct sm_config *cfg, struct zvs_evloop *loop,
                                      const struct sm_switch_io *io, int *err);
void sm_switch_destroy(struct sm_switch *sw);

/* Execute one control command (IOS-like, see README.md); the response goes to out
 * without the terminating "." line. Returns 0, or -EINVAL when the command was refused
 * (the response then starts with "% "). */
int sm_switch_command(struct sm_switch *sw, const char *line, FILE *out);

#endif
