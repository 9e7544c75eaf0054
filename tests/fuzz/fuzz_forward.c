/* libFuzzer target for the switch's ingress and forwarding path (dataplane/forward.c with
 * switch.c, vlan.c, mac_table.c, vnet.c, frame.c) fed hostile frames.
 *
 * The switch: VLAN AWARE with NATIVE 1 (or UNAWARE), a primary and a backup uplink, guest
 * A (PORTTYPE ACCESS, VLAN 10, MAC 02:00:0C:00:01:01) and guest B (TRUNK, VLANs 1 10 20-30,
 * MAC 02:00:0C:00:01:02), a small MAC table (32 entries) so learning can run full. Ports
 * are a minimal backend in this file that writes every frame to scratch memory (so every
 * byte it is told to send is read) and records nothing else. Both switches are made once;
 * per input the learned MACs, counters and knobs are reset.
 *
 * Input:
 *   byte 0   bits 0-1 ingress port (0 uplink, 1 guest A, 2 guest B, 3 backup uplink);
 *            bit 2 ISOLATION ON; bit 3 MACPROTECT on A; bit 4 primary uplink carrier off;
 *            bit 5 VLAN UNAWARE switch; bit 6 guest B without CSUM/GSO offload;
 *            bit 7 uplinks without offload and MTU 1400
 *   byte 1   bit 0 frames carry offload metadata; bit 1 frames are scattered (a cut byte
 *            per frame); bits 2-3 refusals (0 none, 1 B refuses all, 2 the uplink takes
 *            one frame per call, 3 A takes two); bit 4 each frame names its ingress port
 *            (a port byte; a change of port starts a new burst); bits 5-6 MTU of A
 *            (1500, 576, 9000, 68); bit 7 B's largest super-frame 4000
 *   frames   length(2, big-endian), [port(1)], [vnet(10): flags, gso_type, hdr_len(2),
 *            gso_size(2), csum_start(2), csum_offset(2)], [cut(1)], then the bytes (cut to
 *            what is left). Every frame is an exactly sized heap copy (or up to three
 *            pieces), so ASan sees any read past it.
 *
 * Invariants, per burst: no frame is written twice to a port or back to its ingress,
 * nothing goes uplink to uplink, nor guest to guest under ISOLATION; runts, group source
 * MACs and Slow Protocols frames are never forwarded; MACPROTECT holds; a unicast reaches a
 * guest only for a MAC the guest owns or was learned from; VLAN: a frame leaves an access
 * port untagged on its VLAN, a trunk or the uplink tagged with its VID (untagged on the
 * native VID), a trunk only on granted VIDs, and an UNAWARE switch never edits tags; what
 * a port is given fits its MTU and offload capabilities; out_packets on every egress equal
 * the wire frames (dataplane/wire.h: a super-frame is its segments) its backend accepted,
 * in_packets are at most the burst's wire frames, and the frames written as they came
 * (not segmented into scratch by the offload fix-up) never exceed frames in x (ports - 1).
 *
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 -I. -fsanitize=fuzzer,address,undefined \
 *         tests/fuzz/fuzz_forward.c dataplane/{switch,forward,vlan,mac_table,vnet,frame,port,wire}.c \
 *         -o build/fuzz/fuzz_forward
 *   build/fuzz/fuzz_forward -max_total_time=60 work/ tests/fuzz/corpus/forward
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/mac_table.h"
#include "dataplane/switch.h"
#include "dataplane/wire.h"
#include "fuzz_common.h"

/* TRACE (-DFUZZ_TRACE) prints every burst and write. */

enum { P_UP, P_A, P_B, P_UP2, NPORTS };

#define MAX_FRAMES  256                 /* frames per input */
#define MAX_BURST   64
#define MAX_LEARN   64                  /* source MACs remembered per port per input */
#define NATIVE      1
#define VID_A       10

static const uint8_t MAC_A[6] = { 0x02, 0x00, 0x0C, 0x00, 0x01, 0x01 };
static const uint8_t MAC_B[6] = { 0x02, 0x00, 0x0C, 0x00, 0x01, 0x02 };
static const uint8_t SLOW_DST[6] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x02 };

struct fport {
    struct zvs_port port;               /* first: the switch sees this */
    int             id;                 /* P_* */
    int             accept;             /* frames taken per tx call; -1: all */
    uint64_t        taken;              /* frames accepted in this burst */
    uint64_t        taken_wire;         /* ... as wire frames (what out_packets counts) */
    uint64_t        direct;             /* ... of them the burst's own descriptors */
    uint64_t        fixup;              /* ... of them made by the offload fix-up */
};

