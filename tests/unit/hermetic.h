/* The hermetic daemon harness: the real vswitchd (libdaemon.a and below, zvsd_create)
 * on a virtual clock, its uplinks on dummy links (backends/dummy.h), an LACP partner in
 * this process on the far end of every link, and guests driving their NICs' QDIO queues
 * over the real attach socket. No root, no network namespace, no sleeping.
 *
 * Owns: the daemon, the far ends and their partner (one lacp/ engine per link sharing one
 * aggregator: a physical switch's port-channel; Marker Information answered as 802.1AX
 * 6.5.4 says; every other frame counted and kept), the guests, a scratch directory.
 * Time: herm_warp(h, s) moves the daemon's loop (and with it the partner, whose timer and
 * far-end doorbells are on the same loop) forward; every deadline fires at its exact
 * instant, and what one side sends the other receives at that same instant (zero wire
 * delay). herm_now_s() is seconds since the harness started (virtual time 0 = T0).
 * Rules: one harness per test; cmocka failures on anything unexpected. Frames the far end
 * receives that are not Slow Protocols are counted per link in data_rx.
 */
#ifndef ZVS_TEST_HERMETIC_H
#define ZVS_TEST_HERMETIC_H

#include <stdbool.h>
#include <stdint.h>

#include "lacp/lacp_port.h"

#define HERM_T0        (1000ull * 1000000000ull)    /* the loop's clock at start: 1000 s */
#define HERM_WALL_US   1700000000000000ull          /* wall clock at T0 (2023-11-14) */
#define HERM_S         1000000000ull
#define HERM_LINKS_MAX 8
#define HERM_GUESTS    4
#define HERM_FRAME_MAX 2048

struct zvsd;
struct zvs_cluster;
struct zvs_port;
struct zvs_qdio_guest;
struct sm_config;
struct sm_switch;

struct herm_link {
    char                 name[16];      /* the interface the RDEVICE names (osa28ba) */
    uint16_t             port_no;       /* the partner's port number */
    struct zvs_port     *far;           /* the test's end of the dummy link (NULL: the
                                           switch model holds it) */
    int                  bell;          /* far end's doorbell, watched by the daemon's loop */
    bool                 lacp;          /* partner engine running */
    struct zvs_lacp_port engine;        /* the partner's LACP engine for this link */
    uint8_t              mac[6];        /* the partner port's MAC */
    uint64_t             data_rx;       /* non-slow frames the far end received */
    uint64_t             lacpdu_rx;     /* LACPDUs the partner received */
    uint8_t              last_lacpdu[HERM_FRAME_MAX]; /* the last of them, as received */
    uint32_t             last_lacpdu_len;
    uint64_t             last_lacpdu_ns; /* when it arrived, since T0 */
    uint64_t             markers_answered;
    uint8_t              last[HERM_FRAME_MAX]; /* the last non-slow frame received */
    uint32_t             last_len;
    uint64_t             arp_rx;        /* ARP frames among data_rx (a VXLAN underlay's) */
    uint8_t              last_arp[64];  /* the last of them, its first 64 bytes */
    uint32_t             last_arp_len;
};

struct herm_guest {
    char                   userid[9];
    uint16_t               vdev;
    struct zvs_qdio_guest *g;
    int                    memfd, siga, irq, session;
    uint64_t               rx_frames, rx_bytes;
};

struct herm_opts {
    const char *sysconfig;              /* path (repository-relative) */
    const char *userdirect;             /* path */
    const char *const *links;           /* dummy links to create, NULL-terminated */
    bool        partner_lacp;           /* run an LACP partner on every link */
    bool        partner_long_timeout;   /* partner asks for slow PDUs (LACP_Timeout long) */
    uint32_t    monitor_interval_s;     /* 0: no monitor file */
    /* The partner as a modelled switch instead of bare engines (partner_lacp false): the
     * switch model (tests/switchmodel) with this configuration runs on the daemon's loop,
     * its ports on dummy links. Each of `links` (osa28ba) is a cable to the model's port
     * that attaches "sw-" + its name (sw-osa28ba, as configs/switchmodel/lab6509.conf
     * says); `lan` names the model's other attachments (sw-srv1), whose far ends the test
     * holds as servers (herm_link, herm_link_send, data_rx). */
    const char *switchmodel;
    const char *const *lan;
    bool        console;                /* open the operator console (vswitchd -k) */
    /* The IVL domain's cluster (zvsd_options.ivl_cluster): NULL, none (the system runs
     * alone); the test's twin (ivl/cluster_mem.h) otherwise. */
    struct zvs_cluster *(*ivl_cluster)(void *arg, const char *vswitch, unsigned index);
    void       *ivl_cluster_arg;
    const char *corosync_conf;          /* zvsd_options.corosync_conf */
};

struct herm {
    struct zvsd             *d;
    struct zvs_evloop       *loop;
    struct zvs_timer        *ptimer;    /* the partner's next LACP deadline */
    struct zvs_lacp_aggregator agg;     /* the partner's port-channel */
    unsigned                 nlink;
    struct herm_link         link[HERM_LINKS_MAX];
    unsigned                 nguest;
    struct herm_guest        guest[HERM_GUESTS];
    char                     dir[64];   /* scratch directory (attach socket, monitor file) */
    char                     qdio_sock[96];
    char                     mon_path[96];
    struct zvs_cfg          *cfg;
    bool                     keep_monitor; /* herm_stop leaves the file and directory */
    struct sm_config        *smcfg;     /* the switch model's configuration, or NULL */
    struct sm_switch        *sm;        /* the switch model (opts.switchmodel), or NULL */
    char                    *sm_out;    /* its last command's response */
    char                     con_path[96];
    char                    *con_out;   /* herm_console_read's last text */
};

