/* netlink_link: rtnetlink watcher for the interfaces behind uplinks (see netlink_link.h).
 *
 * Design note.
 * - Owns: one NETLINK_ROUTE socket subscribed to RTMGRP_LINK, the list of watched names
 *   with the last state told to the callback, and one receive buffer (no allocation per
 *   message).
 * - Rules: only AF_UNSPEC link messages from the kernel (sender pid 0) count; bridge port
 *   (AF_BRIDGE) messages carry other semantics and are ignored. Every message and every
 *   attribute is bounds-checked before it is read; names must be NUL-terminated inside
 *   their attribute. An event goes out only when (exists, ifindex, carrier) changes.
 * - Resync: a dump is a mark-and-sweep. Watched names not seen in a completed dump do not
 *   exist. A dump marked NLM_F_DUMP_INTR, a name added mid-dump or a socket overrun
 *   (ENOBUFS: the kernel dropped events) queues another dump; only one runs at a time
 *   because the kernel refuses a second dump on the same socket. carrier_lost (the
 *   caller saw the carrier go before linkwatch did) also queues one, after setting the
 *   told carrier down, so a link already back up is reported as an event.
 * - Settling: a message showing carrier on with operstate not yet computed (linkwatch
 *   pending, which may last up to a second) is answered with an RTM_GETLINK for that
 *   link, which makes the kernel settle it and report at once (settle_pending).
 * - Hazards: carrier comes from linkwatch, which may send the LOWER_UP change up to a
 *   second after the admin change; a rename is reported as the old name disappearing and
 *   the new one (if watched) appearing.
 */
#include "backends/netlink_link.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#define NL_RCVBUF   (1 << 20)           /* socket buffer: room for bursts of link events */
#define NL_BUFLEN   65536               /* one datagram; a dump chunk is at most 32 KiB */

struct nl_watch {
    char                  name[IFNAMSIZ];
    struct zvs_link_state st;
    bool                  seen;         /* reported during the running dump */
    bool                  settling;     /* asked the kernel to settle a pending carrier */
};

struct zvs_netlink_link {
    int                           fd;
    uint32_t                      seq;          /* last sequence number used */
    uint32_t                      dump_seq;     /* sequence of the running dump */
    bool                          dump_running;
    bool                          dump_again;   /* request another when this one ends */
    bool                          dump_intr;    /* running dump saw NLM_F_DUMP_INTR */
    zvs_link_event_fn             cb;
    zvs_link_mtu_fn               mtu_cb;       /* NULL: MTU changes are not told */
    void                         *arg;
    struct nl_watch              *w;
    size_t                        nw;
    size_t                        cap;
    int                           delivered;    /* events in the current process() call */
    struct zvs_netlink_link_stats stats;
    uint8_t                       rxbuf[NL_BUFLEN];
};

/* What one link message says, after bounds checks. */
struct link_msg {
    int         ifindex;
    unsigned    flags;                  /* ifi_flags */
    const char *name;                   /* NUL-terminated inside the message, or NULL */
    int         operstate;              /* IF_OPER_*, -1 if absent */
    uint32_t    mtu;                    /* 0 if absent */
};

static struct nl_watch *find_name(struct zvs_netlink_link *nl, const char *name)
{
    for (size_t i = 0; i < nl->nw; i++)
        if (strcmp(nl->w[i].name, name) == 0)
            return &nl->w[i];
    return NULL;
}

static void deliver(struct zvs_netlink_link *nl, struct nl_watch *w, bool exists, int ifindex,
                    bool carrier)
{
    struct zvs_link_state *st = &w->st;
    bool changed = !st->known || st->exists != exists || st->ifindex != ifindex ||
                   st->carrier != carrier;
    st->known = true;
    st->exists = exists;
    st->ifindex = ifindex;
    st->carrier = carrier;
    if (!changed)
        return;
    nl->stats.events++;
    nl->delivered++;
    nl->cb(nl->arg, w->name, ifindex, carrier, exists);
}

static void set_gone(struct zvs_netlink_link *nl, struct nl_watch *w)
{
    w->st.admin_up = false;
    w->st.lower_up = false;
    w->st.operstate = IF_OPER_NOTPRESENT;
    w->st.mtu = 0;
    deliver(nl, w, false, 0, false);
}

/* Ask for one link (RTM_GETLINK by ifindex). The kernel settles the link's pending
 * linkwatch work before it answers (rtnl_getlink), and the answer is an RTM_NEWLINK
 * like any other, handled as one. */