struct sw {
    struct zvs_switch *sw;
    struct fport      *p[NPORTS];
    bool               aware;
};

/* The burst being forwarded, for the checks in tx. */
struct burst {
    struct sw        *s;
    int               in;               /* ingress P_* */
    struct zvs_frame *frames;
    int               n;
    uint8_t           sent[MAX_BURST][NPORTS];
    bool              isolation;
    bool              macprotect_a;
    uint8_t           learned[NPORTS][MAX_LEARN][6];
    int               nlearned[NPORTS];
};

static struct burst B;
static uint8_t scratch[65536 + 256];

static bool is_guest(int id)
{
    return id == P_A || id == P_B;
}

static bool owns_mac(int id, const uint8_t *mac)
{
    if ((id == P_A && memcmp(mac, MAC_A, 6) == 0) || (id == P_B && memcmp(mac, MAC_B, 6) == 0))
        return true;
    for (int i = 0; i < B.nlearned[id]; i++)
        if (memcmp(B.learned[id][i], mac, 6) == 0)
            return true;
    return B.nlearned[id] == MAX_LEARN;     /* forgot some: cannot tell */
}

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static void check_vlan(const struct fport *fp, const struct zvs_frame *f, enum zvs_tag_op op,
                       const uint8_t *out, uint32_t len)
{
    bool tagged_out = len >= 18 && be16(out + 12) == 0x8100;

    if (!B.s->aware) {
        CHECK(op == ZVS_TAG_KEEP);
        return;
    }
    CHECK(f->vid >= 1 && f->vid <= ZVS_VID_MAX);
    CHECK(len < 14 || be16(out + 12) != 0x88A8);
    if (fp->id == P_A) {
        CHECK(f->vid == VID_A && !tagged_out);
        CHECK(len < 14 || be16(out + 12) != 0x8100);
        return;
    }
    if (fp->id == P_B)
        CHECK(f->vid == 1 || f->vid == 10 || (f->vid >= 20 && f->vid <= 30));
    if (f->vid == NATIVE) {
        CHECK(len < 14 || be16(out + 12) != 0x8100);
    } else {
        CHECK(tagged_out);
        CHECK((be16(out + 14) & 0x0FFF) == f->vid);
        CHECK(out[14] >> 5 == f->pcp);
        CHECK(be16(out + 16) != 0x8100 && be16(out + 16) != 0x88A8);
    }
}

/* A frame the burst handed in, written as it came. */
static void check_direct(struct fport *fp, const struct zvs_tx *t, int i)
{
    const struct zvs_frame *f = t->f;
    const struct zvs_port *p = &fp->port;
    enum zvs_tag_op op = (enum zvs_tag_op)t->tag_op;
    uint8_t head[18];

    CHECK(fp->id != B.in);
    CHECK(B.sent[i][fp->id]++ == 0);
    CHECK(is_guest(fp->id) || is_guest(B.in));
    if (B.isolation && is_guest(B.in))
        CHECK(!is_guest(fp->id));
    CHECK(f->len >= 14 && f->in_port == B.s->p[B.in]->port.index);
    CHECK(!f->nfrags || f->frags[0].iov_len >= 18);
    uint32_t hl = zvs_frame_peek(f, head, sizeof(head));
    CHECK(!(head[6] & 1));                              /* group source MAC */
    CHECK(be16(head + 12) != 0x8809 && memcmp(head, SLOW_DST, 6) != 0);
    if (B.in == P_A && B.macprotect_a)
        CHECK(memcmp(head + 6, MAC_A, 6) == 0);
    if (is_guest(fp->id) && !(head[0] & 1))
        CHECK(owns_mac(fp->id, head));
    bool tagged = hl >= 18 && be16(head + 12) == 0x8100;
    if (op == ZVS_TAG_STRIP || op == ZVS_TAG_REWRITE)
        CHECK(tagged);
    if (op == ZVS_TAG_PUSH)
        CHECK(!tagged);
    uint32_t out_len = zvs_frame_out_len(f, op);
    bool out_tagged = op == ZVS_TAG_PUSH || op == ZVS_TAG_REWRITE ||
                      (op == ZVS_TAG_KEEP && (f->flags & ZVS_FF_TAGGED));
    if (f->vnet.gso_type != ZVS_VNET_GSO_NONE) {
        CHECK((p->caps & ZVS_CAP_GSO) && out_len <= p->max_gso);
    } else {
        CHECK(out_len <= p->mtu + 14u + (out_tagged ? 4u : 0u));
        if (f->vnet.flags & ZVS_VNET_F_NEEDS_CSUM)
            CHECK(p->caps & ZVS_CAP_CSUM);
    }
    CHECK(out_len <= sizeof(scratch));
    struct zvs_vnet v;
    CHECK(zvs_frame_emit(f, op, t->vid, scratch, &v) == out_len);
    check_vlan(fp, f, op, scratch, out_len);
    fp->direct++;
}

