/* A port backend for unit tests: records every frame written to it (exact bytes after the
 * tag edit, and the offload metadata) and can be told to refuse frames. */
#ifndef ZVS_TEST_FAKE_PORT_H
#define ZVS_TEST_FAKE_PORT_H

#include "dataplane/port.h"

#define FAKE_MAX_FRAMES 256
#define FAKE_FRAME_MAX  (65536 + 64)

struct fake_frame {
    uint32_t        len;
    uint8_t         ivl;                /* the tx's IVL kind (an IVL port's frames) */
    struct zvs_vnet vnet;
    uint8_t         bytes[FAKE_FRAME_MAX];
};

struct fake_port {
    struct zvs_port   port;             /* first: the switch sees this */
    int               accept;           /* frames still accepted; -1: unlimited */
    enum zvs_drop     refuse_why;       /* reason reported for refused frames */
    int               nframes;          /* frames recorded */
    int               tx_calls;
    int               flushes;
    int               prefetches[3];    /* the switch's load-ahead hints, by level */
    bool              destroyed_flag;
    int              *destroyed;        /* set to 1 on destroy, if not NULL */
    struct fake_frame *frames;          /* FAKE_MAX_FRAMES recorded frames */
};

/* caps/mtu as for a real port; the switch owns it after attach (destroy frees it). */
struct fake_port *fake_port_new(const char *name, uint32_t caps, uint32_t mtu);
void fake_port_reset(struct fake_port *fp);

#endif