static int request_link(struct zvs_netlink_link *nl, int ifindex)
{
    struct {
        struct nlmsghdr  h;
        struct ifinfomsg ifi;
    } req;

    memset(&req, 0, sizeof(req));
    req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi));
    req.h.nlmsg_type = RTM_GETLINK;
    req.h.nlmsg_flags = NLM_F_REQUEST;
    req.h.nlmsg_seq = ++nl->seq;
    req.ifi.ifi_family = AF_UNSPEC;
    req.ifi.ifi_index = ifindex;
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    if (sendto(nl->fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
        return -errno;
    nl->stats.settles++;
    return 0;
}

/* Carrier on (IFF_LOWER_UP) but operstate still DOWN or LOWERLAYERDOWN is never a settled
 * state (rfc2863_policy gives UP, DORMANT or TESTING to a link with carrier): linkwatch has
 * not run for it yet. It runs late on a busy machine, and for a device it does not call
 * urgent (a physical NIC; a veth whose peer in another namespace has the same ifindex) up
 * to a second after its previous run. Asking for the link settles it now. Once per
 * pending spell, so a kernel that does not settle on request is asked only once. */
static void settle_pending(struct zvs_netlink_link *nl, struct nl_watch *w, int ifindex)
{
    const struct zvs_link_state *st = &w->st;
    bool pending = st->admin_up && st->lower_up &&
                   (st->operstate == IF_OPER_DOWN || st->operstate == IF_OPER_LOWERLAYERDOWN);
    if (!pending) {
        w->settling = false;
        return;
    }
    if (!w->settling && request_link(nl, ifindex) == 0)
        w->settling = true;
}

static void set_present(struct zvs_netlink_link *nl, struct nl_watch *w, const struct link_msg *m)
{
    struct zvs_link_state *st = &w->st;
    bool mtu_moved = st->known && st->exists && st->ifindex == m->ifindex && st->mtu &&
                     m->mtu && m->mtu != st->mtu;
    st->admin_up = (m->flags & IFF_UP) != 0;
    st->lower_up = (m->flags & IFF_LOWER_UP) != 0;
    if (m->operstate >= 0)
        st->operstate = (uint8_t)m->operstate;
    else
        st->operstate = (m->flags & IFF_RUNNING) ? IF_OPER_UP : IF_OPER_DOWN;
    if (m->mtu)
        st->mtu = m->mtu;
    bool oper_ok = st->operstate == IF_OPER_UP || st->operstate == IF_OPER_UNKNOWN;
    int delivered = nl->delivered;
    deliver(nl, w, true, m->ifindex, st->admin_up && st->lower_up && oper_ok);
    if (mtu_moved && nl->mtu_cb && nl->delivered == delivered)   /* else the event said it */
        nl->mtu_cb(nl->arg, w->name, m->ifindex, m->mtu);
    settle_pending(nl, w, m->ifindex);
}

/* Parse the ifinfomsg and attributes of a link message payload into m; false if
 * malformed. The bounds are those of NLMSG_OK and RTA_OK, written out over byte offsets
 * with headers copied out, so nothing depends on the buffer's alignment. */
static bool parse_link(const uint8_t *pl, size_t plen, struct link_msg *m)
{
    struct ifinfomsg ifi;

    if (plen < sizeof(ifi))
        return false;
    memcpy(&ifi, pl, sizeof(ifi));
    memset(m, 0, sizeof(*m));
    m->ifindex = ifi.ifi_index;
    m->flags = ifi.ifi_flags;
    m->operstate = -1;
    if (m->ifindex <= 0)
        return false;
    for (size_t off = NLMSG_ALIGN(sizeof(ifi)); off < plen; ) {
        struct rtattr ra;
        if (plen - off < sizeof(ra))
            return false;
        memcpy(&ra, pl + off, sizeof(ra));
        if (ra.rta_len < sizeof(ra) || ra.rta_len > plen - off)
            return false;
        const uint8_t *p = pl + off + RTA_LENGTH(0);
        size_t alen = ra.rta_len - RTA_LENGTH(0);
        switch (ra.rta_type) {
        case IFLA_IFNAME:
            /* Never trust the length: the name must end inside the attribute. */
            if (alen == 0 || alen > IFNAMSIZ || !memchr(p, '\0', alen) || p[0] == '\0')
                return false;
            m->name = (const char *)p;
            break;
        case IFLA_OPERSTATE:
            if (alen < 1)
                return false;
            m->operstate = p[0];
            break;
        case IFLA_MTU:
            if (alen < sizeof(uint32_t))
                return false;
            memcpy(&m->mtu, p, sizeof(m->mtu));
            break;
        default:
            break;
        }
        off += RTA_ALIGN(ra.rta_len);
    }
    return true;
}

static void handle_link(struct zvs_netlink_link *nl, uint16_t type, const uint8_t *pl, size_t plen)
{
    struct ifinfomsg ifi;
    struct link_msg m;

    if (plen >= sizeof(ifi)) {
        memcpy(&ifi, pl, sizeof(ifi));
        if (ifi.ifi_family != AF_UNSPEC)
            return;
    }
    if (!parse_link(pl, plen, &m)) {
        nl->stats.malformed++;
        return;
    }
    bool del = type == RTM_DELLINK;
    /* A watched name whose ifindex now carries another name was renamed away. */
    for (size_t i = 0; i < nl->nw; i++) {
        struct nl_watch *w = &nl->w[i];
        if (w->st.exists && w->st.ifindex == m.ifindex && m.name && strcmp(w->name, m.name)) {
            w->seen = true;
            set_gone(nl, w);
        }
    }
    struct nl_watch *w = NULL;
    if (m.name) {
        w = find_name(nl, m.name);
    } else {
        for (size_t i = 0; i < nl->nw && !w; i++)
            if (nl->w[i].st.exists && nl->w[i].st.ifindex == m.ifindex)
                w = &nl->w[i];
    }
    if (!w)
        return;
    w->seen = true;
    if (!del)
        set_present(nl, w, &m);
    else if (!w->st.exists || w->st.ifindex == m.ifindex)
        set_gone(nl, w);
    /* else: the old interface of a re-created name; the new one stays */
}

static int request_dump(struct zvs_netlink_link *nl)
{
    struct {
        struct nlmsghdr  h;
        struct ifinfomsg ifi;
    } req;

    if (nl->dump_running) {
        nl->dump_again = true;
        return 0;
    }
    memset(&req, 0, sizeof(req));
    req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi));
    req.h.nlmsg_type = RTM_GETLINK;
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    req.h.nlmsg_seq = ++nl->seq;
    req.ifi.ifi_family = AF_UNSPEC;
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    if (sendto(nl->fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
        return -errno;
    nl->dump_seq = req.h.nlmsg_seq;
    nl->dump_running = true;
    nl->dump_again = false;
    nl->dump_intr = false;
    for (size_t i = 0; i < nl->nw; i++)
        nl->w[i].seen = false;
    nl->stats.dumps++;
    return 0;
}

static void dump_done(struct zvs_netlink_link *nl, bool ok)
{
    nl->dump_running = false;
    if (ok && !nl->dump_intr) {
        for (size_t i = 0; i < nl->nw; i++)
            if (!nl->w[i].seen)
                set_gone(nl, &nl->w[i]);
    } else {
        nl->dump_again = true;          /* an interrupted dump proves nothing missing */
    }
    if (ok && nl->dump_again)
        (void)request_dump(nl);
}

static void handle_msg(struct zvs_netlink_link *nl, const struct nlmsghdr *h,
                       const uint8_t *pl, size_t plen)
{
    bool ours = nl->dump_running && h->nlmsg_seq == nl->dump_seq;

    nl->stats.messages++;
    if (ours && (h->nlmsg_flags & NLM_F_DUMP_INTR))
        nl->dump_intr = true;
    switch (h->nlmsg_type) {
    case RTM_NEWLINK:
    case RTM_DELLINK:
        handle_link(nl, h->nlmsg_type, pl, plen);
        break;
    case NLMSG_DONE:
        if (ours)
            dump_done(nl, true);
        break;
    case NLMSG_ERROR: {
        struct nlmsgerr e;
        if (plen < sizeof(e)) {
            nl->stats.malformed++;
            break;
        }
        memcpy(&e, pl, sizeof(e));
        if (ours) {
            if (e.error != 0)
                nl->stats.dump_errors++;
            dump_done(nl, e.error == 0);
        }
        break;
    }
    default:
        break;
    }
}

/* Walk the messages of one datagram: the checks of NLMSG_OK over byte offsets. */
static void handle_datagram(struct zvs_netlink_link *nl, const uint8_t *buf, size_t len)
{
    size_t off = 0;
    while (off < len) {
        struct nlmsghdr h;
        if (len - off < sizeof(h)) {
            nl->stats.malformed++;
            return;
        }
        memcpy(&h, buf + off, sizeof(h));
        if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > len - off) {
            nl->stats.malformed++;
            return;
        }
        handle_msg(nl, &h, buf + off + NLMSG_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN);
        off += NLMSG_ALIGN(h.nlmsg_len);
    }
}

