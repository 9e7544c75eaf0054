/* The switch model's control socket: a unix stream socket, one command per line, each
 * response ends with a line holding only ".". Server side on the event loop, and the
 * client used by `switchmodel -C PATH -x 'command'`.
 */
#ifndef SM_CTL_H
#define SM_CTL_H

#include <stdio.h>

#include "tests/switchmodel/sm_switch.h"
#include "daemon/evloop.h"

struct sm_ctl;

/* Listen on `path` (an existing socket file is replaced). NULL with *err = -errno. */
struct sm_ctl *sm_ctl_open(const char *path, struct sm_switch *sw, struct zvs_evloop *loop,
                           int *err);
/* Closes every connection and removes the socket file. */
void sm_ctl_close(struct sm_ctl *ctl);

/* Client: send one command, copy the response (without the "." line) to out. Returns 0
 * when the switch accepted the command, 1 when it refused it (response starting "% "),
 * or -errno when the socket failed. */
int sm_ctl_client(const char *path, const char *command, FILE *out, int timeout_ms);

#endif
