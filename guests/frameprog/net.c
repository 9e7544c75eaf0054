/* The network side: ARP for the program's address, ICMP echo, the UDP echo port, the
 * control port (text commands: STATS, RESET, GEN, STOP) and the UDP generator. IPv4
 * only, untagged Ethernet II, no fragments, no IP options in what it sends. */
#include "fp.h"

#define ETH_ARP 0x0806
#define ETH_IP 0x0800
#define SINK_PORT 9                     /* the generator's source port; counted, not answered */
#define MIN_FRAME 60
#define MAX_FRAME 1514
#define NEIGHBOURS 8

struct fp_counters fp_cnt;

static const uint8_t bcast[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
static uint16_t ip_id;
static uint32_t boot_us;

static struct {
    uint32_t ip;
    uint8_t mac[6];
} neigh[NEIGHBOURS];
static int neigh_next;

static struct {
    int active;
    uint32_t ip, rate, count, sent;
    uint16_t port, size;
    uint8_t mac[6];
    int have_mac;
    uint32_t next_us, interval_us, rem, acc;
    uint32_t arp_due_us;
    int blocked;                        /* the LCS write path is full: wait for it */
} gen;

static uint8_t pattern[MAX_FRAME];

static uint16_t get16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static uint32_t get32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

/* CHECKSUM (CKSM): the 32-bit one's-complement sum of N bytes, in one instruction. */
static uint32_t cksm(uint32_t sum, const void *p, size_t n)
{
    register uint32_t a __asm__("2") = (uint32_t)p;
    register uint32_t l __asm__("3") = n;
    __asm__ volatile("0: cksm %0,%1\n\tjo 0b" : "+d"(sum), "+d"(a), "+d"(l) : : "cc", "memory");
    return sum;
}

static uint16_t fold(uint32_t sum)
{
    sum = (sum >> 16) + (sum & 0xFFFF);
    sum += sum >> 16;
    return (uint16_t)~sum;
}

static uint32_t pseudo(uint32_t src, uint32_t dst, uint8_t proto, uint16_t len)
{
    uint8_t ph[12];
    put32(ph, src);
    put32(ph + 4, dst);
    ph[8] = 0;
    ph[9] = proto;
    put16(ph + 10, len);
    return cksm(0, ph, sizeof ph);
}

static void learn(uint32_t ip, const uint8_t *mac)
{
    if (ip == 0 || (mac[0] & 1))
        return;
    for (int i = 0; i < NEIGHBOURS; i++)
        if (neigh[i].ip == ip) {
            memcpy(neigh[i].mac, mac, 6);
            goto done;
        }
    neigh[neigh_next].ip = ip;
    memcpy(neigh[neigh_next].mac, mac, 6);
    neigh_next = (neigh_next + 1) % NEIGHBOURS;
done:
    if (gen.active && ip == gen.ip) {
        memcpy(gen.mac, mac, 6);
        gen.have_mac = 1;
    }
}

static const uint8_t *lookup(uint32_t ip)
{
    for (int i = 0; i < NEIGHBOURS; i++)
        if (neigh[i].ip == ip)
            return neigh[i].mac;
    return NULL;
}

/* A frame of LEN bytes (padded to the Ethernet minimum) in the next LCS write, with
 * its Ethernet header filled; counted as sent. NULL (and counted) when full. */
static uint8_t *tx(size_t len, const uint8_t *dst, uint16_t type)
{
    size_t n = len < MIN_FRAME ? MIN_FRAME : len;
    uint8_t *f = lcs_tx_frame(n);
    if (!f) {
        fp_cnt.drop_tx_full++;
        return NULL;
    }
    if (n > len)
        memset(f + len, 0, n - len);
    memcpy(f, dst, 6);
    memcpy(f + 6, lcs_mac, 6);
    put16(f + 12, type);
    fp_cnt.frames_out++;
    fp_cnt.bytes_out += n;
    return f;
}

/* An IPv4 packet of L4LEN payload bytes to DST (at MAC DMAC): returns the L4 start. */
static uint8_t *ip_tx(const uint8_t *dmac, uint32_t dst, uint8_t proto, size_t l4len)
{
    uint8_t *f = tx(14 + 20 + l4len, dmac, ETH_IP);
    if (!f)
        return NULL;
    uint8_t *ip = f + 14;
    ip[0] = 0x45;
    ip[1] = 0;
    put16(ip + 2, (uint16_t)(20 + l4len));
    put16(ip + 4, ip_id++);
    put16(ip + 6, 0);
    ip[8] = 64;
    ip[9] = proto;
    put16(ip + 10, 0);
    put32(ip + 12, fp_cfg.ip);
    put32(ip + 16, dst);
    put16(ip + 10, fold(cksm(0, ip, 20)));
    return ip + 20;
}

static void udp_tx(const uint8_t *dmac, uint32_t dst, uint16_t sport, uint16_t dport,
                   const uint8_t *data, size_t len)
{
    uint8_t *u = ip_tx(dmac, dst, 17, 8 + len);
    if (!u)
        return;
    put16(u, sport);
    put16(u + 2, dport);
    put16(u + 4, (uint16_t)(8 + len));
    put16(u + 6, 0);
    memcpy(u + 8, data, len);
    uint16_t c = fold(cksm(pseudo(fp_cfg.ip, dst, 17, (uint16_t)(8 + len)), u, 8 + len));
    put16(u + 6, c ? c : 0xFFFF);
}

static void arp_tx(uint16_t op, const uint8_t *dmac, const uint8_t *tha, uint32_t tpa)
{
    uint8_t *f = tx(14 + 28, dmac, ETH_ARP);
    if (!f)
        return;
    uint8_t *a = f + 14;
    put16(a, 1);
    put16(a + 2, ETH_IP);
    a[4] = 6;
    a[5] = 4;
    put16(a + 6, op);
    memcpy(a + 8, lcs_mac, 6);
    put32(a + 14, fp_cfg.ip);
    memcpy(a + 18, tha, 6);
    put32(a + 24, tpa);
}

static void arp_input(const uint8_t *f, size_t len)
{
    const uint8_t *a = f + 14;
    if (len < 14 + 28 || get16(a) != 1 || get16(a + 2) != ETH_IP || a[4] != 6 || a[5] != 4) {
        fp_cnt.drop_malformed++;
        return;
    }
    uint16_t op = get16(a + 6);
    uint32_t spa = get32(a + 14), tpa = get32(a + 24);
    if (op != 1 && op != 2) {
        fp_cnt.drop_unsupported++;
        return;
    }
    if (tpa != fp_cfg.ip) {
        fp_cnt.drop_not_mine++;
        return;
    }
    learn(spa, a + 8);
    if (op == 1) {
        fp_cnt.arp_req_in++;
        arp_tx(2, a + 8, a + 8, spa);
        fp_cnt.arp_reply_out++;
    } else {
        fp_cnt.arp_reply_in++;
    }
}

static void icmp_input(const uint8_t *f, const uint8_t *ip, const uint8_t *l4, size_t l4len)
{
    if (l4len < 8 || fold(cksm(0, l4, l4len)) != 0) {
        fp_cnt.drop_malformed++;
        return;
    }
    if (l4[0] != 8 || l4[1] != 0) {
        fp_cnt.drop_unsupported++;
        return;
    }
    fp_cnt.icmp_echo_in++;
    uint8_t *r = ip_tx(f + 6, get32(ip + 12), 1, l4len);
    if (!r)
        return;
    memcpy(r, l4, l4len);
    r[0] = 0;                           /* echo reply */
    put16(r + 2, 0);
    put16(r + 2, fold(cksm(0, r, l4len)));
    fp_cnt.icmp_echo_out++;
}

/* The UDP datagram back to where it came from, ports swapped, payload unchanged. */
static void reflect(const uint8_t *f, const uint8_t *ip, const uint8_t *u, size_t ulen)
{
    udp_tx(f + 6, get32(ip + 12), get16(u + 2), get16(u), u + 8, ulen - 8);
}

static int word_is(const char *w, size_t n, const char *lit)
{
    size_t i = 0;
    for (; i < n && lit[i]; i++) {
        char c = w[i];
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 32);
        if (c != lit[i])
            return 0;
    }
    return i == n && lit[i] == 0;
}