struct zvs_netlink_link *zvs_netlink_link_open(zvs_link_event_fn cb, void *arg, int *err)
{
    struct zvs_netlink_link *nl = calloc(1, sizeof(*nl));
    int rc = -ENOMEM, rcvbuf = NL_RCVBUF;

    if (!nl)
        goto fail;
    nl->fd = -1;
    nl->cb = cb;
    nl->arg = arg;
    nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (nl->fd < 0) {
        rc = -errno;
        goto fail;
    }
    /* A best effort: a small buffer only means more resync dumps. */
    (void)setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
    if (bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        rc = -errno;
        goto fail;
    }
    rc = request_dump(nl);
    if (rc < 0)
        goto fail;
    return nl;
fail:
    if (nl && nl->fd >= 0)
        close(nl->fd);
    free(nl);
    if (err)
        *err = rc;
    return NULL;
}

void zvs_netlink_link_on_mtu(struct zvs_netlink_link *nl, zvs_link_mtu_fn cb)
{
    nl->mtu_cb = cb;
}

void zvs_netlink_link_close(struct zvs_netlink_link *nl)
{
    if (!nl)
        return;
    close(nl->fd);
    free(nl->w);
    free(nl);
}

int zvs_netlink_link_watch(struct zvs_netlink_link *nl, const char *ifname)
{
    size_t len = ifname ? strlen(ifname) : 0;
    if (len == 0 || len >= IFNAMSIZ)
        return -EINVAL;
    if (find_name(nl, ifname))
        return -EEXIST;
    if (nl->nw == nl->cap) {
        size_t cap = nl->cap ? nl->cap * 2 : 8;
        struct nl_watch *w = realloc(nl->w, cap * sizeof(*w));
        if (!w)
            return -ENOMEM;
        nl->w = w;
        nl->cap = cap;
    }
    struct nl_watch *w = &nl->w[nl->nw++];
    memset(w, 0, sizeof(*w));
    memcpy(w->name, ifname, len + 1);
    /* The running dump may already have passed it: no sweep for it, ask again. */
    w->seen = true;
    int rc = request_dump(nl);
    return rc < 0 ? rc : 0;
}