/* Start the daemon at T0 with opts; cmocka-fails when anything cannot be made. */
struct herm *herm_start(const struct herm_opts *opts);
void herm_stop(struct herm *h);

/* Virtual time: move to T0 + s_from_start seconds (ns precision via herm_warp_ns). */
void herm_warp_ns(struct herm *h, uint64_t ns_from_start);
void herm_warp(struct herm *h, double s_from_start);
uint64_t herm_now_ns(const struct herm *h);         /* since T0 */

/* A CP command through the console's executor (zvsd_exec) as `userid` with classes
 * `classes` ("ABCDEFG"); the response text (owned by h until the next call) and rc. */
const char *herm_cp(struct herm *h, const char *userid, const char *classes, const char *line,
                    int *rc);
/* As OPERATOR (classes A-G); cmocka-fails unless rc is 0. */
const char *herm_op(struct herm *h, const char *line);

/* A command typed on the modelled switch (tests/switchmodel/README.md: show, shutdown,
 * no shutdown, ...) at the current instant; its response (owned by h until the next call)
 * and rc (0, or -EINVAL when the switch refused it). */
const char *herm_model(struct herm *h, const char *line, int *rc);

struct herm_link *herm_link(struct herm *h, const char *name);
/* Cut (or restore) the cable at the current instant: both ends lose (regain) carrier, the
 * partner's engine on the link is disabled (enabled), and the daemon hears the link event
 * on the near end's doorbell in this same instant (dummy.h), as vswitchd hears netlink's
 * for an AF_PACKET uplink. */
void herm_cut(struct herm *h, const char *name, bool up);
/* Plug a new cable into the interface `name` after the daemon's end of the old one was
 * destroyed (a dummy link opens once: its near end goes with the port that opened it),
 * as an AF_PACKET interface stays there to be opened again: the test's far end is
 * replaced, and the partner's engine on it carries on. */
void herm_replug(struct herm *h, const char *name);
/* Transmit a frame from the partner's side of a link (what the LAN sends to the switch). */
void herm_link_send(struct herm *h, const char *name, const uint8_t *frame, uint32_t len);

/* Attach a guest program to a coupled NIC over the attach socket, map its queues and
 * initialise them. */
struct herm_guest *herm_guest_attach(struct herm *h, const char *userid, uint16_t vdev);
/* Send n copies of a frame from the guest; the daemon forwards at the current instant. */
void herm_guest_send(struct herm *h, struct herm_guest *g, const uint8_t *frame, uint32_t len,
                     int n);
/* Send n copies as a busy guest does: up to 16 frames packed per output buffer and SIGA,
 * the daemon forwarding each hand-over at the current instant (load for an INTERVAL
 * pass in little real time; no time passes). */
void herm_guest_blast(struct herm *h, struct herm_guest *g, const uint8_t *frame, uint32_t len,
                      int n);
/* Receive what the switch delivered; returns frames received now. */
int herm_guest_receive(struct herm *h, struct herm_guest *g);

/* The report's sequence (README.md's, checked answer by answer in test_daemon_ccb.c),
 * typed as the operator, each rc 0. herm_report_group: SET PORT GROUP CCBGROUP JOIN 28BA
 * 2902, SET PORT GROUP CCBGROUP INTERVAL 30, DEFINE VSWITCH CCBVSW1 ETHERNET GROUP CCBGROUP
 * QUEUESTORAGE 1M. herm_report_sequence: those, then SET VSWITCH CCBVSW1 GRANT LNXA and
 * COUPLE USERID LNXA F000 TO SYSTEM CCBVSW1; returns LNXA's F000 attached. Both at the
 * current instant, for a harness on the CCB files (configs/lab/SYSTEM-CCB.CONFIG,
 * tests/unit/hermetic/USER-CCB.DIRECT) with links osa28ba and osa2902. */
void herm_report_group(struct herm *h);
struct herm_guest *herm_report_sequence(struct herm *h);
/* herm_start on those files and links with the LACP partner (short timeout), then
 * herm_report_sequence at T0: the set-up of the carrier and INTERVAL tests. */
struct herm *herm_start_report(struct herm_guest **lnxa);

/* An Ethernet II frame of len bytes (>= 14): dst, src, ethertype 0x0800, payload filled
 * with a pattern derived from seq. */
uint32_t herm_frame(uint8_t *buf, uint32_t len, const uint8_t dst[6], const uint8_t src[6],
                    uint32_t seq);

/* The operator console (opts.console): connect as this process's uid mapped to `userid`
 * with `classes` ("AB", "G") and ask for unsolicited messages ("\x1eCONSOLE"), the loop
 * settling at the current instant to answer. Returns the client's socket. */
int herm_console_attach(struct herm *h, const char *userid, const char *classes);
/* What the client was sent since the last read: each unsolicited message as
 * "<s.mmm>s <message>\n", s the virtual seconds since T0 its time stamp says (owned by h
 * until the next call); anything else on the wire cmocka-fails. */
const char *herm_console_read(struct herm *h, int fd);

/* Compare text with tests/golden/hermetic/<name> byte for byte (ZVS_GOLDEN_UPDATE=1
 * rewrites it). cmocka-fails with a diff-like message. */
void herm_golden(const char *name, const char *text);
/* Compare with a golden file that the root lab tests/integration/cp_commands.sh writes,
 * after the lab's normalisation (uplink counters, rates, the LACP report and the MAC table
 * counts masked as '#'): the same response the lab checks. Never rewrites it. */
void herm_golden_lab(const char *path, const char *text);
/* The lab's normalisation (cp_commands.sh normalize()), into a malloc'd string. */
char *herm_lab_normalize(const char *text);

#endif
