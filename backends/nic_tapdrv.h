/* nic_tapdrv: the half of a NIC kind that a guest_tap driver plays (guest_tap.h), shared
 * by the kinds whose guest side is a tap's frames: "tap" (nic_tap.c) and "lcs"
 * (guests/nic_lcs.c, a packet socket on the machine's tap driven the same way).
 *
 * Owns: the driver, its two descriptors' watches (the tap: readable = the guest sent; the
 * NIC's thin interrupt: the switch delivered) and the wake-up that pumps between them and
 * the NIC's queues. The kind owns when the driver comes and goes.
 * Hazard: a tap deleted under the driver (its namespace gone) makes its fd report EBADFD;
 * the watch is dropped then, and close must not drop it twice (`unwatched`).
 */
#ifndef ZVS_NIC_TAPDRV_H
#define ZVS_NIC_TAPDRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/guest_tap.h"
#include "backends/nic_class.h"

struct zvs_nic_tapdrv {
    struct zvs_guest_tap *tap;          /* NULL: no driver (an LCS machine not running) */
    char                  ifname[16];   /* the tap's name while there is a driver */
    bool                  unwatched;    /* its tap fd left the loop already (tap gone) */
};

/* Takes driver `tap` on device `ifname` (unbound, or bound already) and watches both of
 * its descriptors through b's host. */
void zvs_nic_tapdrv_take(struct zvs_nic_side *b, struct zvs_nic_tapdrv *t,
                         struct zvs_guest_tap *tap, const char *ifname);
/* Binds the driver to the NIC port (0 when there is no driver). 0 or -errno. */
int  zvs_nic_tapdrv_bind(struct zvs_nic_tapdrv *t, struct zvs_port *port);
void zvs_nic_tapdrv_unbind(struct zvs_nic_tapdrv *t);
/* Readable tap: up to 8 bursts into the NIC's output queue, the switch taking each; the
 * thin interrupt: the input queue out to the tap. True when the tap still had frames
 * after a full burst (the guest is ahead of the switch). */
bool zvs_nic_tapdrv_wake(struct zvs_nic_side *b, struct zvs_nic_tapdrv *t, int fd,
                         uint64_t now);
/* Stops watching and closes the driver (unbinding it); nothing without one. */
void zvs_nic_tapdrv_close(struct zvs_nic_side *b, struct zvs_nic_tapdrv *t);
/* "tap <ifname>" (the log's words for what drives the NIC). */
void zvs_nic_tapdrv_driver(const char *ifname, char *buf, size_t len);

#endif