static int fp_tx(struct zvs_port *p, const struct zvs_tx *txs, int n, enum zvs_drop *why)
{
    struct fport *fp = (struct fport *)p;
    int done = 0;

    CHECK(n >= 1 && n <= ZVS_BATCH);
    for (int k = 0; k < n; k++) {
        const struct zvs_tx *t = &txs[k];
        CHECK(t->f != NULL && t->tag_op <= ZVS_TAG_REWRITE);
        uintptr_t a = (uintptr_t)t->f, lo = (uintptr_t)B.frames;
        uintptr_t hi = (uintptr_t)(B.frames + B.n);
        if (fp->accept >= 0 && (int64_t)fp->taken >= fp->accept) {
            *why = ZVS_DROP_NO_BUFFER;
            break;
        }
        if (a >= lo && a < hi) {
            check_direct(fp, t, (int)((a - lo) / sizeof(*B.frames)));
        } else {
            /* A piece the fix-up made: complete, in scratch, written as it is. */
            CHECK(t->tag_op == ZVS_TAG_KEEP && t->f->nfrags == 0 && t->f->len >= 1);
            CHECK(t->f->len <= 65535 + 4);
            CHECK(zvs_frame_emit(t->f, ZVS_TAG_KEEP, 0, scratch, NULL) == t->f->len);
            fp->fixup++;
        }
        fp->taken++;
        uint32_t out_len = zvs_frame_out_len(t->f, (enum zvs_tag_op)t->tag_op);
        fp->taken_wire += zvs_wire_of(t->f, out_len).frames;
        done++;
    }
    TRACE("  tx %s: %d of %d\n", p->name, done, n);
    return done;
}

static int fp_rx(struct zvs_port *p, struct zvs_frame *out, int max) { return 0; }
static void fp_release(struct zvs_port *p, struct zvs_frame *f, int n) {}
static void fp_destroy(struct zvs_port *p) { free(p); }

static const struct zvs_port_ops fp_ops = {
    .kind = "fuzz", .tx = fp_tx, .rx = fp_rx, .rx_release = fp_release, .destroy = fp_destroy,
};

static struct fport *fp_new(const char *name, int id)
{
    struct fport *fp = calloc(1, sizeof(*fp));

    CHECK(fp != NULL);
    snprintf(fp->port.name, sizeof(fp->port.name), "%s", name);
    fp->port.ops = &fp_ops;
    fp->id = id;
    return fp;
}

static void on_slow(void *arg, struct zvs_port *port, const struct zvs_frame *f, uint64_t now)
{
    uint8_t head[14];

    CHECK(arg == &B);
    CHECK(port == &B.s->p[B.in]->port && !is_guest(B.in));
    CHECK(f->len >= 14);
    zvs_frame_peek(f, head, sizeof(head));
    CHECK(be16(head + 12) == 0x8809 || memcmp(head, SLOW_DST, 6) == 0);
}

static struct zvs_guest guest(const char *owner, const uint8_t *mac, enum zvs_vlan_porttype pt)
{
    struct zvs_guest g = { .vdev = 0xF000 };

    snprintf(g.owner, sizeof(g.owner), "%s", owner);
    memcpy(g.mac, mac, 6);
    zvs_vlan_port_init(&g.vlan, pt, pt == ZVS_VLAN_ACCESS ? VID_A : 0);
    if (pt == ZVS_VLAN_TRUNK)
        CHECK(zvs_vlan_parse_set("1 10 20-30", &g.vlan) == 0);
    return g;
}

static struct sw *sw_get(bool aware)
{
    static struct sw sws[2];
    struct sw *s = &sws[aware];

