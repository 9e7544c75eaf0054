/* nic_lcs: the "lcs" NIC kind (nic_lcs.h): a Hercules machine's LCS tap as the guest
 * side of a NIC.
 *
 * Owns: the driver of the machine's tap (a guest_tap driver on a packet socket made in
 * the machine's namespace, backends/lcs.h) while the machine runs, and the kernel's drops
 * of the guest's frames. When the machine's tap opens, the NIC gets the driver and, if
 * coupled, binds it to its queues; when the machine ends, the driver goes and the NIC
 * stays defined and coupled, discarding (and counting) frames for it, as for a z/VM guest
 * that logged off with its NIC coupled. A NIC defined while its machine runs takes the
 * machine's tap at once only when it is the tap this NIC describes (same LCS device, the
 * guest's MAC the NIC's: Hercules took the tap's MAC from the NIC at XAUTOLOG and cannot
 * change it now); otherwise it waits for the next XAUTOLOG, and the log says why.
 */
#include "guests/nic_lcs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/lcs.h"
#include "backends/nic_class.h"
#include "backends/nic_tapdrv.h"
#include "dataplane/log.h"

struct nic_lcs {
    struct zvs_nic_side base;        /* first: the instance is its base */
    struct zvs_nic_tapdrv  drv;         /* the machine's tap while it runs */
    uint64_t               kdrops;      /* the kernel's drops from the guest since it opened */
};

static struct nic_lcs *lcs_of(const struct zvs_nic_side *b)
{
    return (struct nic_lcs *)b;
}

/* The kernel's drops of what the guest sent (lcs.h: zvs_lcs_fold_kernel_drops) become the
 * NIC's TX discards (guest-overrun) while it is coupled; kdrops keeps the sum since the tap
 * opened, coupled or not, for the LCS line of QUERY NIC DETAILS. */
static void fold_lcs(struct zvs_nic_side *b)
{
    struct nic_lcs *l = lcs_of(b);
    if (l->drv.tap)
        l->kdrops += zvs_lcs_fold_kernel_drops(l->drv.tap, b->port);
}

/* The machine ended (or its tap is replaced): what the guest handed over goes first. */
static void drop_driver(struct nic_lcs *l, uint64_t now)
{
    if (!l->drv.tap)
        return;
    l->base.env->host->deliver(&l->base, now);
    fold_lcs(&l->base);                 /* the last of them, before the socket goes */
    zvs_nic_tapdrv_close(&l->base, &l->drv);
}

static void adopt(struct nic_lcs *l, int netns_fd, const char *ifname, uint64_t now)
{
    struct zvs_nic_side *b = &l->base;
    struct zvs_guest_tap *t;
    int err = zvs_lcs_open(netns_fd, ifname, &t);
    if (err < 0) {
        zvs_warn("%s.%04X: cannot open LCS tap %s: %s", b->userid, b->vdev, ifname,
                 strerror(-err));
        return;
    }
    drop_driver(l, now);
    l->kdrops = 0;
    if (b->port && (err = zvs_guest_tap_bind(t, b->port)) < 0)
        zvs_warn("%s.%04X: cannot bind LCS tap %s: %s", b->userid, b->vdev, ifname,
                 strerror(-err));
    zvs_nic_tapdrv_take(b, &l->drv, t, ifname);
    zvs_info("%s.%04X: LCS tap %s of the machine is its backend%s", b->userid, b->vdev,
             ifname, b->port ? "" : " (NIC not coupled)");
}

static int open_lcs(const struct zvs_nic_params *p, const struct zvs_nic_side *base,
                    struct zvs_nic_side **out)
{
    struct nic_lcs *l = calloc(1, sizeof *l);
    if (!l)
        return -ENOMEM;
    l->base = *base;
    *out = &l->base;
    const struct zvs_nic_machine *m = p->machine;
    if (!m)
        return 0;                       /* not running, or its tap not open yet */
    if (!m->has_device || m->devno != p->devno || memcmp(m->mac, p->mac, 6) != 0) {
        zvs_info("%s.%04X: defined while the machine runs with another LCS device or MAC: "
                 "its tap is adopted at the next XAUTOLOG", p->userid, p->vdev);
        return 0;
    }
    adopt(l, m->netns_fd, m->tap, 0);   /* no driver yet: nothing to deliver at a time */
    return 0;
}

static int bind_lcs(struct zvs_nic_side *b, struct zvs_port *port)
{
    return zvs_nic_tapdrv_bind(&lcs_of(b)->drv, port);
}

