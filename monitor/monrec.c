/* Monitor record codec: struct zvs_mon_record <-> the bytes of one z/VM-shaped record.
 *
 * Owns: the byte layout of D6R21, D6R22/23, D8R1, D8R2/3 in every layout version, and of
 * our resolver records D15R1/D15R2 (domain 15, which IBM does not define; versions 3 and 4
 * only) (monitor/RECORDS.md is the table; the offsets below are the same numbers).
 * Sources: IBM, "z/VM Data Areas, Control Blocks, and Monitor Records" (the MRRECHDR,
 * MRIODVSW, MRIODVSF, MRIODVSR, MRVNDSES, MRVNDLSU, MRVNDLSD pages; RECORDS.md names each
 * page and level). MRVNDLSU (z/VM 6.1) and MRIODVSF (z/VM 7.2, 7.3) could be read whole;
 * of the others the header, the record lengths (MRIODVSW 492 bytes in z/VM 7.1 and 7.2;
 * MRIODVSR 88, MRVNDLSD 60) and the first fields. Byte 47 of D6R22 (IODVSF_FLAG1), of
 * D6R23 (IODVSR_LANTYPE) and of D8R2/3 (VNDLSU_LANTYPE), and D8R2/3's byte 56
 * (VNDLSU_FLAGS) are IBM's: the decoder accepts every value IBM defines there, so a record
 * z/VM wrote is not refused for them. Everything else is ours and RECORDS.md says so field
 * by field.
 *
 * Version 2 (written): IBM's record length is kept whole and our own fields go after it,
 * so a tool that knows IBM's layout never finds our data where IBM has a field of its own
 * (D6R21: IBM's 80-491 are zero; our fields at 492-579). D6R22's reason, whose code
 * space is ours, moves out of IBM's IODVSF_LANRDD_RSN byte (left zero) to 80.
 * Version 1 (read, and written for tests): our first layout, D6R21 168 bytes with our
 * fields at 80, D6R22 80 bytes with our reason at 76.
 * Version 3: version 2's records, but D8R1 at MRVNDSES's z/VM 5.3 layout (316 bytes) as
 * zpmd (the open-source z/VM monitor decoder) reads it; IBM's page was not found.
 * Version 4: version 3's records, but a D6R21 or D8R1 that carries discard counters by
 * reason (ndrops) has them appended after its own end (D6R21 724 bytes, D8R1 460); one
 * without is written and read at its old length. A version 3 reader takes one length per
 * record, so the longer ones need a version of their own: version 3 is written without
 * them, and the version 3 records with them that the first vswitchd to carry them wrote
 * are read.
 *
 * Rules: integers big-endian; names 8 bytes EBCDIC 037 blank padded; reserved bytes zero.
 * The decoder trusts nothing: the buffer length must equal MRHDRLEN and the length defined
 * for that domain/record, reserved bytes must be zero, names must be CP names and a few
 * fields must be in range. Fields of IBM's layout that we do not model (subchannel id,
 * IBM's 80-491 of D6R21, manager fields, QDIO state) are written as zero (names
 * as blanks) and not checked on decode, as a reader of real records would treat them.
 * The encoder refuses what the decoder would refuse, so every encoded record decodes.
 *
 * Hazard: D6R21's packet counters are 4 bytes at 56-79; the high words of our 64-bit
 * counters go to our own tail so nothing is lost.
 */
#include "monitor/monrec.h"

#include <errno.h>
#include <string.h>

#include "monitor/be.h"
#include "monitor/ebcdic.h"

/* MRRECHDR */
#define HDR_LEN     0
#define HDR_ZER     2
#define HDR_DM      4
#define HDR_RSV1    5
#define HDR_RC      6
#define HDR_TOD     8
#define HDR_RSV2    16

/* D6R21 MRIODVSW: 20-79 in both versions; our tail at 80 (v1, 168 bytes) or after IBM's
 * 492 bytes (v2, 580 bytes). Tail offsets are relative to the tail's start. */
#define D6R21_LEN_V1        168
#define D6R21_LEN_V2        580
#define D6R21_TAIL_V1       80
#define D6R21_TAIL_V2       492         /* IBM's MRIODVSW length, z/VM 7.1 and 7.2 */
#define IODVSW_RDEVSID      20
#define IODVSW_RDEVDEV      24
#define IODVSW_LANFSV       26
#define IODVSW_RSV27        27
#define IODVSW_LANIPTO      28
#define IODVSW_OSAPORTN     30
#define IODVSW_RSV31        31
#define IODVSW_VMDUSER      32
#define IODVSW_NICTXBYT     40
#define IODVSW_NICRXBYT     48
#define IODVSW_NICTXPKT     56          /* TXPKT, TXDSC, TXERR, RXPKT, RXDSC, RXERR: 4 each */
#define T_LANID_OWNER       0
#define T_LANID_NAME        8
#define T_SWPGROUP          16
#define T_OSAMAC            24
#define T_SWPINTSC          30
#define T_VQSMRKCT          32
#define T_VQSMRPCT          36
#define T_VQSMRRCT          40
#define T_VQSMTOCT          44
#define T_VQSLCSCT          48
#define T_VQSLCRCT          52
#define T_LACPSTAT          56
#define T_DISTRIB           57
#define T_BUCKETS           58          /* port-group buckets on this device */
#define T_PKT_HI            60          /* high words of the six packet counters */
#define T_PGMOVES           84          /* the group's bucket moves, cumulative */

/* Discard counters by reason (ours, version 4; read in version 3 too): ZVS_MON_DROP_REASONS
 * x 8 bytes, in enum zvs_mon_drop's order, appended to a D6R21 (at 580) or a D8R1 (at 316). */
#define DROPS_LEN           (8 * ZVS_MON_DROP_REASONS)
#define D6R21_LEN_DROPS     (D6R21_LEN_V2 + DROPS_LEN)      /* 724 */