    if (s->sw)
        return s;
    struct zvs_switch_params prm = { .name = "FUZZVSW", .mac_capacity = 32,
                                     .vlan = { .aware = aware, .native_vid = NATIVE } };
    s->aware = aware;
    s->sw = zvs_switch_create(&prm);
    CHECK(s->sw != NULL);
    s->p[P_UP] = fp_new("28BA", P_UP);
    s->p[P_UP2] = fp_new("2902", P_UP2);
    s->p[P_A] = fp_new("LNXA.F000", P_A);
    s->p[P_B] = fp_new("LNXB.F000", P_B);
    CHECK(zvs_switch_add_uplink(s->sw, &s->p[P_UP]->port) == 0);
    CHECK(zvs_switch_add_uplink(s->sw, &s->p[P_UP2]->port) == 0);
    struct zvs_guest ga = guest("LNXA", MAC_A, ZVS_VLAN_ACCESS);
    struct zvs_guest gb = guest("LNXB", MAC_B, ZVS_VLAN_TRUNK);
    CHECK(zvs_switch_add_guest(s->sw, &s->p[P_A]->port, &ga) == 0);
    CHECK(zvs_switch_add_guest(s->sw, &s->p[P_B]->port, &gb) == 0);
    zvs_switch_set_slow_handler(s->sw, on_slow, &B);
    return s;
}

static void sw_reset(struct sw *s, uint8_t cfg, uint8_t fl)
{
    struct zvs_mac_table *t = zvs_switch_mac_table(s->sw);
    static const uint32_t mtus[4] = { 1500, 576, 9000, 68 };

    for (int i = 0; i < NPORTS; i++) {
        struct fport *fp = s->p[i];
        zvs_mac_table_remove_learned_port(t, fp->port.index);
        memset(&fp->port.ctr, 0, sizeof(fp->port.ctr));
        fp->port.caps = ZVS_CAP_CSUM | ZVS_CAP_GSO;
        fp->port.mtu = 1500;
        fp->port.max_gso = 65535;
        fp->accept = -1;
        zvs_switch_set_carrier(s->sw, &fp->port, true);
    }
    struct zvs_mac_table_stats ms;
    zvs_mac_table_stats(t, &ms);
    CHECK(ms.entries == (s->aware ? 1u + 13u : 2u));    /* A on 10; B on 1 10 20-30 */
    zvs_switch_set_isolation(s->sw, cfg & 4);
    zvs_switch_set_macprotect(s->sw, &s->p[P_A]->port, cfg & 8);
    zvs_switch_set_macprotect(s->sw, &s->p[P_B]->port, false);
    if (cfg & 16)
        zvs_switch_set_carrier(s->sw, &s->p[P_UP]->port, false);
    if (cfg & 64)
        s->p[P_B]->port.caps = 0;
    if (cfg & 128) {
        s->p[P_UP]->port.caps = s->p[P_UP2]->port.caps = 0;
        s->p[P_UP]->port.mtu = s->p[P_UP2]->port.mtu = 1400;
    }
    s->p[P_A]->port.mtu = mtus[(fl >> 5) & 3];
    if (fl & 128)
        s->p[P_B]->port.max_gso = 4000;
    switch ((fl >> 2) & 3) {
    case 1: s->p[P_B]->accept = 0; break;
    case 2: s->p[P_UP]->accept = 1; break;
    case 3: s->p[P_A]->accept = 2; break;
    default: break;
    }
}

/* Frames of one input: storage for the burst descriptors and their bytes. */
struct fr_store {
    struct zvs_frame f[MAX_FRAMES];
    int              port[MAX_FRAMES];
    struct iovec     iov[MAX_FRAMES][3];
    uint8_t         *mem[MAX_FRAMES][3];
    int              n;
};

static struct fr_store S;

static uint16_t rd16(const uint8_t **p, size_t *n)
{
    uint16_t v = 0;
    for (int i = 0; i < 2; i++) {
        v = (uint16_t)(v << 8);
        if (*n) {
            v |= **p;
            (*p)++;
            (*n)--;
        }
    }
    return v;
}

static uint8_t rd8(const uint8_t **p, size_t *n)
{
    if (*n == 0)
        return 0;
    (*n)--;
    return *(*p)++;
}

static void parse_frames(const uint8_t *p, size_t n, uint8_t fl, int in0)
{
    S.n = 0;
    while (n >= 2 && S.n < MAX_FRAMES) {
        struct zvs_frame *f = &S.f[S.n];
        uint32_t len = rd16(&p, &n);
        memset(f, 0, sizeof(*f));
        S.port[S.n] = (fl & 16) ? rd8(&p, &n) % NPORTS : in0;
        if (fl & 1) {
            f->vnet.flags = rd8(&p, &n);
            f->vnet.gso_type = rd8(&p, &n);
            f->vnet.hdr_len = rd16(&p, &n);
            f->vnet.gso_size = rd16(&p, &n);
            f->vnet.csum_start = rd16(&p, &n);
            f->vnet.csum_offset = rd16(&p, &n);
        }
        uint8_t cut = (fl & 2) ? rd8(&p, &n) : 0;
        if (len > n)
            len = (uint32_t)n;
        uint32_t pieces[3] = { len, 0, 0 };
        if (cut && len >= 3) {
            pieces[0] = 1u + cut % (len - 2);           /* any first piece, even a short one */
            pieces[1] = (len - pieces[0]) / 2;
            pieces[2] = len - pieces[0] - pieces[1];
        }
        int np = 0;
        uint32_t off = 0;
        for (int k = 0; k < 3; k++) {
            if (k > 0 && pieces[k] == 0)
                continue;
            uint8_t *m = malloc(pieces[k] ? pieces[k] : 1);
            CHECK(m != NULL);
            memcpy(m, p + off, pieces[k]);
            S.mem[S.n][np] = m;
            S.iov[S.n][np].iov_base = m;
            S.iov[S.n][np].iov_len = pieces[k];
            off += pieces[k];
            np++;
        }
        p += len;
        n -= len;
        f->data = S.mem[S.n][0];
        f->len = len;
        f->nfrags = np > 1 ? (uint16_t)np : 0;
        f->frags = np > 1 ? S.iov[S.n] : NULL;
        S.n++;
    }
}

