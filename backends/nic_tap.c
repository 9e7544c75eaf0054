/* nic_tap: the "tap" NIC kind, NICBIND vdev TAP ifname (nic_class.h): a Linux network
 * namespace as the guest, through a tap the kind makes and a guest_tap driver
 * (nic_tapdrv.h).
 *
 * Owns: the tap, from the NIC's definition to its end (a tap outlives its couplings, as a
 * z/VM guest's device does), and the start after a crash. Guest taps are persistent
 * (guest_tap.h): SIGKILL leaves each one, with the guest's addresses and TCP connections,
 * in whatever namespace the guest moved it to. A NIC's tap is opened by adopting the one a
 * dead vswitchd left when it exists and made otherwise; when the owner's start is over the
 * ones no NIC of the configuration took are deleted (a tap nobody drives would be a leak).
 * A clean stop deletes its taps (zvs_guest_tap_close), so this only ever finds a crash's.
 * The search (tap_orphans.h) runs once per owner, at the first tap it opens, so a
 * configuration without taps (the hermetic suite) never scans.
 */
#include "backends/nic_tap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/nic_tapdrv.h"
#include "backends/tap_orphans.h"
#include "dataplane/log.h"

struct nic_tap {
    struct zvs_nic_side base;        /* first: the instance is its base */
    struct zvs_nic_tapdrv  drv;
};

/* Per owner, for its start: the taps a crashed predecessor left. */
struct tap_start {
    bool                    scanned;
    struct zvs_tap_orphans *orphans;
};

static struct nic_tap *tap_of(const struct zvs_nic_side *b)
{
    return (struct nic_tap *)b;
}

static void scan_once(struct tap_start *s)
{
    char tag[ZVS_TAP_TAG_MAX];

    if (s->scanned)
        return;
    s->scanned = true;
    if (zvs_tap_tag(tag, sizeof tag) < 0 || zvs_tap_orphans_scan(tag, &s->orphans) < 0)
        return;                         /* nothing adopted: new taps, as on a first start */
    unsigned n = zvs_tap_orphans_count(s->orphans);
    if (n > 0)
        zvs_info("found %u guest tap(s) a previous vswitchd left: adopting them", n);
}

uint32_t zvs_nic_tap_mtu(uint32_t segment)
{
    return segment >= ZVS_GUEST_TAP_MTU_MIN && segment < ZVS_GUEST_TAP_MTU_DEFAULT ? segment
                                                                : ZVS_GUEST_TAP_MTU_DEFAULT;
}

/* The NIC's tap, adopted from a crashed predecessor (its MTU the guest's) or made with
 * zvs_nic_tap_mtu(segment). 0 or -errno. */
static int tap_open(struct zvs_nic_env *env, const char *ifname, uint32_t segment,
                    struct zvs_guest_tap **out)
{
    void **slot = zvs_nic_env_state(env, &zvs_nic_tap_class);
    if (slot && !*slot)
        *slot = calloc(1, sizeof(struct tap_start));
    struct tap_start *s = slot ? *slot : NULL;
    if (s)
        scan_once(s);
    int ns = s ? zvs_tap_orphans_take(s->orphans, ifname) : -ENOENT;
    if (ns >= 0) {
        int rc = zvs_guest_tap_reopen(ifname, ns, NULL, out);
        close(ns);
        if (rc == 0) {
            zvs_info("tap %s adopted: the guest keeps its interface", ifname);
            return 0;
        }
        zvs_warn("tap %s left by a previous vswitchd cannot be adopted: %s", ifname,
                 strerror(-rc));
        return rc;
    }
    uint32_t mtu = zvs_nic_tap_mtu(segment);
    int rc = zvs_guest_tap_open(ifname, mtu, NULL, out);
    if (rc == 0 && mtu != ZVS_GUEST_TAP_MTU_DEFAULT)
        zvs_info("tap %s made with MTU %u: its switch's VXLAN segment carries no more",
                 ifname, mtu);
    return rc;
}