/* D6R22 MRIODVSF (80 v1, 88 v2) / D6R23 MRIODVSR (88): common head */
#define D6R22_LEN_V1        80
#define D6R22_LEN_V2        88
#define D6R23_LEN           88
#define IODVSF_LANOWNER     20
#define IODVSF_LANNAME      28
#define IODVSF_LANCONT      36
#define IODVSF_RDEV         44
#define IODVSF_OSAPORT      46
#define IODVSF_FLAG1        47          /* D6R22: flags; D6R23: IODVSR_LANTYPE */
#define IODVSF_SWITCHOVER   0x80        /* IODVSF_FLAG1: SET VSWITCH SWITCHOVER; the other
                                           bits are IBM's reserved */
#define IODVSR_LANTYPE      47
#define IODVSF_MGSWIEUSER   52
#define IODVSF_RSV66        66
#define IODVSF_SWPGROUP     68
#define IODVSF_LANRDD_RSN   76          /* v1: our reason; v2: IBM's byte, left zero */
#define IODVSF_RSN_V2       80          /* v2: our reason, then 81-87 reserved */
#define IODVSF_RSV81        81
#define IODVSR_MGSWIEUSER   56
#define IODVSR_RSV70        70
#define IODVSR_SWPGROUP     72
#define IODVSR_RSV80        80

/* D8R1 MRVNDSES, two layouts sharing one codec (offsets per layout below):
 *  - IBM's z/VM 5.3 layout, 316 bytes (RECORDS.md: taken from zpmd's decoder, IBM's page
 *    not found): what layout versions 3 and 4 write, and z/VM's own records;
 *  - our first layout, 128 bytes, all ours: versions 1 and 2, and version 3 files written
 *    before IBM's layout was known (told apart from IBM's by the length alone).
 * In IBM's layout every field we fill has IBM's place but the discard counters by reason,
 * appended after IBM's 316 bytes (D8R1_LEN_DROPS);
 * IBM's fields we do not model (VDEVSUB, lock and defer counts, PCI counts, SWPINTSC, the
 * per-device table, the request counts) are zero and not checked on decode. */
#define D8R1_LEN_OURS       128
#define D8R1_LEN_53         316
#define D8R1_LEN_DROPS      (D8R1_LEN_53 + DROPS_LEN)       /* 460 */
#define VNDSES_RSV39        39          /* ours: reserved */
#define VNDSES53_RSV22      22          /* 2, after VNDSES_VDEVSUB */
#define VNDSES53_NICBASE    34          /* the NIC's base device: VDEVDEV again in ours */
#define VNDSES53_RSV61      61          /* 3, after VNDSES_VSWITCH */
#define VNDSES53_RSV186     186         /* 2, after VNDSES_SWPINTSC */
#define VNDSES53_DEVTAB     188         /* 8 x (NIDDVNUM 2, reserved 2, VRTPFRME 4) */

struct d8r1_layout {
    uint16_t len, owner, vdevdev, nicmac, nictranp, nictype, vswitch, lanid_owner,
             lanid_name, sestxbyt, sesrxbyt, sestxpkt, swpgroup;
};

/* SESTXPKT is the first of six 8-byte counters: TXPKT, TXDSC, TXERR, RXPKT, RXDSC, RXERR. */
static const struct d8r1_layout d8r1_ours = {
    D8R1_LEN_OURS, 20, 28, 30, 36, 37, 38, 40, 48, 56, 64, 72, 120,
};
static const struct d8r1_layout d8r1_53 = {
    D8R1_LEN_53, 24, 32, 36, 42, 43, 60, 44, 52, 96, 104, 112, 176,
};

/* D8R2 MRVNDLSU / D8R3 MRVNDLSD (60) */
#define D8R2_LEN            60
#define VNDLS_LANOWNER      20
#define VNDLS_LANNAME       28
#define VNDLS_NICOWNER      36
#define VNDLS_NICBASE       44
#define VNDLS_NICTYPE       46
#define VNDLS_LANTYPE       47          /* MRVNDLSU, z/VM 6.1 */
#define VNDLS_FLAGS         56          /* MRVNDLSU, z/VM 6.1 */
#define VNDLS_UPLINK        0x80        /* VNDLS_FLAGS: UPLINK NIC; the other bits reserved */
#define VNDLS_RSV57         57

/* D15R1 (72, ours): the resolver's counters */
#define D15R1_LEN           72
#define RESACT_WATCHED      20
#define RESACT_INFLIGHT     24
#define RESACT_LOOKUPS      28          /* LOOKUPS, FAILURES, BADANS, CHANGES, DEFERRED: 8 each */
#define RESACT_RSV68        68

/* D15R2 (576, ours): a watched name's event */
#define D15R2_LEN           576
#define RESEV_EVENT         20
#define RESEV_STATE         21
#define RESEV_ERROR         22
#define RESEV_NAMELEN       23
#define RESEV_TTL           24
#define RESEV_NOLD          28
#define RESEV_NNEW          29
#define RESEV_RSV30         30
#define RESEV_OLD           32          /* 8 slots of 18: family, reserved, 16 address bytes */
#define RESEV_NEW           176
#define RESEV_SLOT          18
#define RESEV_NAME          320         /* 256 bytes: ASCII, NUL padded */
#define RESEV_NAME_FIELD    256

#define QUEUESTORAGE_MAX    8

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            return false;
    return true;
}