static void free_frames(void)
{
    for (int i = 0; i < S.n; i++)
        for (int k = 0; k < 3; k++) {
            free(S.mem[i][k]);
            S.mem[i][k] = NULL;
        }
    S.n = 0;
}

/* Remember source MACs that a guest may have taught the MAC table (before the burst). */
static void note_sources(int in, const struct zvs_frame *f, int n)
{
    if (!is_guest(in))
        return;
    for (int i = 0; i < n; i++) {
        uint8_t head[12];
        if (zvs_frame_peek(&f[i], head, sizeof(head)) < 12)
            continue;
        if (B.nlearned[in] < MAX_LEARN && !owns_mac(in, head + 6))
            memcpy(B.learned[in][B.nlearned[in]++], head + 6, 6);
    }
}

static void run_burst(struct sw *s, int in, struct zvs_frame *f, int n, uint64_t now)
{
    struct zvs_port_counters before[NPORTS];
    struct zvs_switch_stats st0, st1;

    B.in = in;
    B.frames = f;
    B.n = n;
    memset(B.sent, 0, sizeof(B.sent));
    note_sources(in, f, n);
    for (int i = 0; i < NPORTS; i++) {
        before[i] = s->p[i]->port.ctr;
        s->p[i]->taken = s->p[i]->taken_wire = s->p[i]->direct = s->p[i]->fixup = 0;
    }
    zvs_switch_stats(s->sw, &st0);
    TRACE("burst from %d: %d frames\n", in, n);
    zvs_switch_input(s->sw, &s->p[in]->port, f, n, now);
    zvs_switch_stats(s->sw, &st1);
    CHECK(st1.frames - st0.frames == (uint64_t)n && st1.bursts - st0.bursts == 1);
    uint64_t direct = 0;
    for (int i = 0; i < NPORTS; i++) {
        const struct fport *fp = s->p[i];
        uint64_t out = fp->port.ctr.out_packets - before[i].out_packets;
        TRACE("  port %d: out %llu (direct %llu, fix-up %llu), discards %llu\n", i,
              (unsigned long long)out, (unsigned long long)fp->direct,
              (unsigned long long)fp->fixup,
              (unsigned long long)(fp->port.ctr.out_discards - before[i].out_discards));
        CHECK(out == fp->taken_wire && fp->taken == fp->direct + fp->fixup);
        direct += fp->direct;
        if (i == in)
            CHECK(fp->direct == 0);
    }
    CHECK(direct <= (uint64_t)n * (NPORTS - 1));
    uint64_t wire_in = 0;
    for (int i = 0; i < n; i++)
        wire_in += zvs_wire_of(&f[i], f[i].len).frames;
    CHECK(s->p[in]->port.ctr.in_packets - before[in].in_packets <= wire_in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size > 65536 * 4)
        return 0;
    uint8_t cfg = data[0], fl = data[1];
    struct sw *s = sw_get(!(cfg & 32));

    sw_reset(s, cfg, fl);
    memset(&B, 0, sizeof(B));
    B.s = s;
    B.isolation = cfg & 4;
    B.macprotect_a = cfg & 8;
    parse_frames(data + 2, size - 2, fl, cfg & 3);

    uint64_t now = 1000000000ull;
    for (int i = 0; i < S.n; ) {
        int j = i;
        while (j < S.n && j - i < MAX_BURST && S.port[j] == S.port[i])
            j++;
        run_burst(s, S.port[i], &S.f[i], j - i, now);
        now += 1000000000ull;
        zvs_switch_run(s->sw, now);
        i = j;
    }
    free_frames();
    return 0;
}