static int open_tap(const struct zvs_nic_params *p, const struct zvs_nic_side *base,
                    struct zvs_nic_side **out)
{
    struct nic_tap *t = calloc(1, sizeof *t);
    struct zvs_guest_tap *tap = NULL;
    if (!t)
        return -ENOMEM;
    t->base = *base;
    int err = tap_open(base->env, p->ifname, p->mtu, &tap);
    if (err < 0) {
        free(t);
        return err;
    }
    /* The guest's interface uses the MAC CP assigned (MACPREFIX ++ MACID), as a z/VM
     * guest's NIC does; MACPROTECT then holds it to that. */
    err = zvs_guest_tap_set_mac(tap, p->mac);
    if (err < 0)
        zvs_warn("%s.%04X: cannot set MAC on tap %s: %s", p->userid, p->vdev, p->ifname,
                 strerror(-err));
    zvs_nic_tapdrv_take(&t->base, &t->drv, tap, p->ifname);
    *out = &t->base;
    return 0;
}

static int bind_tap(struct zvs_nic_side *b, struct zvs_port *port)
{
    return zvs_nic_tapdrv_bind(&tap_of(b)->drv, port);
}

static uint32_t fit_tap(struct zvs_nic_side *b, uint32_t mtu)
{
    struct zvs_guest_tap_stats st;
    bool lowered;

    if (!tap_of(b)->drv.tap)
        return 0;
    zvs_guest_tap_stats(tap_of(b)->drv.tap, &st);
    /* A segment below IPv4's 68 fits no tap: its MTU is only read (a fit to a larger one
     * never lowers), so the COUPLE's warning says the segment cannot carry it. */
    uint32_t want = mtu >= ZVS_GUEST_TAP_MTU_MIN ? mtu : UINT32_MAX;
    int now = zvs_guest_tap_fit_mtu(tap_of(b)->drv.tap, want, &lowered);

    if (now < 0) {
        zvs_warn("tap %s: MTU not read or lowered to %u: %s", tap_of(b)->drv.ifname, mtu,
                 strerror(-now));
        return 0;
    }
    if (lowered)
        zvs_info("tap %s lowered from MTU %u to %u: its switch's VXLAN segment carries no "
                 "more", tap_of(b)->drv.ifname, st.mtu, mtu);
    return (uint32_t)now;
}

static void unbind_tap(struct zvs_nic_side *b, uint64_t now)
{
    zvs_nic_tapdrv_unbind(&tap_of(b)->drv);
}

static void wake_tap(struct zvs_nic_side *b, int fd, uint32_t events, uint64_t now)
{
    (void)zvs_nic_tapdrv_wake(b, &tap_of(b)->drv, fd, now);
}

static void describe_tap(const struct zvs_nic_params *p, const struct zvs_nic_side *b,
                         char *buf, size_t len)
{
    zvs_nic_tapdrv_driver(p->ifname, buf, len);
}

static void close_tap(struct zvs_nic_side *b)
{
    zvs_nic_tapdrv_close(b, &tap_of(b)->drv);
    free(tap_of(b));
}

static void started_tap(void **state)
{
    struct tap_start *s = *state;
    if (!s || !s->orphans)
        return;
    zvs_tap_orphans_purge(s->orphans);
    zvs_tap_orphans_free(s->orphans);
    s->orphans = NULL;
}

static void fini_tap(void **state)
{
    struct tap_start *s = *state;
    if (s)
        zvs_tap_orphans_free(s->orphans);   /* a failed start deletes none of them */
    free(s);
    *state = NULL;
}

const struct zvs_nic_class zvs_nic_tap_class = {
    .open = open_tap,
    .bind = bind_tap,
    .fit_mtu = fit_tap,
    .unbind = unbind_tap,
    .wake = wake_tap,
    .describe = describe_tap,
    .driver = describe_tap,             /* the log says what QUERY says: "tap ifname" */
    .close = close_tap,
    .started = started_tap,
    .env_fini = fini_tap,
};