/* The data plane's names and kinds (dataplane/port.c), under our codes. */
static const struct {
    const char *name;
    enum zvs_mon_drop_kind kind;
} drop_info[ZVS_MON_DROP_REASONS] = {
    [ZVS_MON_DROP_RUNT]           = { "runt", ZVS_MON_DROP_KIND_ERROR },
    [ZVS_MON_DROP_OVERSIZE]       = { "oversize", ZVS_MON_DROP_KIND_ERROR },
    [ZVS_MON_DROP_BAD_VLAN]       = { "bad-vlan-tag", ZVS_MON_DROP_KIND_ERROR },
    [ZVS_MON_DROP_VLAN_DENIED]    = { "vlan-not-authorized", ZVS_MON_DROP_KIND_DISCARD },
    [ZVS_MON_DROP_MACPROTECT]     = { "macprotect", ZVS_MON_DROP_KIND_DISCARD },
    [ZVS_MON_DROP_NO_BUFFER]      = { "no-input-buffer", ZVS_MON_DROP_KIND_DISCARD },
    [ZVS_MON_DROP_MAC_FULL]       = { "mac-table-full", ZVS_MON_DROP_KIND_NOTE },
    [ZVS_MON_DROP_LINK_DOWN]      = { "link-down", ZVS_MON_DROP_KIND_DISCARD },
    [ZVS_MON_DROP_NO_UPLINK]      = { "no-uplink", ZVS_MON_DROP_KIND_DISCARD },
    [ZVS_MON_DROP_SLOW_PROTO]     = { "slow-protocol", ZVS_MON_DROP_KIND_DISCARD },
    [ZVS_MON_DROP_TX_FAIL]        = { "tx-failed", ZVS_MON_DROP_KIND_ERROR },
    [ZVS_MON_DROP_ISOLATION]      = { "isolation", ZVS_MON_DROP_KIND_DISCARD },
    [ZVS_MON_DROP_BAD_SRC]        = { "bad-source-mac", ZVS_MON_DROP_KIND_ERROR },
    [ZVS_MON_DROP_SAME_PORT]      = { "same-port", ZVS_MON_DROP_KIND_DISCARD },
    [ZVS_MON_DROP_FILTERED]       = { "address-filtered", ZVS_MON_DROP_KIND_NOTE },
    [ZVS_MON_DROP_OFFLOAD]        = { "offload-fixup-failed", ZVS_MON_DROP_KIND_ERROR },
    [ZVS_MON_DROP_NOT_COLLECTING] = { "not-collecting", ZVS_MON_DROP_KIND_DISCARD },
    [ZVS_MON_DROP_GUEST_OVERRUN]  = { "guest-overrun", ZVS_MON_DROP_KIND_DISCARD },
};

const char *zvs_mon_drop_name(unsigned code)
{
    return code < ZVS_MON_DROP_REASONS ? drop_info[code].name : "?";
}

enum zvs_mon_drop_kind zvs_mon_drop_kind(unsigned code)
{
    return code < ZVS_MON_DROP_REASONS ? drop_info[code].kind : ZVS_MON_DROP_KIND_NOTE;
}

static void put_drops(uint8_t *p, const uint64_t *drops)
{
    for (unsigned i = 0; i < ZVS_MON_DROP_REASONS; i++)
        be_put64(p + 8 * i, drops[i]);
}

static void get_drops(const uint8_t *p, uint8_t *ndrops, uint64_t *drops)
{
    for (unsigned i = 0; i < ZVS_MON_DROP_REASONS; i++)
        drops[i] = be_get64(p + 8 * i);
    *ndrops = ZVS_MON_DROP_REASONS;
}

/* The length a record of ours has in `version`, given what it carries: a D6R21 or D8R1
 * with discard reasons is longer in version 4; in versions 1 to 3 they are left out. */
static size_t carried_len(const struct zvs_mon_record *r, unsigned version, size_t len)
{
    uint8_t ndrops = r->domain == ZVS_MON_DOMAIN_IO && r->number == ZVS_MON_REC_D6R21
                     ? r->u.vsw.ndrops
                     : r->domain == ZVS_MON_DOMAIN_NET && r->number == ZVS_MON_REC_D8R1
                     ? r->u.vnic.ndrops : 0;
    if (ndrops != 0 && ndrops != ZVS_MON_DROP_REASONS)
        return 0;                       /* a count we cannot write */
    return ndrops && version == ZVS_MON_FORMAT_V4 ? len + DROPS_LEN : len;
}

/* Versions 3 and 4: our records in z/VM's MONWRITE framing. */
static bool monwrite_version(unsigned version)
{
    return version == ZVS_MON_FORMAT_V3 || version == ZVS_MON_FORMAT_V4;
}

/* A length in `version` that is not the record's first one: a D6R21 or D8R1 with discard
 * reasons (version 4, and version 3 as the first vswitchd to carry them wrote it), or a
 * version 3 D8R1 of our first layout (a file written before IBM's was known). */
static bool other_len(unsigned version, uint8_t domain, uint16_t number, size_t len)
{
    if (!monwrite_version(version))
        return false;
    if (domain == ZVS_MON_DOMAIN_IO && number == ZVS_MON_REC_D6R21)
        return len == D6R21_LEN_DROPS;
    if (domain == ZVS_MON_DOMAIN_NET && number == ZVS_MON_REC_D8R1)
        return len == D8R1_LEN_DROPS || (version == ZVS_MON_FORMAT_V3 && len == D8R1_LEN_OURS);
    return false;
}

uint64_t zvs_mon_tod_from_unix_us(uint64_t unix_us)
{
    return ZVS_MON_TOD_UNIX_EPOCH + (unix_us << 12);
}

uint64_t zvs_mon_tod_to_unix_us(uint64_t tod)
{
    if (tod < ZVS_MON_TOD_UNIX_EPOCH)
        return 0;                       /* before 1970: not a time we write */
    return (tod - ZVS_MON_TOD_UNIX_EPOCH) >> 12;
}

/* A LAN type IBM defines for the record (or 0: ours before IBM's field was known). D8R2/3
 * (MRVNDLSU, z/VM 6.1): 1 HiperSockets, 2 QDIO, 4 INMN, 5 IEDN. D6R23 (MRIODVSR, z/VM 7.4):
 * 2 QDIO, 4 and 5 IBM reserved, 6 IVL. */
static bool lan_type_known(uint8_t t, bool vnic)
{
    switch (t) {
    case 0:
    case ZVS_MON_LANTYPE_QDIO:
    case ZVS_MON_LANTYPE_INMN:
    case ZVS_MON_LANTYPE_IEDN:
        return true;
    case ZVS_MON_LANTYPE_HIPERSOCKETS:
        return vnic;
    case ZVS_MON_LANTYPE_IVL:
        return !vnic;
    default:
        return false;
    }
}

static bool version_known(unsigned version)
{
    return version == ZVS_MON_FORMAT_V1 || version == ZVS_MON_FORMAT_V2 ||
           monwrite_version(version) || version == ZVS_MON_FORMAT_IBM;
}

/* z/VM's own records (ZVS_MON_FORMAT_IBM): the bytes we read must be there; a longer record
 * (a later level's) is read the same. D6R21: 20-79 (MRIODVSW is 132 bytes at z/VM 4.4 and
 * longer since); D6R22: MRIODVSF's 80; D6R23: MRIODVSR to its LAN type (47); D8R2/3:
 * MRVNDLSU/MRVNDLSD's 56 bytes of z/VM 5.3/5.4; D8R1: MRVNDSES's 316 bytes of z/VM 5.3. */