static void unbind_lcs(struct zvs_nic_side *b, uint64_t now)
{
    zvs_nic_tapdrv_unbind(&lcs_of(b)->drv);
}

/* An LCS socket drops only when its buffer is full, thousands of frames: the next pass
 * then reads a full burst, so the NIC's guest-overrun discards follow a flood within a
 * pass at one getsockopt per busy pass, none when the guest is not ahead. Commands and
 * monitor samples fold as well, so what they show is exact. */
static void wake_lcs(struct zvs_nic_side *b, int fd, uint32_t events, uint64_t now)
{
    if (zvs_nic_tapdrv_wake(b, &lcs_of(b)->drv, fd, now))
        fold_lcs(b);
}

static void machine_up_lcs(struct zvs_nic_side *b, const struct zvs_nic_machine *m,
                           uint64_t now)
{
    adopt(lcs_of(b), m->netns_fd, m->tap, now);
}

static void machine_gone_lcs(struct zvs_nic_side *b, uint64_t now)
{
    drop_driver(lcs_of(b), now);
}

static void describe_lcs(const struct zvs_nic_params *p, const struct zvs_nic_side *b,
                         char *buf, size_t len)
{
    const struct nic_lcs *l = b ? lcs_of(b) : NULL;
    snprintf(buf, len, "LCS %04X-%04X %s", p->devno, p->devno + 1,
             l && l->drv.tap ? zvs_guest_tap_name(l->drv.tap) : "(machine not logged on)");
}

/* The LCS driver's side (ours, UNCONFIRMED shape): what the tap refused (down at a
 * STARTLAN flap, or its queue to Hercules full), which the NIC's own counters cannot show,
 * and the kernel's drops before the driver read them (the socket buffer full: the guest
 * outran the switch), which are also the NIC's guest-overrun discards while coupled. Since
 * the tap opened (the machine's XAUTOLOG). */
static void details_lcs(const struct zvs_nic_params *p, const struct zvs_nic_side *b,
                        zvs_nic_print_fn print, void *ctx)
{
    const struct nic_lcs *l = b ? lcs_of(b) : NULL;
    char line[160];
    print(ctx, "  LCS carries to the guest IPv4, ARP, RARP and SNA frames only, "
               "untagged (no IPv6, no VLAN tags)");
    if (!l || !l->drv.tap)
        return;
    struct zvs_guest_tap_stats st;
    zvs_guest_tap_stats(l->drv.tap, &st);
    /* Kernel drops: folded when the command began, as the NIC's counters. */
    snprintf(line, sizeof line, "  LCS to guest: %llu frames  Dropped: %llu tap down  "
             "%llu tap full", (unsigned long long)st.tap_tx_frames,
             (unsigned long long)st.tap_tx_dropped_down,
             (unsigned long long)st.tap_tx_dropped_full);
    print(ctx, line);
    snprintf(line, sizeof line, "  LCS from guest: %llu frames  Read errors: %llu  "
             "Queue full: %llu  Kernel drops: %llu  Truncated: %llu",
             (unsigned long long)st.tap_rx_frames, (unsigned long long)st.tap_rx_errors,
             (unsigned long long)st.tap_rx_queue_full, (unsigned long long)l->kdrops,
             (unsigned long long)st.tap_rx_truncated);
    print(ctx, line);
}

/* While no machine runs nothing drives the queues: the log has said so since. */
static void driver_lcs(const struct zvs_nic_params *p, const struct zvs_nic_side *b,
                       char *buf, size_t len)
{
    const struct nic_lcs *l = b ? lcs_of(b) : NULL;
    if (l && l->drv.tap)
        zvs_nic_tapdrv_driver(l->drv.ifname, buf, len);
    else
        snprintf(buf, len, "external QDIO guest");
}

static void close_lcs(struct zvs_nic_side *b)
{
    zvs_nic_tapdrv_close(b, &lcs_of(b)->drv);
    free(lcs_of(b));
}

static const struct zvs_nic_class lcs_ops = {
    .open = open_lcs,
    .bind = bind_lcs,
    .unbind = unbind_lcs,
    .wake = wake_lcs,
    .machine_up = machine_up_lcs,
    .machine_gone = machine_gone_lcs,
    .fold = fold_lcs,
    .describe = describe_lcs,
    .details = details_lcs,
    .driver = driver_lcs,
    .close = close_lcs,
};

static const struct zvs_backend_class lcs_class = {
    .kind = "lcs", .side = ZVS_BACKEND_GUEST, .netlink = false, .nic = &lcs_ops,
};

int zvs_nic_lcs_register(void)
{
    return zvs_backend_register(&lcs_class);
}
