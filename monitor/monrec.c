/* Monitor record codec: struct zvs_mon_record <-> the bytes of one z/VM-shaped record.
 *
 * Owns: the byte layout of D6R21, D6R22/23, D8R1, D8R2/3 in both layout versions
 * (monitor/RECORDS.md is the table; the offsets below are the same numbers).
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

/* D8R1 MRVNDSES (128, ours) */
#define D8R1_LEN            128
#define VNDSES_OWNER        20
#define VNDSES_VDEVDEV      28
#define VNDSES_NICMAC       30
#define VNDSES_NICTRANP     36
#define VNDSES_NICTYPE      37
#define VNDSES_VSWITCH      38
#define VNDSES_RSV39        39
#define VNDSES_LANID_OWNER  40
#define VNDSES_LANID_NAME   48
#define VNDSES_SESTXBYT     56
#define VNDSES_SESRXBYT     64
#define VNDSES_SESTXPKT     72          /* TXPKT, TXDSC, TXERR, RXPKT, RXDSC, RXERR: 8 each */
#define VNDSES_SWPGROUP     120

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

#define QUEUESTORAGE_MAX    8

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            return false;
    return true;
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
           version == ZVS_MON_FORMAT_V3 || version == ZVS_MON_FORMAT_IBM;
}

/* z/VM's own records (ZVS_MON_FORMAT_IBM): the bytes we read must be there; a longer record
 * (a later level's) is read the same. D6R21: 20-79 (MRIODVSW is 132 bytes at z/VM 4.4 and
 * longer since); D6R22: MRIODVSF's 80; D6R23: MRIODVSR to its LAN type (47); D8R2/3:
 * MRVNDLSU/MRVNDLSD's 56 bytes of z/VM 5.3/5.4. D8R1: IBM's layout not found, 0: skipped. */
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
    if (domain == ZVS_MON_DOMAIN_NET) {
        switch (number) {
        case ZVS_MON_REC_D8R1: return D8R1_LEN;
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
    }
    return "unknown";
}

bool zvs_mon_is_sample(uint8_t domain, uint16_t number)
{
    return (domain == ZVS_MON_DOMAIN_IO && number == ZVS_MON_REC_D6R21) ||
           (domain == ZVS_MON_DOMAIN_NET && number == ZVS_MON_REC_D8R1);
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
                        uint8_t *b)
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
    return (int)(version == ZVS_MON_FORMAT_V1 ? D6R21_LEN_V1 : D6R21_LEN_V2);
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

static int encode_d8r1(const struct zvs_mon_vnic_activity *v, uint8_t *b)
{
    const uint64_t cnt[6] = { v->tx_packets, v->tx_discards, v->tx_errors,
                              v->rx_packets, v->rx_discards, v->rx_errors };

    if (v->vswitch > 1)
        return -EINVAL;
    if (put_name(b + VNDSES_OWNER, v->owner) < 0 ||
        put_name(b + VNDSES_LANID_OWNER, v->lan_owner) < 0 ||
        put_name(b + VNDSES_LANID_NAME, v->lan_name) < 0 ||
        put_name(b + VNDSES_SWPGROUP, v->group) < 0)
        return -EINVAL;
    be_put16(b + VNDSES_VDEVDEV, v->vdev);
    memcpy(b + VNDSES_NICMAC, v->mac, 6);
    b[VNDSES_NICTRANP] = v->transport;
    b[VNDSES_NICTYPE] = v->nic_type;
    b[VNDSES_VSWITCH] = v->vswitch;
    be_put64(b + VNDSES_SESTXBYT, v->tx_bytes);
    be_put64(b + VNDSES_SESRXBYT, v->rx_bytes);
    for (int i = 0; i < 6; i++)
        be_put64(b + VNDSES_SESTXPKT + 8 * i, cnt[i]);
    return D8R1_LEN;
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

int zvs_mon_encode_version(const struct zvs_mon_record *r, unsigned version, uint8_t *buf,
                           size_t cap)
{
    size_t len = version_known(version) && version != ZVS_MON_FORMAT_IBM
                 ? record_len(r->domain, r->number, version) : 0;
    int rc;

    if (len == 0 || cap < len)
        return -EINVAL;
    memset(buf, 0, len);
    be_put16(buf + HDR_LEN, (uint16_t)len);
    buf[HDR_DM] = r->domain;
    be_put16(buf + HDR_RC, r->number);
    be_put64(buf + HDR_TOD, r->tod);
    if (r->domain == ZVS_MON_DOMAIN_IO && r->number == ZVS_MON_REC_D6R21)
        rc = encode_d6r21(&r->u.vsw, version, buf);
    else if (r->domain == ZVS_MON_DOMAIN_IO)
        rc = encode_d6r2x(&r->u.vswev, r->number == ZVS_MON_REC_D6R22, version, buf);
    else if (r->number == ZVS_MON_REC_D8R1)
        rc = encode_d8r1(&r->u.vnic, buf);
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

static int decode_d6r21(const uint8_t *b, unsigned version,
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

static int decode_d8r1(const uint8_t *b, struct zvs_mon_vnic_activity *v)
{
    uint64_t cnt[6];

    if (b[VNDSES_RSV39] != 0)
        return -EBADMSG;
    if (zvs_ebcdic_name_get(v->owner, b + VNDSES_OWNER) < 0 ||
        zvs_ebcdic_name_get(v->lan_owner, b + VNDSES_LANID_OWNER) < 0 ||
        zvs_ebcdic_name_get(v->lan_name, b + VNDSES_LANID_NAME) < 0 ||
        zvs_ebcdic_name_get(v->group, b + VNDSES_SWPGROUP) < 0)
        return -EBADMSG;
    v->vswitch = b[VNDSES_VSWITCH];
    if (v->vswitch > 1)
        return -EBADMSG;
    v->vdev = be_get16(b + VNDSES_VDEVDEV);
    memcpy(v->mac, b + VNDSES_NICMAC, 6);
    v->transport = b[VNDSES_NICTRANP];
    v->nic_type = b[VNDSES_NICTYPE];
    v->tx_bytes = be_get64(b + VNDSES_SESTXBYT);
    v->rx_bytes = be_get64(b + VNDSES_SESRXBYT);
    for (int i = 0; i < 6; i++)
        cnt[i] = be_get64(b + VNDSES_SESTXPKT + 8 * i);
    v->tx_packets = cnt[0];
    v->tx_discards = cnt[1];
    v->tx_errors = cnt[2];
    v->rx_packets = cnt[3];
    v->rx_discards = cnt[4];
    v->rx_errors = cnt[5];
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
    if (version == ZVS_MON_FORMAT_IBM ? len < want : len != want)
        return -EBADMSG;
    if (out->domain == ZVS_MON_DOMAIN_IO && out->number == ZVS_MON_REC_D6R21)
        rc = decode_d6r21(buf, version, &out->u.vsw);
    else if (out->domain == ZVS_MON_DOMAIN_IO)
        rc = decode_d6r2x(buf, out->number == ZVS_MON_REC_D6R22, version, &out->u.vswev);
    else if (out->number == ZVS_MON_REC_D8R1)
        rc = decode_d8r1(buf, &out->u.vnic);
    else
        rc = decode_d8r23(buf, len, version == ZVS_MON_FORMAT_IBM, &out->u.link);
    return rc;
}

int zvs_mon_decode(const uint8_t *buf, size_t len, struct zvs_mon_record *out)
{
    return zvs_mon_decode_version(buf, len, ZVS_MON_FORMAT_CURRENT, out);
}