int zvs_netlink_link_carrier_lost(struct zvs_netlink_link *nl, const char *ifname)
{
    struct nl_watch *w = ifname ? find_name(nl, ifname) : NULL;
    if (!w)
        return -ENOENT;
    /* What the caller now believes; the kernel's next word on the name is compared with
     * it, so a carrier already back (down and up inside one linkwatch run: one message,
     * carrier up) is an event instead of "no change". The dump makes sure that word
     * comes even if linkwatch sends nothing more. */
    if (w->st.known && w->st.exists)
        w->st.carrier = false;
    int rc = request_dump(nl);
    return rc < 0 ? rc : 0;
}

int zvs_netlink_link_unwatch(struct zvs_netlink_link *nl, const char *ifname)
{
    struct nl_watch *w = ifname ? find_name(nl, ifname) : NULL;
    if (!w)
        return -ENOENT;
    size_t i = (size_t)(w - nl->w);
    memmove(&nl->w[i], &nl->w[i + 1], (nl->nw - i - 1) * sizeof(*w));
    nl->nw--;
    return 0;
}

int zvs_netlink_link_fd(const struct zvs_netlink_link *nl)
{
    return nl->fd;
}

int zvs_netlink_link_process(struct zvs_netlink_link *nl)
{
    nl->delivered = 0;
    for (;;) {
        struct sockaddr_nl from;
        struct iovec iov = { nl->rxbuf, sizeof(nl->rxbuf) };
        struct msghdr msg = {
            .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1,
        };
        ssize_t r = recvmsg(nl->fd, &msg, MSG_DONTWAIT);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            if (errno == ENOBUFS) {
                /* The kernel dropped events for us: whatever we knew may be stale. */
                nl->stats.overruns++;
                if (nl->dump_running)
                    nl->dump_again = true;
                else
                    (void)request_dump(nl);
                continue;
            }
            return -errno;
        }
        if ((msg.msg_flags & MSG_TRUNC) || msg.msg_namelen < sizeof(from) ||
            from.nl_pid != 0) {
            nl->stats.malformed++;
            continue;
        }
        handle_datagram(nl, nl->rxbuf, (size_t)r);
    }
    return nl->delivered;
}

int zvs_netlink_link_feed(struct zvs_netlink_link *nl, const void *buf, size_t len)
{
    nl->delivered = 0;
    handle_datagram(nl, buf, len);
    return nl->delivered;
}

int zvs_netlink_link_state(const struct zvs_netlink_link *nl, const char *ifname,
                           struct zvs_link_state *out)
{
    for (size_t i = 0; i < nl->nw; i++) {
        if (strcmp(nl->w[i].name, ifname) == 0) {
            *out = nl->w[i].st;
            return 0;
        }
    }
    return -ENOENT;
}

void zvs_netlink_link_stats(const struct zvs_netlink_link *nl,
                            struct zvs_netlink_link_stats *out)
{
    *out = nl->stats;
}
