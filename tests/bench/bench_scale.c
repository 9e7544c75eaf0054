/* Scale benchmark: forwarding between many coupled guests over a full MAC table, in one
 * process, on one core (no kernel I/O, as bench_core.c).
 *
 * Design note.
 * - The set-up: one VSWITCH (VLAN UNAWARE), --guests QDIO NICs at QUEUESTORAGE 1M, each
 *   driven by the guest library in this process, without MACPROTECT, so that besides its
 *   assigned MAC (a STATIC entry) every guest sends from extra source MACs the switch
 *   learns: --macs entries in all (default 65,000 of the table's 65,536), spread evenly
 *   over the guests (1,000 guests: 65 each; 3 guests: 21,666 each). Before the measured
 *   loop every address has been learned; the table's counters must then show exactly
 *   --macs entries and nothing refused (a full table would drop frames from new sources
 *   and count them under `mac-table-full`: that would be a broken benchmark, exit 1).
 * - The traffic: in turn, each guest sends ZVS_BATCH frames of 64 bytes, each to a
 *   destination drawn at random (xorshift, fixed seed) from every address of the other
 *   guests and from a random source address of its own, so the per-burst memo and the
 *   caches help no more than they would with that many stations. The switch polls the
 *   sender's output queue (zvs_switch_poll, as vswitchd's event loop does for a port with
 *   work) and every guest that was sent something drains its input queue at once (so no
 *   input queue ever fills: each receives at most one buffer per burst).
 * - Figures: the switch's forwarding rate is frames over the time spent in
 *   zvs_switch_poll alone (the guests' own work is another program's in a deployment);
 *   the whole loop's rate is printed beside it. --rounds measurements of --frames frames
 *   each, median and spread. --callgrind counts instructions instead (between
 *   CALLGRIND_START/STOP; the caller divides by BENCH_FRAMES and takes zvs_switch_poll's
 *   inclusive share as the switch side, as tests/bench/README.md defines it).
 * - Every frame sent must arrive once, with nothing discarded anywhere (exit 1 otherwise).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dataplane/mac_table.h"
#include "dataplane/switch.h"
#include "qdio/nic_qdio.h"
#include "qdio/qdio_guest.h"

#include "tests/bench/bench_callgrind.h"

#define SCALE_FRAME_LEN   64u
#define SCALE_MACS        65000u        /* table entries in use (capacity 65,536) */
#define SCALE_MAX_ROUNDS  15

struct guest {
    struct zvs_port       *nic;
    struct zvs_qdio_guest *g;
    uint32_t               first;       /* its learned addresses: entries first.. */
    uint32_t               count;       /* ..first + count - 1 */
    bool                   touched;     /* sent something since its last drain */
};

struct scale {
    struct zvs_switch *sw;
    struct guest      *gs;
    uint32_t           n;               /* guests */
    uint32_t           nmacs;           /* addresses: n assigned, then the learned ones */
    uint16_t          *owner;           /* guest of each address */
    uint64_t           rng;
    uint64_t           now;
    uint64_t           sent;
    uint64_t           received;
    uint64_t           switch_ns;       /* time inside zvs_switch_poll */
    uint16_t           touched[ZVS_BATCH];
    uint32_t           ntouched;
    uint8_t            frames[ZVS_BATCH][SCALE_FRAME_LEN];
    struct zvs_qdio_pkt pkts[ZVS_BATCH];
};

struct opts {
    uint32_t guests;
    uint32_t macs;
    long     frames;
    int      rounds;
    bool     callgrind;
    bool     flow;                      /* a burst's frames to one guest */
};

/* Address e: the assigned MAC of guest e (e < n, MACPREFIX 02000C), else a learned one
 * (02000D, never assigned). */