static size_t ibm_min_len(uint8_t domain, uint16_t number)
{
    if (domain == ZVS_MON_DOMAIN_IO && number == ZVS_MON_REC_D6R21)
        return 80;
    if (domain == ZVS_MON_DOMAIN_IO && number == ZVS_MON_REC_D6R22)
        return 80;
    if (domain == ZVS_MON_DOMAIN_IO && number == ZVS_MON_REC_D6R23)
        return 48;
    if (domain == ZVS_MON_DOMAIN_NET &&
        (number == ZVS_MON_REC_D8R2 || number == ZVS_MON_REC_D8R3))
        return 56;
    if (domain == ZVS_MON_DOMAIN_NET && number == ZVS_MON_REC_D8R1)
        return D8R1_LEN_53;
    return 0;
}

/* The defined length of a record in a layout version, 0 if we do not know it. */
static size_t record_len(uint8_t domain, uint16_t number, unsigned version)
{
    bool v1 = version == ZVS_MON_FORMAT_V1;

    if (domain == ZVS_MON_DOMAIN_IO) {
        switch (number) {
        case ZVS_MON_REC_D6R21: return v1 ? D6R21_LEN_V1 : D6R21_LEN_V2;
        case ZVS_MON_REC_D6R22: return v1 ? D6R22_LEN_V1 : D6R22_LEN_V2;
        case ZVS_MON_REC_D6R23: return D6R23_LEN;
        default: return 0;
        }
    }
    if (domain == ZVS_MON_DOMAIN_ZVS && monwrite_version(version)) {
        switch (number) {
        case ZVS_MON_REC_D15R1: return D15R1_LEN;
        case ZVS_MON_REC_D15R2: return D15R2_LEN;
        default: return 0;
        }
    }
    if (domain == ZVS_MON_DOMAIN_NET) {
        switch (number) {
        case ZVS_MON_REC_D8R1: return monwrite_version(version) ? D8R1_LEN_53
                                                                : D8R1_LEN_OURS;
        case ZVS_MON_REC_D8R2:
        case ZVS_MON_REC_D8R3: return D8R2_LEN;
        default: return 0;
        }
    }
    return 0;
}

const char *zvs_mon_record_name(uint8_t domain, uint16_t number)
{
    if (domain == ZVS_MON_DOMAIN_IO) {
        switch (number) {
        case ZVS_MON_REC_D6R21: return "D6R21";
        case ZVS_MON_REC_D6R22: return "D6R22";
        case ZVS_MON_REC_D6R23: return "D6R23";
        default: break;
        }
    } else if (domain == ZVS_MON_DOMAIN_NET) {
        switch (number) {
        case ZVS_MON_REC_D8R1: return "D8R1";
        case ZVS_MON_REC_D8R2: return "D8R2";
        case ZVS_MON_REC_D8R3: return "D8R3";
        default: break;
        }
    } else if (domain == ZVS_MON_DOMAIN_ZVS) {
        switch (number) {
        case ZVS_MON_REC_D15R1: return "D15R1";
        case ZVS_MON_REC_D15R2: return "D15R2";
        default: break;
        }
    }
    return "unknown";
}

bool zvs_mon_is_sample(uint8_t domain, uint16_t number)
{
    return (domain == ZVS_MON_DOMAIN_IO && number == ZVS_MON_REC_D6R21) ||
           (domain == ZVS_MON_DOMAIN_NET && number == ZVS_MON_REC_D8R1) ||
           (domain == ZVS_MON_DOMAIN_ZVS && number == ZVS_MON_REC_D15R1);
}

/* ---- encode ----------------------------------------------------------------------- */

static int put_name(uint8_t *p, const char *name)
{
    return zvs_ebcdic_name_put(p, name);
}

/* Where our tail starts and how long the record is, per layout version. */
static size_t d6r21_tail(unsigned version)
{
    return version == ZVS_MON_FORMAT_V1 ? D6R21_TAIL_V1 : D6R21_TAIL_V2;
}

static int encode_d6r21(const struct zvs_mon_vswitch_activity *v, unsigned version,
                        size_t len, uint8_t *b)
{
    const uint64_t pkt[6] = { v->tx_packets, v->tx_discards, v->tx_errors,
                              v->rx_packets, v->rx_discards, v->rx_errors };
    uint8_t *t = b + d6r21_tail(version);

    if (v->queuestorage_mb < 1 || v->queuestorage_mb > QUEUESTORAGE_MAX || v->distributing > 1 ||
        v->buckets > 256)
        return -EINVAL;
    if (put_name(b + IODVSW_VMDUSER, v->controller) < 0 ||
        put_name(t + T_LANID_OWNER, v->lan_owner) < 0 ||
        put_name(t + T_LANID_NAME, v->lan_name) < 0 ||
        put_name(t + T_SWPGROUP, v->group) < 0)
        return -EINVAL;
    be_put16(b + IODVSW_RDEVDEV, v->rdev);
    b[IODVSW_LANFSV] = v->queuestorage_mb;
    be_put16(b + IODVSW_LANIPTO, v->iptimeout_ticks);
    b[IODVSW_OSAPORTN] = v->osa_port;
    be_put64(b + IODVSW_NICTXBYT, v->tx_bytes);
    be_put64(b + IODVSW_NICRXBYT, v->rx_bytes);
    for (int i = 0; i < 6; i++) {
        be_put32(b + IODVSW_NICTXPKT + 4 * i, (uint32_t)pkt[i]);
        be_put32(t + T_PKT_HI + 4 * i, (uint32_t)(pkt[i] >> 32));
    }
    memcpy(t + T_OSAMAC, v->osa_mac, 6);
    be_put16(t + T_SWPINTSC, v->interval_s);
    be_put32(t + T_VQSMRKCT, v->markers_tx);
    be_put32(t + T_VQSMRPCT, v->marker_responses_rx);
    be_put32(t + T_VQSMRRCT, v->marker_requests_rx);
    be_put32(t + T_VQSMTOCT, v->marker_timeouts);
    be_put32(t + T_VQSLCSCT, v->lacpdus_tx);
    be_put32(t + T_VQSLCRCT, v->lacpdus_rx);
    t[T_LACPSTAT] = v->lacp_state;
    t[T_DISTRIB] = v->distributing;
    be_put16(t + T_BUCKETS, v->buckets);
    be_put32(t + T_PGMOVES, v->group_moves);
    if (len == D6R21_LEN_DROPS)
        put_drops(b + D6R21_LEN_V2, v->drops);
    return (int)len;
}

