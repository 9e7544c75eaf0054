/* nic_class: the guest NIC kinds (NICBIND TAP, QDIO, LCS, none) as classes.
 *
 * A guest NIC has two halves. The kind-independent half is its owner's (the daemon's NIC
 * slot): the userid and vdev, the MAC (MACPREFIX ++ MACID), the coupling and the NIC's QDIO
 * queues (a NIC port, qdio/nic_qdio.h, made at each COUPLE), and the counters (the port's,
 * and the base COUNTERS CLEAR moves). The kind's half is what plays the guest's side of
 * those queues: a tap driver, an external program's attachment, a Hercules machine's LCS
 * tap. Each kind is one constant ops table, struct zvs_nic_class, found in the backend
 * registry (backend.h) under the kind name of its NICBIND keyword:
 *
 *   "tap"   NICBIND TAP ifname: a tap the daemon makes (or adopts after a crash), driven
 *           by guest_tap.h (nic_tap.c)
 *   "qdio"  NICBIND QDIO: a program attaches to the queues over the attach socket
 *           (nic_program.c); usable only while the owner listens (vswitchd -q)
 *   "none"  no NICBIND: driven as "qdio" is, as a z/VM guest's operating system drives
 *           the device CP gave it (nic_program.c)
 *   "lcs"   NICBIND LCS devno: the LCS tap of the user's Hercules machine, adopted while
 *           it runs (guests/nic_lcs.c; registered from that layer at start-up)
 *
 * An instance (struct zvs_nic_side, the first member of the kind's own state) is opened
 * with the NIC (zvs_nic_open), bound to its port at COUPLE and unbound at UNCOUPLE, and
 * closed with the NIC. The owner calls the zvs_nic_* functions below, never an op: they
 * apply the rules stated here once (an op that may be NULL, the port the base remembers).
 *
 * The owner gives every instance a host (struct zvs_nic_host): the event loop (watch and
 * unwatch; the kind's wake op runs when a descriptor it watches is readable) and the switch
 * (deliver: the switch takes what the guest primed), so no kind knows either.
 *
 * Live relocation (detach a NIC here with its MAC and counters, re-create it on another
 * system) changes nothing of the owner's but what it carries: detaching is unbind, then
 * close, as UNCOUPLE and DETACH NIC are now, and the MAC and the counters (the port's and
 * the base) are the owner's, never behind this table. What a kind owns moves through two
 * ops relocation would add:
 *   save(b, out)      between unbind and close: the kind's state in a form the other
 *                     system opens from (tap: its name and namespace; LCS: the machine's
 *                     device and its kernel-drop count; a program cannot follow, so "qdio"
 *                     and "none" would refuse);
 *   restore(p, saved, base, &b)  there, as open does, but from the saved state.
 *
 * Rules: one thread (the owner's event loop); classes are constant and live for the
 * program. Nothing here is on the per-frame path except what wake does.
 */
#ifndef ZVS_NIC_CLASS_H
#define ZVS_NIC_CLASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/port.h"

#define ZVS_NIC_KINDS_MAX 8             /* per-owner state slots (zvs_nic_env) */

struct zvs_nic_side;
struct zvs_nic_env;

/* The user's Hercules machine while it runs with its device open (guests/vm.h). */
struct zvs_nic_machine {
    int         netns_fd;               /* its network namespace */
    const char *tap;                    /* the tap it opened for its device */
    bool        has_device;             /* it was started with a device (an LCS) */
    uint16_t    devno;                  /* that device */
    uint8_t     mac[6];                 /* the MAC its guest was given (the NIC's then) */
};

/* A NIC of the configuration as a kind sees it (the owner fills it from NICDEF/NICBIND). */
struct zvs_nic_params {
    const char *kind;                   /* "tap", "qdio", "lcs", "none" */
    const char *userid;
    uint16_t    vdev;
    uint8_t     mac[6];                 /* the NIC's MAC (MACPREFIX ++ MACID) */
    const char *ifname;                 /* NICBIND TAP: the tap's name */
    uint16_t    devno;                  /* NICBIND LCS: the machine's device */
    bool        attach_socket;          /* the owner listens for external programs */
    uint32_t    mtu;                    /* for open: the IP MTU the NIC's switch carries
                                           (its VXLAN segment's), which a device the kind
                                           makes is held to; 0: no limit known */
    const struct zvs_nic_machine *machine; /* for open: the user's machine, or NULL */
};