static int parse_u32(const char *w, size_t n, uint32_t *v)
{
    uint32_t x = 0;
    if (n == 0 || n > 10)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (w[i] < '0' || w[i] > '9')
            return -1;
        uint32_t d = (uint32_t)(w[i] - '0');
        if (x > (0xFFFFFFFFu - d) / 10)
            return -1;
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

static int parse_ip(const char *w, size_t n, uint32_t *ip)
{
    uint32_t v = 0;
    size_t start = 0;
    int parts = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || w[i] == '.') {
            uint32_t octet;
            if (parse_u32(w + start, i - start, &octet) != 0 || octet > 255 || parts == 4)
                return -1;
            v = (v << 8) | octet;
            parts++;
            start = i + 1;
        }
    }
    if (parts != 4)
        return -1;
    *ip = v;
    return 0;
}

static void stat_line(struct fp_buf *b, const char *name, uint64_t v)
{
    fp_puts(b, name);
    fp_putc(b, ' ');
    fp_putu64(b, v);
    fp_putc(b, '\n');
}

static size_t stats_text(char *out, size_t cap)
{
    struct fp_buf b = { out, 0, cap };
    const struct fp_counters *c = &fp_cnt;
    fp_puts(&b, "ZVFP 1\nmac ");
    fp_putmac(&b, lcs_mac);
    fp_puts(&b, "\nip ");
    fp_putip(&b, fp_cfg.ip);
    fp_puts(&b, "\nlcs ");
    fp_puthex(&b, lcs_devno, 4);
    fp_putc(&b, '\n');
    stat_line(&b, "uptime_ms", fp_udiv(fp_now_us() - boot_us, 1000, NULL));
    stat_line(&b, "gen_active", (uint64_t)gen.active);
    stat_line(&b, "frames_in", c->frames_in);
    stat_line(&b, "bytes_in", c->bytes_in);
    stat_line(&b, "frames_out", c->frames_out);
    stat_line(&b, "bytes_out", c->bytes_out);
    stat_line(&b, "arp_req_in", c->arp_req_in);
    stat_line(&b, "arp_reply_out", c->arp_reply_out);
    stat_line(&b, "arp_req_out", c->arp_req_out);
    stat_line(&b, "arp_reply_in", c->arp_reply_in);
    stat_line(&b, "icmp_echo_in", c->icmp_echo_in);
    stat_line(&b, "icmp_echo_out", c->icmp_echo_out);
    stat_line(&b, "udp_echo_in", c->udp_echo_in);
    stat_line(&b, "udp_echo_out", c->udp_echo_out);
    stat_line(&b, "udp_reflect_in", c->udp_reflect_in);
    stat_line(&b, "udp_reflect_out", c->udp_reflect_out);
    stat_line(&b, "udp_sink_in", c->udp_sink_in);
    stat_line(&b, "ctl_in", c->ctl_in);
    stat_line(&b, "ctl_out", c->ctl_out);
    stat_line(&b, "ctl_bad", c->ctl_bad);
    stat_line(&b, "gen_out", c->gen_out);
    stat_line(&b, "gen_bytes_out", c->gen_bytes_out);
    stat_line(&b, "drops", c->drop_not_mine + c->drop_malformed + c->drop_unsupported + c->drop_tx_full);
    stat_line(&b, "drop_not_mine", c->drop_not_mine);
    stat_line(&b, "drop_malformed", c->drop_malformed);
    stat_line(&b, "drop_unsupported", c->drop_unsupported);
    stat_line(&b, "drop_tx_full", c->drop_tx_full);
    stat_line(&b, "lcs_reads", c->lcs_reads);
    stat_line(&b, "lcs_writes", c->lcs_writes);
    stat_line(&b, "lcs_read_errors", c->lcs_read_errors);
    stat_line(&b, "lcs_write_errors", c->lcs_write_errors);
    return b.len;
}