static int encode_d6r2x(const struct zvs_mon_vswitch_event *v, bool failure, unsigned version,
                        uint8_t *b)
{
    if ((failure && v->reason > ZVS_MON_FAIL_DETACHED) ||
        (!failure && !lan_type_known(v->lan_type, false)))
        return -EINVAL;
    if (put_name(b + IODVSF_LANOWNER, v->lan_owner) < 0 ||
        put_name(b + IODVSF_LANNAME, v->lan_name) < 0 ||
        put_name(b + IODVSF_LANCONT, v->controller) < 0 ||
        put_name(b + (failure ? IODVSF_SWPGROUP : IODVSR_SWPGROUP), v->group) < 0)
        return -EINVAL;
    be_put16(b + IODVSF_RDEV, v->rdev);
    b[IODVSF_OSAPORT] = v->osa_port;
    /* No manager in our model: the manager userid is blank. */
    memset(b + (failure ? IODVSF_MGSWIEUSER : IODVSR_MGSWIEUSER), ZVS_EBCDIC_BLANK, 8);
    if (!failure) {
        b[IODVSR_LANTYPE] = v->lan_type;
        return D6R23_LEN;
    }
    b[IODVSF_FLAG1] = v->switchover ? IODVSF_SWITCHOVER : 0;
    /* Our reason codes are not IBM's: v2 keeps them out of IBM's IODVSF_LANRDD_RSN. */
    b[version == ZVS_MON_FORMAT_V1 ? IODVSF_LANRDD_RSN : IODVSF_RSN_V2] = v->reason;
    return version == ZVS_MON_FORMAT_V1 ? D6R22_LEN_V1 : D6R22_LEN_V2;
}

/* The layout of a D8R1 of `len` bytes in layout `version`: IBM's 5.3 layout in versions 3
 * and 4 and z/VM's own records (whose length may be a later level's), our first layout in
 * versions 1 and 2 and in a version 3 record of its 128 bytes. */
static const struct d8r1_layout *d8r1_layout(unsigned version, size_t len)
{
    if (version == ZVS_MON_FORMAT_IBM)
        return &d8r1_53;
    return monwrite_version(version) && len != D8R1_LEN_OURS ? &d8r1_53 : &d8r1_ours;
}

static int encode_d8r1(const struct zvs_mon_vnic_activity *v, const struct d8r1_layout *l,
                       size_t len, uint8_t *b)
{
    const uint64_t cnt[6] = { v->tx_packets, v->tx_discards, v->tx_errors,
                              v->rx_packets, v->rx_discards, v->rx_errors };

    if (v->vswitch > 1)
        return -EINVAL;
    if (put_name(b + l->owner, v->owner) < 0 ||
        put_name(b + l->lanid_owner, v->lan_owner) < 0 ||
        put_name(b + l->lanid_name, v->lan_name) < 0 ||
        put_name(b + l->swpgroup, v->group) < 0)
        return -EINVAL;
    be_put16(b + l->vdevdev, v->vdev);
    if (l == &d8r1_53)
        be_put16(b + VNDSES53_NICBASE, v->vdev);    /* ours: one device per NIC */
    memcpy(b + l->nicmac, v->mac, 6);
    b[l->nictranp] = v->transport;
    b[l->nictype] = v->nic_type;
    b[l->vswitch] = v->vswitch;
    be_put64(b + l->sestxbyt, v->tx_bytes);
    be_put64(b + l->sesrxbyt, v->rx_bytes);
    for (int i = 0; i < 6; i++)
        be_put64(b + l->sestxpkt + 8 * i, cnt[i]);
    if (len == D8R1_LEN_DROPS)
        put_drops(b + D8R1_LEN_53, v->drops);
    return (int)len;
}

static int encode_d8r23(const struct zvs_mon_vnic_link *v, uint8_t *b)
{
    if (!lan_type_known(v->lan_type, true))
        return -EINVAL;
    if (put_name(b + VNDLS_LANOWNER, v->lan_owner) < 0 ||
        put_name(b + VNDLS_LANNAME, v->lan_name) < 0 ||
        put_name(b + VNDLS_NICOWNER, v->nic_owner) < 0)
        return -EINVAL;
    be_put16(b + VNDLS_NICBASE, v->vdev);
    b[VNDLS_NICTYPE] = v->nic_type;
    b[VNDLS_LANTYPE] = v->lan_type;
    b[VNDLS_FLAGS] = v->uplink ? VNDLS_UPLINK : 0;
    return D8R2_LEN;
}

static int encode_d15r1(const struct zvs_mon_resolver_activity *v, uint8_t *b)
{
    const uint64_t cnt[5] = { v->lookups, v->failures, v->bad_answers, v->changes,
                              v->deferred };

    if (v->bad_answers > v->failures)
        return -EINVAL;
    be_put32(b + RESACT_WATCHED, v->watched);
    be_put32(b + RESACT_INFLIGHT, v->in_flight);
    for (int i = 0; i < 5; i++)
        be_put64(b + RESACT_LOOKUPS + 8 * i, cnt[i]);
    return D15R1_LEN;
}

/* A host name as names/ keeps it: lower-case letters, digits, '-', '.', and an address
 * literal's ':' (IPv6); 1-253 characters. */
static bool res_name_ok(const char *s, size_t len)
{
    if (len == 0 || len > ZVS_MON_RES_NAME_MAX)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
              c == ':'))
            return false;
    }
    return true;
}

static bool res_addr_ok(const struct zvs_mon_res_addr *a)
{
    return a->family == 6 || (a->family == 4 && all_zero(a->addr + 4, 12));
}