static void mac_of(const struct scale *s, uint32_t e, uint8_t mac[6])
{
    bool assigned = e < s->n;

    mac[0] = 0x02;
    mac[1] = 0x00;
    mac[2] = assigned ? 0x0C : 0x0D;
    mac[3] = (uint8_t)(e >> 16);
    mac[4] = (uint8_t)(e >> 8);
    mac[5] = (uint8_t)e;
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static double secs_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_rx(void *arg, const struct zvs_qdio_rx *rx)
{
    (void)rx;
    ((struct scale *)arg)->received++;
}

static void drain_touched(struct scale *s)
{
    for (uint32_t i = 0; i < s->ntouched; i++) {
        struct guest *d = &s->gs[s->touched[i]];
        while (zvs_qdio_guest_receive(d->g, 1024, on_rx, s) > 0)
            ;
        d->touched = false;
    }
    s->ntouched = 0;
}

static void touch(struct scale *s, uint16_t g)
{
    if (!s->gs[g].touched) {
        s->gs[g].touched = true;
        s->touched[s->ntouched++] = g;
    }
}

/* Guest g sends n frames (src: address srcs[i], dst: address dsts[i]); the switch
 * forwards them; the receivers drain. Returns 0 or -1 when the guest could not send. */
static int burst(struct scale *s, uint16_t g, const uint32_t *srcs, const uint32_t *dsts,
                 int n, bool timed)
{
    for (int i = 0; i < n; i++) {
        mac_of(s, dsts[i], s->frames[i]);
        mac_of(s, srcs[i], s->frames[i] + 6);
        touch(s, s->owner[dsts[i]]);
    }
    if (zvs_qdio_guest_send(s->gs[g].g, s->pkts, n) != n)
        return -1;
    s->sent += (uint64_t)n;
    double t0 = timed ? secs_now() : 0;
    while (zvs_switch_poll(s->sw, s->gs[g].nic, s->now) > 0)
        ;
    if (timed)
        s->switch_ns += (uint64_t)((secs_now() - t0) * 1e9);
    drain_touched(s);
    return 0;
}

static void scale_close(struct scale *s)
{
    for (uint32_t i = 0; s->gs && i < s->n; i++)
        zvs_qdio_guest_detach(s->gs[i].g);
    zvs_switch_destroy(s->sw);
    free(s->gs);
    free(s->owner);
    memset(s, 0, sizeof(*s));
}

static int add_guest(struct scale *s, uint32_t i)
{
    struct zvs_guest gd = { .vdev = 0xF000, .macprotect = false };
    char name[32];
    int err = 0;

    snprintf(gd.owner, sizeof(gd.owner), "U%04u", (unsigned)(i % 10000u));
    snprintf(name, sizeof(name), "%s.F000", gd.owner);
    mac_of(s, i, gd.mac);
    zvs_vlan_port_init(&gd.vlan, ZVS_VLAN_ACCESS, 1);
    struct zvs_port *nic = zvs_nic_qdio_create(name, ZVS_QDIO_QS_MIN, 1500, &err);
    if (!nic)
        return err ? err : -ENOMEM;
    if ((err = zvs_switch_add_guest(s->sw, nic, &gd)) < 0) {
        nic->ops->destroy(nic);
        return err;
    }
    s->gs[i].nic = nic;
    struct zvs_qdio *q = zvs_nic_qdio_queues(nic);
    err = zvs_qdio_guest_attach(zvs_qdio_region(q), zvs_qdio_size(q), -1, -1, &s->gs[i].g);
    if (err < 0)
        return err;
    if ((err = zvs_qdio_guest_init_queues(s->gs[i].g)) < 0)
        return err;
    /* A polled guest, as vswitchd's busy ports: the switch reads the output queue
     * without SIGA-w, the guest reads its input without interrupts. */
    const struct zvs_qdio_shm_hdr *h = zvs_qdio_region(q);
    zvs_qdio_set_ac1(q, __atomic_load_n(&h->ac1, __ATOMIC_ACQUIRE) & ~ZVS_QDIO_AC1_SIGA_OUTPUT);
    return 0;
}

/* Every learned address once from its owner, to the next guest's assigned MAC. */
static int learn_all(struct scale *s)
{
    uint32_t srcs[ZVS_BATCH], dsts[ZVS_BATCH];

    for (uint32_t g = 0; g < s->n; g++) {
        const struct guest *gg = &s->gs[g];
        for (uint32_t k = 0; k < gg->count;) {
            int n = 0;
            for (; n < ZVS_BATCH && k < gg->count; n++, k++) {
                srcs[n] = gg->first + k;
                dsts[n] = (g + 1) % s->n;
            }
            s->now++;
            if (burst(s, (uint16_t)g, srcs, dsts, n, false) < 0)
                return -1;
        }
    }
    return 0;
}

static int scale_open(struct scale *s, const struct opts *o)
{
    struct zvs_switch_params sp = { .name = "SCALEVSW",
                                    .vlan = { .aware = false, .native_vid = 1 } };
    struct zvs_mac_table_stats ms;

    memset(s, 0, sizeof(*s));
    s->n = o->guests;
    s->nmacs = o->macs;
    s->rng = UINT64_C(0x9E3779B97F4A7C15);
    s->sw = zvs_switch_create(&sp);
    s->gs = calloc(s->n, sizeof(*s->gs));
    s->owner = calloc(s->nmacs, sizeof(*s->owner));
    if (!s->sw || !s->gs || !s->owner)
        return -ENOMEM;
    uint32_t learned = s->nmacs - s->n;
    for (uint32_t i = 0; i < s->n; i++) {
        s->owner[i] = (uint16_t)i;
        s->gs[i].first = s->n + learned / s->n * i + (i < learned % s->n ? i : learned % s->n);
        s->gs[i].count = learned / s->n + (i < learned % s->n ? 1 : 0);
        for (uint32_t k = 0; k < s->gs[i].count; k++)
            s->owner[s->gs[i].first + k] = (uint16_t)i;
        int err = add_guest(s, i);
        if (err < 0)
            return err;
    }
    for (int i = 0; i < ZVS_BATCH; i++) {
        memset(s->frames[i], 0, SCALE_FRAME_LEN);
        s->frames[i][12] = 0x88;        /* IEEE 802 Local Experimental EtherType 1 */
        s->frames[i][13] = 0xB5;
        s->pkts[i] = (struct zvs_qdio_pkt){ .data = s->frames[i], .len = SCALE_FRAME_LEN };
    }
    if (learn_all(s) < 0)
        return -EIO;
    zvs_mac_table_stats(zvs_switch_mac_table(s->sw), &ms);
    if (ms.entries != s->nmacs || ms.refused_full != 0) {
        fprintf(stderr, "bench_scale: MAC table holds %u of %u addresses (%llu refused)\n",
                ms.entries, s->nmacs, (unsigned long long)ms.refused_full);
        return -ENOSPC;
    }
    return 0;
}

/* Exactly `frames` frames (a multiple of ZVS_BATCH), guest after guest. flow: all the
 * frames of a burst go to addresses of one guest (drawn at random), so each egress gets
 * a whole burst whatever the number of guests. */
static int pump(struct scale *s, uint64_t frames, bool timed, bool flow)
{
    uint32_t srcs[ZVS_BATCH], dsts[ZVS_BATCH];
    uint64_t done = 0;

    while (done < frames) {
        s->now++;
        for (uint32_t g = 0; g < s->n && done < frames; g++) {
            const struct guest *gg = &s->gs[g];
            uint32_t to;
            do
                to = s->owner[xorshift(&s->rng) % s->nmacs];
            while (to == g);
            for (int i = 0; i < ZVS_BATCH; i++) {
                uint32_t d;
                if (flow)
                    d = s->gs[to].first + (uint32_t)(xorshift(&s->rng) % s->gs[to].count);
                else
                    do
                        d = (uint32_t)(xorshift(&s->rng) % s->nmacs);
                    while (s->owner[d] == g);
                dsts[i] = d;
                srcs[i] = gg->first + (uint32_t)(xorshift(&s->rng) % gg->count);
            }
            if (burst(s, (uint16_t)g, srcs, dsts, ZVS_BATCH, timed) < 0)
                return -1;
            done += ZVS_BATCH;
        }
    }
    return 0;
}

/* Nothing lost, nothing discarded: every frame sent was received once. */
static int check_counts(const struct scale *s)
{
    uint64_t discards = 0;

    for (uint32_t i = 0; i < s->n; i++)
        discards += s->gs[i].nic->ctr.in_discards + s->gs[i].nic->ctr.out_discards +
                    s->gs[i].nic->ctr.in_errors;
    if (s->received != s->sent || discards != 0) {
        fprintf(stderr, "bench_scale: sent %llu, received %llu, %llu discarded\n",
                (unsigned long long)s->sent, (unsigned long long)s->received,
                (unsigned long long)discards);
        return -1;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int run_timed(struct scale *s, const struct opts *o)
{
    double fwd[SCALE_MAX_ROUNDS], loop[SCALE_MAX_ROUNDS];
    uint64_t frames = (uint64_t)o->frames;

    /* Warm-up: a whole round first, so that every page the guests' queues use has been
     * faulted in (at 1,000 guests about 100,000 of them) and a round measures the steady
     * state, not the kernel filling pages. */
    if (pump(s, frames, false, o->flow) < 0)
        return 1;
    for (int r = 0; r < o->rounds; r++) {
        s->switch_ns = 0;
        double t0 = secs_now();
        if (pump(s, frames, true, o->flow) < 0)
            return 1;
        double dt = secs_now() - t0;
        fwd[r] = (double)frames / ((double)s->switch_ns * 1e-9) / 1e6;
        loop[r] = (double)frames / dt / 1e6;
        printf("round %d: %u guests, switch %.3f Mpps, whole loop %.3f Mpps\n", r + 1,
               s->n, fwd[r], loop[r]);
    }
    if (check_counts(s) < 0)
        return 1;
    qsort(fwd, (size_t)o->rounds, sizeof(fwd[0]), cmp_double);
    qsort(loop, (size_t)o->rounds, sizeof(loop[0]), cmp_double);
    double med = fwd[o->rounds / 2];
    printf("SCALE%s guests %u macs %u fwd_mpps %.4f min %.4f max %.4f spread_pct %.1f "
           "loop_mpps %.4f\n", o->flow ? "_FLOW" : "", s->n, s->nmacs, med, fwd[0],
           fwd[o->rounds - 1], (fwd[o->rounds - 1] - fwd[0]) / med * 100,
           loop[o->rounds / 2]);
    return 0;
}

static int run_callgrind(struct scale *s, const struct opts *o)
{
    if (pump(s, 20000, false, o->flow) < 0)
        return 1;
    CALLGRIND_START_INSTRUMENTATION;
    int rc = pump(s, (uint64_t)o->frames, false, o->flow);
    CALLGRIND_STOP_INSTRUMENTATION;
    if (rc < 0 || check_counts(s) < 0)
        return 1;
    printf("BENCH_FRAMES %ld\n", o->frames);
    printf("BENCH_CALLGRIND_MACROS %d\n", HAVE_CALLGRIND_H);
    return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){ .guests = 1000, .macs = SCALE_MACS, .frames = -1, .rounds = 3 };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        long n = v ? strtol(v, &end, 10) : -1;
        bool num_ok = v && *v && end && *end == '\0' && n >= 0;

        if (strcmp(a, "--callgrind") == 0)
            o->callgrind = true;
        else if (strcmp(a, "--flow") == 0)
            o->flow = true;
        else if (num_ok && strcmp(a, "--guests") == 0 && n >= 2 && n < ZVS_MAX_PORTS)
            o->guests = (uint32_t)n, i++;
        else if (num_ok && strcmp(a, "--macs") == 0 && n <= ZVS_MAC_CAPACITY)
            o->macs = (uint32_t)n, i++;
        else if (num_ok && strcmp(a, "--frames") == 0 && n >= ZVS_BATCH)
            o->frames = n / ZVS_BATCH * ZVS_BATCH, i++;
        else if (num_ok && strcmp(a, "--rounds") == 0 && n >= 1 && n <= SCALE_MAX_ROUNDS)
            o->rounds = (int)n, i++;
        else
            return -1;
    }
    if (o->macs < 2 * o->guests)
        return -1;                      /* every guest needs an address to send from */
    if (o->frames < 0)
        o->frames = o->callgrind ? 64000 : 2000000;
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o;
    struct scale s;

    if (parse(argc, argv, &o) < 0) {
        fprintf(stderr, "usage: bench_scale [--guests N] [--macs N] [--frames N] [--rounds N]"
                        " [--flow]\n"
                        "                   [--callgrind]\n"
                        "  --guests  coupled guests, 2..1023 (default 1000)\n"
                        "  --macs    MAC table entries in use, >= 2 x guests (default %u)\n"
                        "  --flow    a burst's frames to one guest (default: each frame's\n"
                        "            destination drawn on its own)\n",
                SCALE_MACS);
        return 2;
    }
    int err = scale_open(&s, &o);
    if (err < 0) {
        fprintf(stderr, "bench_scale: set-up failed: %s\n", strerror(-err));
        scale_close(&s);
        return 1;
    }
    int rc = o.callgrind ? run_callgrind(&s, &o) : run_timed(&s, &o);
    scale_close(&s);
    return rc;
}
