/* netlink_link: carrier and existence events for the Linux interfaces behind uplinks.
 *
 * An rtnetlink (NETLINK_ROUTE, RTMGRP_LINK) watcher for a set of interface names. It
 * reports, per watched name, when the interface appears or disappears and when its
 * carrier changes, through one callback. Carrier means: administratively up (IFF_UP),
 * lower layer up (IFF_LOWER_UP) and operationally up (IFLA_OPERSTATE UP or UNKNOWN, or
 * IFF_RUNNING when the kernel sends no operstate). Admin down therefore reports carrier
 * false; the finer state is available from zvs_netlink_link_state().
 *
 * The socket is non-blocking; the event loop polls zvs_netlink_link_fd() for input and
 * calls zvs_netlink_link_process(). A full link dump (RTM_GETLINK) is requested at open
 * and whenever a name is added or the kernel reports that events were lost (ENOBUFS),
 * so the state is always resynchronised. An event is delivered only when (exists,
 * ifindex, carrier) of a name changes; the first state learned is always delivered. A
 * change of the MTU alone goes to the MTU callback, when one is set
 * (zvs_netlink_link_on_mtu); with an event the receiver reads the MTU itself.
 */
#ifndef ZVS_NETLINK_LINK_H
#define ZVS_NETLINK_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* exists false: the interface is gone (or renamed away); ifindex is then 0 and carrier
 * false. A deleted and re-created interface shows up with a new ifindex. */
typedef void (*zvs_link_event_fn)(void *arg, const char *ifname, int ifindex, bool carrier,
                                  bool exists);

/* A watched interface that exists changed its MTU (IFLA_MTU) and nothing else an event
 * says: an operator's `ip link set mtu`. */
typedef void (*zvs_link_mtu_fn)(void *arg, const char *ifname, int ifindex, uint32_t mtu);

struct zvs_netlink_link;

struct zvs_link_state {
    bool     known;                     /* a dump or event has told us about the name */
    bool     exists;
    int      ifindex;
    bool     admin_up;                  /* IFF_UP */
    bool     lower_up;                  /* IFF_LOWER_UP: the driver sees carrier */
    uint8_t  operstate;                 /* IF_OPER_* (RFC 2863); from IFF_RUNNING if absent */
    bool     carrier;                   /* what the callback was last told */
    uint32_t mtu;                       /* IFLA_MTU, 0 if absent */
};

struct zvs_netlink_link_stats {
    uint64_t messages;                  /* netlink messages parsed */
    uint64_t events;                    /* callbacks delivered */
    uint64_t malformed;                 /* messages or attributes failing bounds checks */
    uint64_t overruns;                  /* ENOBUFS from the socket: events were lost */
    uint64_t dumps;                     /* RTM_GETLINK dumps requested */
    uint64_t dump_errors;               /* dumps the kernel answered with an error */
    uint64_t settles;                   /* links asked for to settle a pending carrier */
};

/* Open the watcher and request the initial dump. cb is called from process() only.
 * Returns NULL with *err = -errno on failure. */
struct zvs_netlink_link *zvs_netlink_link_open(zvs_link_event_fn cb, void *arg, int *err);
void zvs_netlink_link_close(struct zvs_netlink_link *nl);
/* Also tell MTU changes, to cb with open's arg (none until this is called). */
void zvs_netlink_link_on_mtu(struct zvs_netlink_link *nl, zvs_link_mtu_fn cb);

/* Watch an interface name (shorter than IFNAMSIZ). Its state arrives with the next
 * dump, which this requests. Returns 0, -EEXIST, -EINVAL or -ENOMEM. */
int zvs_netlink_link_watch(struct zvs_netlink_link *nl, const char *ifname);
/* The caller learned from elsewhere (a transmit the driver refused) that the carrier of
 * a watched name is down, and acted on it: the next report of carrier up is an event
 * even if this watcher never saw it go down, and a dump is requested so that report
 * comes. Returns 0, -ENOENT (not watched) or -errno from requesting the dump. */
int zvs_netlink_link_carrier_lost(struct zvs_netlink_link *nl, const char *ifname);
/* Stop watching; returns 0 or -ENOENT. */
int zvs_netlink_link_unwatch(struct zvs_netlink_link *nl, const char *ifname);

/* The socket to poll for input. */
int zvs_netlink_link_fd(const struct zvs_netlink_link *nl);

/* Read and handle everything readable now, delivering events. Returns the number of
 * events delivered, or -errno on a socket error other than EAGAIN/ENOBUFS. The callback
 * must not call watch, unwatch or close. */
int zvs_netlink_link_process(struct zvs_netlink_link *nl);

/* Handle a buffer of netlink messages as if received from the kernel (tests, fuzzing).
 * Returns the number of events delivered. */
int zvs_netlink_link_feed(struct zvs_netlink_link *nl, const void *buf, size_t len);

/* Current state of a watched name; -ENOENT if it is not watched. */
int zvs_netlink_link_state(const struct zvs_netlink_link *nl, const char *ifname,
                           struct zvs_link_state *out);

void zvs_netlink_link_stats(const struct zvs_netlink_link *nl,
                            struct zvs_netlink_link_stats *out);

#endif