static bool res_event_ok(const struct zvs_mon_resolver_event *v)
{
    if (v->event > ZVS_MON_RES_EV_RECOVERED || v->state > ZVS_MON_RES_STATE_MAX ||
        v->last_error > ZVS_MON_RES_ERROR_MAX || v->nold > ZVS_MON_RES_ADDRS ||
        v->nnew > ZVS_MON_RES_ADDRS)
        return false;
    for (unsigned i = 0; i < v->nold; i++)
        if (!res_addr_ok(&v->old[i]))
            return false;
    for (unsigned i = 0; i < v->nnew; i++)
        if (!res_addr_ok(&v->now[i]))
            return false;
    return true;
}

static void put_res_addrs(uint8_t *p, const struct zvs_mon_res_addr *a, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        p[RESEV_SLOT * i] = a[i].family;
        memcpy(p + RESEV_SLOT * i + 2, a[i].addr, 16);
    }
}

static int encode_d15r2(const struct zvs_mon_resolver_event *v, uint8_t *b)
{
    size_t len = strnlen(v->name, sizeof(v->name));

    if (!res_name_ok(v->name, len) || !res_event_ok(v))
        return -EINVAL;
    b[RESEV_EVENT] = v->event;
    b[RESEV_STATE] = v->state;
    b[RESEV_ERROR] = v->last_error;
    b[RESEV_NAMELEN] = (uint8_t)len;
    be_put32(b + RESEV_TTL, v->ttl_s);
    b[RESEV_NOLD] = v->nold;
    b[RESEV_NNEW] = v->nnew;
    put_res_addrs(b + RESEV_OLD, v->old, v->nold);
    put_res_addrs(b + RESEV_NEW, v->now, v->nnew);
    memcpy(b + RESEV_NAME, v->name, len);
    return D15R2_LEN;
}

int zvs_mon_encode_version(const struct zvs_mon_record *r, unsigned version, uint8_t *buf,
                           size_t cap)
{
    size_t len = version_known(version) && version != ZVS_MON_FORMAT_IBM
                 ? carried_len(r, version, record_len(r->domain, r->number, version)) : 0;
    int rc;

    if (len == 0 || cap < len)
        return -EINVAL;
    memset(buf, 0, len);
    be_put16(buf + HDR_LEN, (uint16_t)len);
    buf[HDR_DM] = r->domain;
    be_put16(buf + HDR_RC, r->number);
    be_put64(buf + HDR_TOD, r->tod);
    if (r->domain == ZVS_MON_DOMAIN_ZVS)
        rc = r->number == ZVS_MON_REC_D15R1 ? encode_d15r1(&r->u.res, buf)
                                             : encode_d15r2(&r->u.resev, buf);
    else if (r->domain == ZVS_MON_DOMAIN_IO && r->number == ZVS_MON_REC_D6R21)
        rc = encode_d6r21(&r->u.vsw, version, len, buf);
    else if (r->domain == ZVS_MON_DOMAIN_IO)
        rc = encode_d6r2x(&r->u.vswev, r->number == ZVS_MON_REC_D6R22, version, buf);
    else if (r->number == ZVS_MON_REC_D8R1)
        rc = encode_d8r1(&r->u.vnic, d8r1_layout(version, len), len, buf);
    else
        rc = encode_d8r23(&r->u.link, buf);
    if (rc < 0)
        memset(buf, 0, len);            /* never leave half a record behind */
    return rc;
}

int zvs_mon_encode(const struct zvs_mon_record *r, uint8_t *buf, size_t cap)
{
    return zvs_mon_encode_version(r, ZVS_MON_FORMAT_CURRENT, buf, cap);
}

/* ---- decode ----------------------------------------------------------------------- */

/* 20-79, IBM's names (MRIODVSW): the whole of what a z/VM record gives us. */
static int decode_d6r21_head(const uint8_t *b, struct zvs_mon_vswitch_activity *v)
{
    uint64_t *const pkt[6] = { &v->tx_packets, &v->tx_discards, &v->tx_errors,
                               &v->rx_packets, &v->rx_discards, &v->rx_errors };

    if (zvs_ebcdic_name_get(v->controller, b + IODVSW_VMDUSER) < 0)
        return -EBADMSG;
    v->queuestorage_mb = b[IODVSW_LANFSV];
    if (v->queuestorage_mb < 1 || v->queuestorage_mb > QUEUESTORAGE_MAX)
        return -EBADMSG;
    v->rdev = be_get16(b + IODVSW_RDEVDEV);
    v->iptimeout_ticks = be_get16(b + IODVSW_LANIPTO);
    v->osa_port = b[IODVSW_OSAPORTN];
    v->tx_bytes = be_get64(b + IODVSW_NICTXBYT);
    v->rx_bytes = be_get64(b + IODVSW_NICRXBYT);
    for (int i = 0; i < 6; i++)
        *pkt[i] = be_get32(b + IODVSW_NICTXPKT + 4 * i);
    return 0;
}

static int decode_d6r21(const uint8_t *b, size_t len, unsigned version,
                        struct zvs_mon_vswitch_activity *v)
{
    const uint8_t *t = b + d6r21_tail(version);
    uint64_t *const pkt[6] = { &v->tx_packets, &v->tx_discards, &v->tx_errors,
                               &v->rx_packets, &v->rx_discards, &v->rx_errors };

    if (version == ZVS_MON_FORMAT_IBM)
        return decode_d6r21_head(b, v);
    if (b[IODVSW_RSV27] != 0 || b[IODVSW_RSV31] != 0 || be_get16(t + T_BUCKETS) > 256)
        return -EBADMSG;
    if (decode_d6r21_head(b, v) < 0 ||
        zvs_ebcdic_name_get(v->lan_owner, t + T_LANID_OWNER) < 0 ||
        zvs_ebcdic_name_get(v->lan_name, t + T_LANID_NAME) < 0 ||
        zvs_ebcdic_name_get(v->group, t + T_SWPGROUP) < 0)
        return -EBADMSG;
    v->distributing = t[T_DISTRIB];
    if (v->distributing > 1)
        return -EBADMSG;
    for (int i = 0; i < 6; i++)
        *pkt[i] |= (uint64_t)be_get32(t + T_PKT_HI + 4 * i) << 32;
    memcpy(v->osa_mac, t + T_OSAMAC, 6);
    v->interval_s = be_get16(t + T_SWPINTSC);
    v->markers_tx = be_get32(t + T_VQSMRKCT);
    v->marker_responses_rx = be_get32(t + T_VQSMRPCT);
    v->marker_requests_rx = be_get32(t + T_VQSMRRCT);
    v->marker_timeouts = be_get32(t + T_VQSMTOCT);
    v->lacpdus_tx = be_get32(t + T_VQSLCSCT);
    v->lacpdus_rx = be_get32(t + T_VQSLCRCT);
    v->lacp_state = t[T_LACPSTAT];
    v->buckets = be_get16(t + T_BUCKETS);
    v->group_moves = be_get32(t + T_PGMOVES);
    if (monwrite_version(version) && len == D6R21_LEN_DROPS)
        get_drops(b + D6R21_LEN_V2, &v->ndrops, v->drops);
    return 0;
}