/* What the owner does for its instances. Every call names the instance; b->owner is the
 * owner's own NIC. */
struct zvs_nic_host {
    /* Watch fd (readable: the kind's wake op). 0 or -errno. */
    int  (*watch)(struct zvs_nic_side *b, int fd);
    /* Stop watching fd, before it is closed (daemon/evloop.h's rule). */
    void (*unwatch)(struct zvs_nic_side *b, int fd);
    /* The switch takes every buffer the guest primed on the NIC's output queue, at `now`;
     * nothing while the NIC is not coupled. */
    void (*deliver)(struct zvs_nic_side *b, uint64_t now);
};

/* One per owner: its host and each kind's per-owner state. Zero it, set host. */
struct zvs_nic_env {
    const struct zvs_nic_host *host;
    struct {
        const struct zvs_nic_class *cls;
        void                       *state;
    } kind[ZVS_NIC_KINDS_MAX];
};

/* The base of every instance (the first member of the kind's state). */
struct zvs_nic_side {
    const struct zvs_nic_class *cls;
    struct zvs_nic_env         *env;
    void                       *owner;  /* the owner's NIC, for the host */
    char                        userid[9];
    uint16_t                    vdev;
    struct zvs_port            *port;   /* the NIC port while bound, else NULL */
};

/* QUERY NIC DETAILS' lines a kind adds, one per call, without a newline. */
typedef void (*zvs_nic_print_fn)(void *ctx, const char *line);

struct zvs_nic_class {
    /* Whether a NIC of this kind can be driven here at all: the owner makes no slot for
     * one that cannot, and refuses its COUPLE. May be NULL if always. */
    bool (*usable)(const struct zvs_nic_params *p);
    /* Opens the kind's half of a NIC being defined, unbound, with p->machine when the
     * user's machine runs. `base` is the instance's base as zvs_nic_open made it: the
     * kind copies it into its own state before anything else (the host needs it). 0 with
     * *out, or -errno: the NIC then has no slot and the owner reports the problem in
     * driver()'s words. Required. */
    int  (*open)(const struct zvs_nic_params *p, const struct zvs_nic_side *base,
                 struct zvs_nic_side **out);
    /* Drives NIC port `port` (COUPLE). 0, or -errno with nothing bound. May be NULL if
     * the kind binds nothing itself (a program attaches later through attach). */
    int  (*bind)(struct zvs_nic_side *b, struct zvs_port *port);
    /* COUPLE to a switch that carries at most `mtu` bytes of IP (a VXLAN segment): a
     * device the kind made and left at the MTU it gave it is lowered to mtu (a guest's
     * own MTU is kept). Returns the device's MTU after, 0 when the kind cannot know it (a
     * program's frames). May be NULL if the kind never knows (0). */
    uint32_t (*fit_mtu)(struct zvs_nic_side *b, uint32_t mtu);
    /* Releases the port (UNCOUPLE), after the switch took what the guest had primed and
     * before the port is destroyed; b->port is still set. May be NULL if nothing holds
     * the queues. */
    void (*unbind)(struct zvs_nic_side *b, uint64_t now);
    /* A descriptor the instance watched is ready. Required of a kind that watches. */
    void (*wake)(struct zvs_nic_side *b, int fd, uint32_t events, uint64_t now);
    /* A program asks to drive the NIC over the owner's attach socket (qdio/qdio_attach.h)
     * on connection `client`: granted or refused here, and the instance owns client from
     * then on. May be NULL if no program drives the kind (zvs_nic_attach refuses). */
    void (*attach)(struct zvs_nic_side *b, int client);
    /* The user's machine opened its device (`m`): drive it. May be NULL if the kind is
     * not a machine's device. */
    void (*machine_up)(struct zvs_nic_side *b, const struct zvs_nic_machine *m,
                       uint64_t now);
    /* The user's machine ended: let its device go; the NIC stays coupled, discarding and
     * counting frames for it. May be NULL as machine_up. */
    void (*machine_gone)(struct zvs_nic_side *b, uint64_t now);
    /* Counts what the kind saw outside the NIC port into it (LCS: the kernel's drops of
     * the guest's frames), before anything reads the NIC's counters. May be NULL if the
     * kind counts nothing outside the port. */
    void (*fold)(struct zvs_nic_side *b);
    /* QUERY NIC DETAILS' words after "Backend:" ("tap eth1"); b NULL when the NIC has no
     * instance (cannot be driven here, or its open failed). Required. */
    void (*describe)(const struct zvs_nic_params *p, const struct zvs_nic_side *b,
                     char *buf, size_t len);
    /* Lines QUERY NIC DETAILS prints after the Backend line (b as for describe). May be
     * NULL if there are none. */
    void (*details)(const struct zvs_nic_params *p, const struct zvs_nic_side *b,
                    zvs_nic_print_fn print, void *ctx);
    /* Words after "State: coupled" (", program attached"). May be NULL if none. */
    const char *(*coupled_state)(const struct zvs_nic_side *b);
    /* What drives the NIC, in the log's words ("tap eth1"); b may be NULL. Required. */
    void (*driver)(const struct zvs_nic_params *p, const struct zvs_nic_side *b,
                   char *buf, size_t len);
    /* Stops watching and lets everything go (the instance is freed); unbound first. The
     * NIC port is the owner's. Required. */
    void (*close)(struct zvs_nic_side *b);
    /* Per owner: its start is over (the first pass opened every NIC of the configuration):
     * what the kind kept for the start alone goes (tap: the taps a crashed predecessor
     * left that no NIC took are deleted). May be NULL if the kind keeps nothing. */
    void (*started)(void **state);
    /* Per owner: it stops; its state is freed (nothing is deleted). May be NULL as
     * started. */
    void (*env_fini)(void **state);
};