static void gen_start(uint32_t ip, uint16_t port, uint16_t size, uint32_t rate, uint32_t count,
                      uint32_t delay_us)
{
    memset(&gen, 0, sizeof gen);
    gen.ip = ip;
    gen.port = port;
    gen.size = size;
    gen.rate = rate;
    gen.count = count;
    if (rate)
        gen.interval_us = fp_udiv(1000000, rate, &gen.rem);
    gen.next_us = fp_now_us() + delay_us;
    gen.arp_due_us = gen.next_us;
    const uint8_t *m = lookup(ip);
    if (m) {
        memcpy(gen.mac, m, 6);
        gen.have_mac = 1;
    }
    gen.active = 1;
}

/* One command per datagram, ASCII words separated by blanks, answered to the sender. */
static void control(const uint8_t *f, const uint8_t *ip, const uint8_t *u, size_t ulen)
{
    static char out[1400];
    const char *p = (const char *)(u + 8);
    size_t n = ulen - 8;
    const char *w[7];
    size_t wl[7];
    int nw = 0;
    for (size_t i = 0; i < n && nw < 7;) {
        while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r' || p[i] == 0))
            i++;
        if (i >= n)
            break;
        w[nw] = p + i;
        while (i < n && !(p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r' || p[i] == 0))
            i++;
        wl[nw] = (size_t)(p + i - w[nw]);
        nw++;
    }
    fp_cnt.ctl_in++;
    struct fp_buf b = { out, 0, sizeof out };
    int reset = 0;
    if (nw == 1 && word_is(w[0], wl[0], "STATS")) {
        b.len = stats_text(out, sizeof out);
    } else if (nw == 1 && word_is(w[0], wl[0], "RESET")) {
        fp_puts(&b, "OK\n");
        reset = 1;
    } else if (nw == 1 && word_is(w[0], wl[0], "STOP")) {
        fp_puts(&b, "OK gen_out ");
        fp_putu64(&b, fp_cnt.gen_out);
        fp_putc(&b, '\n');
        gen.active = 0;
    } else if (nw >= 1 && word_is(w[0], wl[0], "GEN")) {
        uint32_t dip, port, size, rate, count;
        if (nw != 6 || parse_ip(w[1], wl[1], &dip) != 0 || parse_u32(w[2], wl[2], &port) != 0 ||
            parse_u32(w[3], wl[3], &size) != 0 || parse_u32(w[4], wl[4], &rate) != 0 ||
            parse_u32(w[5], wl[5], &count) != 0 || dip == 0 || port == 0 || port > 65535 ||
            size < MIN_FRAME || size > MAX_FRAME) {
            fp_puts(&b, "ERR usage: GEN a.b.c.d port size(60-1514) rate(0=max) count(0=endless)\n");
            fp_cnt.ctl_bad++;
        } else {
            /* The sender's MAC is known now: the command came from it. */
            learn(get32(ip + 12), f + 6);
            gen_start(dip, (uint16_t)port, (uint16_t)size, rate, count, 0);
            fp_puts(&b, "OK\n");
        }
    } else {
        fp_puts(&b, "ERR unknown command (STATS RESET GEN STOP)\n");
        fp_cnt.ctl_bad++;
    }
    fp_cnt.ctl_out++;
    udp_tx(f + 6, get32(ip + 12), fp_cfg.ctl_port, get16(u), (const uint8_t *)out, b.len);
    if (reset)
        memset(&fp_cnt, 0, sizeof fp_cnt);
}

static void udp_input(const uint8_t *f, const uint8_t *ip, const uint8_t *u, size_t l4len)
{
    if (l4len < 8) {
        fp_cnt.drop_malformed++;
        return;
    }
    uint16_t ulen = get16(u + 4);
    if (ulen < 8 || ulen > l4len ||
        (get16(u + 6) != 0 &&
         fold(cksm(pseudo(get32(ip + 12), get32(ip + 16), 17, ulen), u, ulen)) != 0)) {
        fp_cnt.drop_malformed++;
        return;
    }
    uint16_t dport = get16(u + 2);
    if (dport == fp_cfg.echo_port) {
        fp_cnt.udp_echo_in++;
        reflect(f, ip, u, ulen);
        fp_cnt.udp_echo_out++;
    } else if (dport == fp_cfg.ctl_port) {
        control(f, ip, u, ulen);
    } else if (dport == SINK_PORT) {
        fp_cnt.udp_sink_in++;
    } else if (fp_cfg.mode == FP_MODE_REFLECT) {
        fp_cnt.udp_reflect_in++;
        reflect(f, ip, u, ulen);
        fp_cnt.udp_reflect_out++;
    } else {
        fp_cnt.drop_unsupported++;
    }
}

static void ip_input(const uint8_t *f, size_t len)
{
    const uint8_t *ip = f + 14;
    size_t iplen = len - 14;
    if (iplen < 20 || (ip[0] >> 4) != 4) {
        fp_cnt.drop_malformed++;
        return;
    }
    size_t ihl = (size_t)(ip[0] & 0xF) * 4;
    size_t tot = get16(ip + 2);
    if (ihl < 20 || ihl > iplen || tot < ihl || tot > iplen || fold(cksm(0, ip, ihl)) != 0) {
        fp_cnt.drop_malformed++;
        return;
    }
    if (get32(ip + 16) != fp_cfg.ip) {
        fp_cnt.drop_not_mine++;
        return;
    }
    if (get16(ip + 6) & 0x3FFF) {       /* MF or a fragment offset */
        fp_cnt.drop_unsupported++;
        return;
    }
    learn(get32(ip + 12), f + 6);
    if (ip[9] == 1)
        icmp_input(f, ip, ip + ihl, tot - ihl);
    else if (ip[9] == 17)
        udp_input(f, ip, ip + ihl, tot - ihl);
    else
        fp_cnt.drop_unsupported++;
}

void net_input(const uint8_t *f, size_t len)
{
    fp_cnt.frames_in++;
    fp_cnt.bytes_in += len;
    if (len < 14) {
        fp_cnt.drop_malformed++;
        return;
    }
    if (memcmp(f, lcs_mac, 6) != 0 && memcmp(f, bcast, 6) != 0) {
        fp_cnt.drop_not_mine++;
        return;
    }
    uint16_t type = get16(f + 12);
    if (type == ETH_ARP)
        arp_input(f, len);
    else if (type == ETH_IP)
        ip_input(f, len);
    else
        fp_cnt.drop_unsupported++;
}

void net_init(void)
{
    boot_us = fp_now_us();
    for (size_t i = 0; i < sizeof pattern; i++)
        pattern[i] = (uint8_t)i;
    if (fp_cfg.mode == FP_MODE_GENERATE)
        /* A pause first: the tap flaps at STARTLAN and early frames can be lost. */
        gen_start(fp_cfg.gen_ip, fp_cfg.gen_port, fp_cfg.gen_size, fp_cfg.gen_rate,
                  fp_cfg.gen_count, 500000);
}

/* One generated frame: sequence number, TOD clock, then a byte pattern. */
static int gen_one(void)
{
    size_t ulen = (size_t)gen.size - 14 - 20;
    if (!lcs_tx_room(gen.size))
        return 0;
    uint8_t *u = ip_tx(gen.mac, gen.ip, 17, ulen);
    if (!u)
        return 0;
    put16(u, SINK_PORT);
    put16(u + 2, gen.port);
    put16(u + 4, (uint16_t)ulen);
    put16(u + 6, 0);
    put32(u + 8, gen.sent);
    uint64_t t = fp_tod();
    memcpy(u + 12, &t, 8);
    memcpy(u + 20, pattern + 20, ulen - 20);
    uint16_t c = fold(cksm(pseudo(fp_cfg.ip, gen.ip, 17, (uint16_t)ulen), u, ulen));
    put16(u + 6, c ? c : 0xFFFF);
    gen.sent++;
    fp_cnt.gen_out++;
    fp_cnt.gen_bytes_out += gen.size;
    return 1;
}

int net_poll(void)
{
    if (!gen.active)
        return 0;
    uint32_t now = fp_now_us();
    if ((int32_t)(now - gen.next_us) < 0)
        return 0;
    if (!gen.have_mac) {
        if ((int32_t)(now - gen.arp_due_us) >= 0) {
            arp_tx(1, bcast, (const uint8_t[6]){ 0 }, gen.ip);
            fp_cnt.arp_req_out++;
            gen.arp_due_us = now + 1000000;
            return 1;
        }
        return 0;
    }
    int sent = 0;
    gen.blocked = 0;
    while (gen.active && (int32_t)(now - gen.next_us) >= 0) {
        if (!gen_one()) {
            gen.blocked = 1;
            break;
        }
        sent = 1;
        if (gen.count && gen.sent >= gen.count)
            gen.active = 0;
        if (gen.rate) {
            gen.next_us += gen.interval_us;
            gen.acc += gen.rem;
            if (gen.acc >= gen.rate) {
                gen.acc -= gen.rate;
                gen.next_us++;
            }
            /* More than a second behind (a stalled emulator, or a rate beyond the LCS path):
             * start afresh rather than burst to catch up. */
            if ((int32_t)(now - gen.next_us) > 1000000)
                gen.next_us = now;
        }
    }
    return sent;
}

uint32_t net_next_deadline_us(int *has)
{
    *has = 0;
    if (!gen.active || gen.blocked)
        return 0;
    *has = 1;
    if (!gen.have_mac)
        return gen.arp_due_us;
    return gen.next_us;
}