/* In z/VM's own records (ZVS_MON_FORMAT_IBM) the bytes IBM's pages leave reserved or that
 * we could not place are not checked (a later level may use them), D6R23's port group is
 * not read (its offset was not found) and the reason is 0 (IBM's codes are not ours). */
static int decode_d6r2x(const uint8_t *b, bool failure, unsigned version,
                        struct zvs_mon_vswitch_event *v)
{
    bool ibm = version == ZVS_MON_FORMAT_IBM;

    /* Byte 47 is IBM's in both: D6R22's flags (only SWITCHOVER defined), D6R23's LAN type. */
    if (failure ? (b[IODVSF_FLAG1] & ~IODVSF_SWITCHOVER) != 0
                : !lan_type_known(b[IODVSR_LANTYPE], false))
        return -EBADMSG;
    if (!ibm && (failure ? !all_zero(b + IODVSF_RSV66, 2)
                         : (!all_zero(b + IODVSR_RSV70, 2) || !all_zero(b + IODVSR_RSV80, 8))))
        return -EBADMSG;
    if (failure && !ibm && version != ZVS_MON_FORMAT_V1 && !all_zero(b + IODVSF_RSV81, 7))
        return -EBADMSG;
    if (zvs_ebcdic_name_get(v->lan_owner, b + IODVSF_LANOWNER) < 0 ||
        zvs_ebcdic_name_get(v->lan_name, b + IODVSF_LANNAME) < 0 ||
        zvs_ebcdic_name_get(v->controller, b + IODVSF_LANCONT) < 0 ||
        ((failure || !ibm) &&
         zvs_ebcdic_name_get(v->group, b + (failure ? IODVSF_SWPGROUP : IODVSR_SWPGROUP)) < 0))
        return -EBADMSG;
    v->rdev = be_get16(b + IODVSF_RDEV);
    v->osa_port = b[IODVSF_OSAPORT];
    v->switchover = failure && (b[IODVSF_FLAG1] & IODVSF_SWITCHOVER);
    v->lan_type = failure ? 0 : b[IODVSR_LANTYPE];
    v->reason = !failure || ibm ? ZVS_MON_FAIL_NONE
              : b[version == ZVS_MON_FORMAT_V1 ? IODVSF_LANRDD_RSN : IODVSF_RSN_V2];
    if (v->reason > ZVS_MON_FAIL_DETACHED)
        return -EBADMSG;
    return 0;
}

/* Reserved bytes of ours are checked; in IBM's layout also that NICBASE is VDEVDEV (we
 * write one device per NIC). In z/VM's own records neither is (IBM's NICBASE may differ,
 * IBM's reserved bytes a later level may use) and VNDSES_VSWITCH, whose values IBM's
 * page was not read for, is taken as "coupled to a VSWITCH" when nonzero. */
static bool d8r1_ours_ok(const uint8_t *b, const struct d8r1_layout *l)
{
    if (l == &d8r1_ours)
        return b[VNDSES_RSV39] == 0;
    if (!all_zero(b + VNDSES53_RSV22, 2) || !all_zero(b + VNDSES53_RSV61, 3) ||
        !all_zero(b + VNDSES53_RSV186, 2) ||
        be_get16(b + VNDSES53_NICBASE) != be_get16(b + l->vdevdev))
        return false;
    for (int i = 0; i < 8; i++)
        if (!all_zero(b + VNDSES53_DEVTAB + 8 * i + 2, 2))
            return false;
    return true;
}

static int decode_d8r1(const uint8_t *b, size_t len, unsigned version,
                       struct zvs_mon_vnic_activity *v)
{
    const struct d8r1_layout *l = d8r1_layout(version, len);
    bool ibm = version == ZVS_MON_FORMAT_IBM;
    uint64_t cnt[6];

    if (!ibm && !d8r1_ours_ok(b, l))
        return -EBADMSG;
    if (zvs_ebcdic_name_get(v->owner, b + l->owner) < 0 ||
        zvs_ebcdic_name_get(v->lan_owner, b + l->lanid_owner) < 0 ||
        zvs_ebcdic_name_get(v->lan_name, b + l->lanid_name) < 0 ||
        zvs_ebcdic_name_get(v->group, b + l->swpgroup) < 0)
        return -EBADMSG;
    v->vswitch = ibm ? b[l->vswitch] != 0 : b[l->vswitch];
    if (v->vswitch > 1)
        return -EBADMSG;
    v->vdev = be_get16(b + l->vdevdev);
    memcpy(v->mac, b + l->nicmac, 6);
    v->transport = b[l->nictranp];
    v->nic_type = b[l->nictype];
    v->tx_bytes = be_get64(b + l->sestxbyt);
    v->rx_bytes = be_get64(b + l->sesrxbyt);
    for (int i = 0; i < 6; i++)
        cnt[i] = be_get64(b + l->sestxpkt + 8 * i);
    v->tx_packets = cnt[0];
    v->tx_discards = cnt[1];
    v->tx_errors = cnt[2];
    v->rx_packets = cnt[3];
    v->rx_discards = cnt[4];
    v->rx_errors = cnt[5];
    if (!ibm && len == D8R1_LEN_DROPS)
        get_drops(b + D8R1_LEN_53, &v->ndrops, v->drops);
    return 0;
}

/* z/VM 5.3/5.4 records are 56 bytes, with 46-47 reserved and no flags: LAN type 0, no
 * uplink. In ours (60 bytes) 57-59 are reserved and checked. */
