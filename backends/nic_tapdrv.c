/* nic_tapdrv: a guest_tap driver as a NIC kind's guest side (see nic_tapdrv.h). */
#include "backends/nic_tapdrv.h"

#include <errno.h>
#include <stdio.h>

#include "dataplane/log.h"

#define TAP_BURSTS 8                    /* bursts per readable event before yielding */

void zvs_nic_tapdrv_take(struct zvs_nic_side *b, struct zvs_nic_tapdrv *t,
                         struct zvs_guest_tap *tap, const char *ifname)
{
    t->tap = tap;
    t->unwatched = false;
    snprintf(t->ifname, sizeof t->ifname, "%s", ifname);
    b->env->host->watch(b, zvs_guest_tap_fd(tap));
    b->env->host->watch(b, zvs_guest_tap_irq_fd(tap));
}

int zvs_nic_tapdrv_bind(struct zvs_nic_tapdrv *t, struct zvs_port *port)
{
    return t->tap ? zvs_guest_tap_bind(t->tap, port) : 0;
}

void zvs_nic_tapdrv_unbind(struct zvs_nic_tapdrv *t)
{
    if (t->tap)
        zvs_guest_tap_unbind(t->tap);   /* the tap stays: the guest's device outlives it */
}

bool zvs_nic_tapdrv_wake(struct zvs_nic_side *b, struct zvs_nic_tapdrv *t, int fd,
                         uint64_t now)
{
    if (fd == zvs_guest_tap_irq_fd(t->tap)) {
        zvs_guest_tap_pump_in(t->tap);
        return false;
    }
    bool backlog = false;
    for (int i = 0; i < TAP_BURSTS; i++) {
        /* Uncoupled, the driver reads and drops what the guest sends. */
        int queued = zvs_guest_tap_pump_out(t->tap);
        b->env->host->deliver(b, now);
        if (queued == -EBADFD) {
            /* The guest's namespace and its tap are gone: stop watching a dead fd. The
             * NIC stays coupled; frames for it are dropped by the driver and counted. */
            zvs_warn("%s.%04X: tap %s is gone", b->userid, b->vdev, t->ifname);
            b->env->host->unwatch(b, fd);
            t->unwatched = true;        /* the close later must not remove it twice */
            return false;
        }
        if (queued < ZVS_BATCH)
            break;
        backlog = true;
    }
    return backlog;
}

void zvs_nic_tapdrv_close(struct zvs_nic_side *b, struct zvs_nic_tapdrv *t)
{
    if (!t->tap)
        return;
    if (!t->unwatched)
        b->env->host->unwatch(b, zvs_guest_tap_fd(t->tap));
    b->env->host->unwatch(b, zvs_guest_tap_irq_fd(t->tap));
    zvs_guest_tap_close(t->tap);        /* unbinds: the queues go back to not initialised */
    t->tap = NULL;
    t->unwatched = false;
    t->ifname[0] = '\0';
}

void zvs_nic_tapdrv_driver(const char *ifname, char *buf, size_t len)
{
    snprintf(buf, len, "tap %s", ifname);
}
