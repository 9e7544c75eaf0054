/* Switch model configuration: a small IOS-like text file (see tests/switchmodel/README.md).
 *
 * Pure logic: text in, struct out, or one error message naming file:line and the token.
 */
#ifndef SM_CONFIG_H
#define SM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SM_MAX_IFS          16          /* interfaces per switch */
#define SM_MAX_GROUPS       8           /* channel groups 1..8 */
#define SM_NAME_LEN         32          /* "GigabitEthernet1/1" and friends */
#define SM_SHORT_LEN        12          /* "Gi1/1" */
#define SM_ATTACH_LEN       16          /* a Linux interface name (IFNAMSIZ) */
#define SM_DESC_LEN         80
#define SM_ERR_LEN          160
#define SM_DEFAULT_AGING_S  300         /* mac address-table aging-time */
#define SM_DEFAULT_PRIORITY 32768       /* lacp system-priority / port-priority */

/* port-channel load-balance */
enum sm_lb {
    SM_LB_DST_MAC,
    SM_LB_SRC_MAC,
    SM_LB_SRC_DST_MAC,
    SM_LB_SRC_DST_IP,
};

/* channel-group N mode ... */
enum sm_chan_mode {
    SM_CHAN_NONE,                       /* not in a channel group */
    SM_CHAN_ACTIVE,                     /* LACP, Active */
    SM_CHAN_PASSIVE,                    /* LACP, Passive */
    SM_CHAN_ON,                         /* static: bundled whenever the link is up */
};

/* lacp quirk ... */
#define SM_QUIRK_SUSPEND_INDIVIDUAL     0x01    /* no LACPDUs: suspended, not stand-alone */
#define SM_QUIRK_REJECT_PORT_ZERO       0x02    /* partner port number 0: never bundled */
#define SM_QUIRK_REQUIRE_AGGREGATION    0x04    /* partner not aggregatable: never bundled */

struct sm_if_cfg {
    char     name[SM_NAME_LEN];         /* canonical: "GigabitEthernet1/1" */
    char     short_name[SM_SHORT_LEN];  /* "Gi1/1" */
    uint8_t  slot;                      /* 1/1: slot 1 ... */
    uint8_t  port;                      /* ... port 1 */
    unsigned line;                      /* line of its "interface" command */
    char     description[SM_DESC_LEN];
    char     attach[SM_ATTACH_LEN];     /* the Linux interface it drives */
    unsigned group;                     /* channel group 1..SM_MAX_GROUPS, 0: none */
    enum sm_chan_mode mode;
    bool     fast;                      /* lacp rate fast */
    uint16_t port_priority;             /* lacp port-priority */
    uint64_t rate_bps;                  /* rate-limit, 0: none */
    uint64_t rate_fps;                  /* rate-limit ... NNNpps: frames/s both ways, 0: none */
    uint32_t queue_frames;              /* rate-limit ... queue N: frames per direction, 0: bytes */
    bool     shutdown;                  /* start admin down */
    bool     trunk;                     /* switchport mode trunk */
    uint16_t access_vlan;               /* switchport access vlan (1 by default) */
};

struct sm_config {
    char     hostname[SM_NAME_LEN];
    uint16_t system_priority;           /* lacp system-priority */
    enum sm_lb lb;                      /* port-channel load-balance */
    unsigned quirks;                    /* SM_QUIRK_* */
    unsigned aging_s;                   /* mac address-table aging-time, 0: never */
    unsigned n_ifs;
    struct sm_if_cfg ifs[SM_MAX_IFS];
};

/* Parse `text` (NUL-terminated); `file` names it in errors. Returns 0, or -EINVAL with
 * err holding "file:line: message". */
int sm_config_parse(const char *text, const char *file, struct sm_config *out, char *err,
                    size_t errlen);
/* Read and parse a file. -errno from reading also gives a message in err. */
int sm_config_load(const char *path, struct sm_config *out, char *err, size_t errlen);

/* An interface name as an operator types it: "GigabitEthernet1/1", "gi1/1", "Gig 1/1"
 * is two tokens and not accepted here. Any prefix (at least 2 letters) of
 * "GigabitEthernet", then slot/port, 1..99 each. Returns 0 and fills slot/port. */
int sm_ifname_parse(const char *text, uint8_t *slot, uint8_t *port);
/* "Port-channel1" / "po1": returns the group (1..SM_MAX_GROUPS) or -EINVAL. */
int sm_poname_parse(const char *text);

const char *sm_lb_name(enum sm_lb lb);
const char *sm_chan_mode_name(enum sm_chan_mode m);

#endif