static int decode_d8r23(const uint8_t *b, size_t len, bool ibm, struct zvs_mon_vnic_link *v)
{
    bool v61 = len >= D8R2_LEN;         /* MRVNDLSU z/VM 6.1: LANTYPE at 47, FLAGS at 56 */

    if (v61 && (!lan_type_known(b[VNDLS_LANTYPE], true) ||
                (b[VNDLS_FLAGS] & ~VNDLS_UPLINK) != 0))
        return -EBADMSG;
    if (!ibm && !all_zero(b + VNDLS_RSV57, 3))
        return -EBADMSG;
    if (zvs_ebcdic_name_get(v->lan_owner, b + VNDLS_LANOWNER) < 0 ||
        zvs_ebcdic_name_get(v->lan_name, b + VNDLS_LANNAME) < 0 ||
        zvs_ebcdic_name_get(v->nic_owner, b + VNDLS_NICOWNER) < 0)
        return -EBADMSG;
    v->vdev = be_get16(b + VNDLS_NICBASE);
    v->nic_type = b[VNDLS_NICTYPE];
    v->lan_type = v61 ? b[VNDLS_LANTYPE] : 0;
    v->uplink = v61 && (b[VNDLS_FLAGS] & VNDLS_UPLINK);
    return 0;
}

static int decode_d15r1(const uint8_t *b, struct zvs_mon_resolver_activity *v)
{
    uint64_t *const cnt[5] = { &v->lookups, &v->failures, &v->bad_answers, &v->changes,
                               &v->deferred };

    if (!all_zero(b + RESACT_RSV68, 4))
        return -EBADMSG;
    v->watched = be_get32(b + RESACT_WATCHED);
    v->in_flight = be_get32(b + RESACT_INFLIGHT);
    for (int i = 0; i < 5; i++)
        *cnt[i] = be_get64(b + RESACT_LOOKUPS + 8 * i);
    return v->bad_answers > v->failures ? -EBADMSG : 0;
}

/* n slots used, the rest zero; a used slot's reserved byte zero. */
static int get_res_addrs(const uint8_t *p, struct zvs_mon_res_addr *a, unsigned n)
{
    for (unsigned i = 0; i < ZVS_MON_RES_ADDRS; i++) {
        const uint8_t *s = p + RESEV_SLOT * i;
        if (i >= n) {
            if (!all_zero(s, RESEV_SLOT))
                return -EBADMSG;
            continue;
        }
        if (s[1] != 0)
            return -EBADMSG;
        a[i].family = s[0];
        memcpy(a[i].addr, s + 2, 16);
    }
    return 0;
}

static int decode_d15r2(const uint8_t *b, struct zvs_mon_resolver_event *v)
{
    size_t len = b[RESEV_NAMELEN];

    if (!all_zero(b + RESEV_RSV30, 2) || len > ZVS_MON_RES_NAME_MAX ||
        !all_zero(b + RESEV_NAME + len, RESEV_NAME_FIELD - len))
        return -EBADMSG;
    memcpy(v->name, b + RESEV_NAME, len);
    v->name[len] = '\0';
    v->event = b[RESEV_EVENT];
    v->state = b[RESEV_STATE];
    v->last_error = b[RESEV_ERROR];
    v->ttl_s = be_get32(b + RESEV_TTL);
    v->nold = b[RESEV_NOLD];
    v->nnew = b[RESEV_NNEW];
    if (!res_name_ok(v->name, len) || v->nold > ZVS_MON_RES_ADDRS ||
        v->nnew > ZVS_MON_RES_ADDRS ||
        get_res_addrs(b + RESEV_OLD, v->old, v->nold) < 0 ||
        get_res_addrs(b + RESEV_NEW, v->now, v->nnew) < 0 || !res_event_ok(v))
        return -EBADMSG;
    return 0;
}

int zvs_mon_decode_version(const uint8_t *buf, size_t len, unsigned version,
                           struct zvs_mon_record *out)
{
    size_t want;
    int rc;

    memset(out, 0, sizeof(*out));
    if (!version_known(version))
        return -EINVAL;
    if (len < ZVS_MON_HDR_LEN || be_get16(buf + HDR_LEN) != len)
        return -EBADMSG;
    if (be_get16(buf + HDR_ZER) != 0 || buf[HDR_RSV1] != 0 || !all_zero(buf + HDR_RSV2, 4))
        return -EBADMSG;
    out->domain = buf[HDR_DM];
    out->number = be_get16(buf + HDR_RC);
    out->tod = be_get64(buf + HDR_TOD);
    /* Ours: exactly the length of the version. z/VM's: at least the bytes we read (a later
     * level may have lengthened the record). */
    want = version == ZVS_MON_FORMAT_IBM ? ibm_min_len(out->domain, out->number)
                                         : record_len(out->domain, out->number, version);
    if (want == 0)
        return -ENOTSUP;
    if (version == ZVS_MON_FORMAT_IBM ? len < want
        : len != want && !other_len(version, out->domain, out->number, len))
        return -EBADMSG;
    if (out->domain == ZVS_MON_DOMAIN_ZVS)
        rc = out->number == ZVS_MON_REC_D15R1 ? decode_d15r1(buf, &out->u.res)
                                               : decode_d15r2(buf, &out->u.resev);
    else if (out->domain == ZVS_MON_DOMAIN_IO && out->number == ZVS_MON_REC_D6R21)
        rc = decode_d6r21(buf, len, version, &out->u.vsw);
    else if (out->domain == ZVS_MON_DOMAIN_IO)
        rc = decode_d6r2x(buf, out->number == ZVS_MON_REC_D6R22, version, &out->u.vswev);
    else if (out->number == ZVS_MON_REC_D8R1)
        rc = decode_d8r1(buf, len, version, &out->u.vnic);
    else
        rc = decode_d8r23(buf, len, version == ZVS_MON_FORMAT_IBM, &out->u.link);
    return rc;
}

int zvs_mon_decode(const uint8_t *buf, size_t len, struct zvs_mon_record *out)
{
    return zvs_mon_decode_version(buf, len, ZVS_MON_FORMAT_CURRENT, out);
}