/* The class of p->kind, NULL when no kind of that name is registered. */
const struct zvs_nic_class *zvs_nic_class_find(const char *kind);

/* Whether a NIC can be driven here (a registered kind that is usable). */
bool zvs_nic_usable(const struct zvs_nic_params *p);
/* Opens the instance of p->kind for the owner's NIC `owner`. 0 or -errno (-ENOENT: no such
 * kind registered). */
int  zvs_nic_open(const struct zvs_nic_params *p, struct zvs_nic_env *env, void *owner,
                  struct zvs_nic_side **out);
/* COUPLE: 0 (b->port is port from now on) or -errno. */
int  zvs_nic_bind(struct zvs_nic_side *b, struct zvs_port *port);
/* The fit_mtu op (0 when the kind has none). */
uint32_t zvs_nic_fit_mtu(struct zvs_nic_side *b, uint32_t mtu);
/* UNCOUPLE (nothing when unbound); b->port is NULL after. */
void zvs_nic_unbind(struct zvs_nic_side *b, uint64_t now);
void zvs_nic_wake(struct zvs_nic_side *b, int fd, uint32_t events, uint64_t now);
/* An attach request for the NIC of userid/vdev, `b` NULL when there is no such NIC here:
 * refused (and logged) unless the kind takes programs. */
void zvs_nic_attach(struct zvs_nic_side *b, int client, const char *userid, uint16_t vdev);
void zvs_nic_machine_up(struct zvs_nic_side *b, const struct zvs_nic_machine *m,
                        uint64_t now);
void zvs_nic_machine_gone(struct zvs_nic_side *b, uint64_t now);
void zvs_nic_fold(struct zvs_nic_side *b);
/* describe, details and driver of p->kind ("(unknown kind)" when none is registered). */
void zvs_nic_describe(const struct zvs_nic_params *p, const struct zvs_nic_side *b,
                      char *buf, size_t len);
void zvs_nic_details(const struct zvs_nic_params *p, const struct zvs_nic_side *b,
                     zvs_nic_print_fn print, void *ctx);
void zvs_nic_driver(const struct zvs_nic_params *p, const struct zvs_nic_side *b,
                    char *buf, size_t len);
/* "" when the kind adds nothing. */
const char *zvs_nic_coupled_state(const struct zvs_nic_side *b);
/* NULL: nothing. */
void zvs_nic_close(struct zvs_nic_side *b);

/* For kinds: their per-owner state slot (NULL when every slot is taken). */
void **zvs_nic_env_state(struct zvs_nic_env *env, const struct zvs_nic_class *cls);
/* For the owner: its start is over (each kind's started op), or it stops (env_fini). */
void zvs_nic_env_started(struct zvs_nic_env *env);
void zvs_nic_env_fini(struct zvs_nic_env *env);

#endif
