/* Core data-path benchmark: frames per second on one core through
 *   guest output queue (STR workload, QDIO program side) -> zvs_switch_poll (adapter
 *   side, forwarding) -> memlink uplink ring (drained by this loop every iteration).
 *
 * Design note.
 * - What is measured: everything one core does per frame in that loop, the guest's own
 *   copy into its output buffer included (as a Linux guest and CP share a core budget in
 *   the z/VM measurements). No kernel I/O, no clock reads inside the path: `now` is the
 *   iteration number. The clock is read around a run only.
 * - Method: fresh switch per frame size; warm-up, then a fixed number of frames, best of
 *   N runs (the least disturbed). The NIC has QUEUESTORAGE 1M as in the report's runs
 *   (--qs 8 for the other end: QUEUESTORAGE sets how many 64 KB buffers are in flight,
 *   8 or 64, not how large one is). The guest packs up to 16 frames per output buffer (qdio
 *   packing, qdio_guest.h: 16 frames of 64 bytes in one 4 KB page, 2 of 1500 per page), as
 *   a qeth driver does under load; --pack 1 gives one frame per buffer. The guest keeps at
 *   most N output buffers outstanding (its 64 KB page sets: 8 at 1M, 64 at 8M), so at
 *   --pack 1 a send call queues at most N frames. After each run the uplink's counters
 *   must equal the frames sent: a benchmark that silently drops is a failure (exit 1), not
 *   a fast result.
 * - Output: one line per measurement, `BENCH name value unit` (the tests/bench/run.sh
 *   protocol), or JSON objects with --json.
 * - --callgrind: a small fixed number of frames between CALLGRIND_START/STOP so that
 *   `valgrind --tool=callgrind --instr-atstart=no` counts only the forwarding loop;
 *   prints `BENCH_FRAMES n` and `BENCH_CALLGRIND_MACROS 0|1` (0: built without
 *   <valgrind/callgrind.h>; the caller subtracts a run with --frames 0 instead).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/memlink.h"
#include "qdio/nic_qdio.h"
#include "dataplane/switch.h"
#include "tests/lib/workload.h"

#include "tests/bench/bench_callgrind.h"

#define BENCH_QS_MB     1u                     /* QUEUESTORAGE 1M, as in the report's runs */
#define BENCH_SLOTS     256u                   /* memlink ring slots (a NIC tx ring) */
#define BENCH_BUDGET    128                    /* frames the guest sends per iteration */
#define BENCH_PACK      16u                    /* frames per output buffer (packing mode) */

static const uint8_t MAC_GUEST[6] = { 0x02, 0x00, 0x0C, 0x00, 0x00, 0x05 };
static const uint8_t MAC_LAN[6] = { 0x00, 0x1B, 0x21, 0x00, 0x00, 0x01 };

struct bench {
    struct zvs_switch   *sw;
    struct zvs_port     *up;
    struct zvs_port     *nic;
    struct zvs_workload *w;
    uint64_t             now;           /* iteration number */
    uint64_t             frames;        /* forwarded so far */
};

struct opts {
    bool     json;
    bool     callgrind;
    int      runs;
    long     frames;                    /* < 0: per-size default */
    long     warmup;
    uint32_t size;                      /* 0: both 64 and 1500 */
    uint32_t qs_mb;                     /* QUEUESTORAGE of the NIC, MB */
    uint32_t slots;                     /* memlink ring slots */
    uint32_t pack;                      /* guest: frames per output buffer at most */
};

static void bench_close(struct bench *b)
{
    zvs_workload_destroy(b->w);
    zvs_switch_destroy(b->sw);
    memset(b, 0, sizeof(*b));
}

static int bench_open(struct bench *b, const struct opts *o, uint32_t frame_len)
{
    struct zvs_switch_params sp = { .name = "BENCHVSW", .vlan = { .aware = false, .native_vid = 1 } };
    struct zvs_workload_params wp = { .kind = ZVS_WL_STR, .frame_len = frame_len,
                                      .pack = o->pack };
    struct zvs_guest g = { .owner = "LNXBENCH", .vdev = 0xF000, .macprotect = true };
    int err = 0;

    memset(b, 0, sizeof(*b));
    b->sw = zvs_switch_create(&sp);
    if (!b->sw)
        return -ENOMEM;
    b->up = zvs_memlink_create("28BA", o->slots, 0);
    if (!b->up)
        goto fail;
    if ((err = zvs_switch_add_uplink(b->sw, b->up)) < 0) {
        b->up->ops->destroy(b->up);
        goto fail;
    }
    b->nic = zvs_nic_qdio_create("LNXBENCH.F000", o->qs_mb * ZVS_QDIO_MB, 1500, &err);
    if (!b->nic)
        goto fail;
    memcpy(g.mac, MAC_GUEST, 6);
    zvs_vlan_port_init(&g.vlan, ZVS_VLAN_ACCESS, 1);
    if ((err = zvs_switch_add_guest(b->sw, b->nic, &g)) < 0) {
        b->nic->ops->destroy(b->nic);
        goto fail;
    }
    memcpy(wp.mac, MAC_GUEST, 6);
    memcpy(wp.peer_mac, MAC_LAN, 6);
    if ((err = zvs_workload_create(&wp, b->nic, &b->w)) < 0)
        goto fail;
    return 0;
fail:
    bench_close(b);
    return err ? err : -ENOMEM;
}

/* The measured loop: the guest fills output buffers, the switch forwards them to the
 * uplink, the far end of the uplink takes them away. Exactly `frames` frames. */
static void pump(struct bench *b, uint64_t frames)
{
    uint64_t done = 0;

    while (done < frames) {
        uint64_t left = frames - done;
        int budget = left < BENCH_BUDGET ? (int)left : BENCH_BUDGET;
        int got;

        b->now++;
        zvs_workload_run(b->w, b->now, budget);
        while ((got = zvs_switch_poll(b->sw, b->nic, b->now)) > 0)
            done += (uint64_t)got;
        zvs_memlink_drain(b->up);
    }
    b->frames += done;
}

static double secs_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Every frame pumped must have left through the uplink, none dropped anywhere. */
static int check_counts(const struct bench *b, uint32_t frame_len)
{
    struct zvs_workload_stats ws;

    zvs_workload_stats(b->w, &ws);
    if (b->up->ctr.out_packets != b->frames || b->up->ctr.out_bytes != b->frames * frame_len ||
        b->up->ctr.out_discards != 0 || b->nic->ctr.in_discards != 0 ||
        b->nic->ctr.in_errors != 0 || ws.tx_frames != b->frames) {
        fprintf(stderr, "bench_core: counters disagree: pumped %llu, uplink out %llu "
                "(%llu discarded), guest sent %llu\n", (unsigned long long)b->frames,
                (unsigned long long)b->up->ctr.out_packets,
                (unsigned long long)b->up->ctr.out_discards, (unsigned long long)ws.tx_frames);
        return -1;
    }
    return 0;
}

static void emit(const struct opts *o, const char *name, double value, const char *unit)
{
    if (o->json)
        printf("{\"name\":\"%s\",\"value\":%.4f,\"unit\":\"%s\"}\n", name, value, unit);
    else
        printf("BENCH %s %.4f %s\n", name, value, unit);
    fflush(stdout);
}

/* Best (shortest) of o->runs timed runs of `frames` frames; returns seconds, < 0 on error. */
static double measure(const struct opts *o, uint32_t frame_len, uint64_t frames)
{
    struct bench b;
    double best = -1;

    if (bench_open(&b, o, frame_len) < 0) {
        fprintf(stderr, "bench_core: setup failed\n");
        return -1;
    }
    pump(&b, (uint64_t)o->warmup);
    for (int r = 0; r < o->runs; r++) {
        double t0 = secs_now();
        pump(&b, frames);
        double dt = secs_now() - t0;
        if (best < 0 || dt < best)
            best = dt;
    }
    if (check_counts(&b, frame_len) < 0)
        best = -1;
    bench_close(&b);
    return best;
}

static int run_timed(const struct opts *o)
{
    static const uint32_t sizes[] = { 64, 1500 };
    char name[64];

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        uint32_t len = sizes[i];
        if (o->size && o->size != len)
            continue;
        uint64_t frames = o->frames >= 0 ? (uint64_t)o->frames : len <= 64 ? 5000000 : 2000000;
        double s = measure(o, len, frames);
        if (s <= 0)
            return 1;
        double pps = (double)frames / s;
        snprintf(name, sizeof(name), "core_%ub_mpps", len);
        emit(o, name, pps / 1e6, "Mpps");
        snprintf(name, sizeof(name), "core_%ub_gbps", len);
        emit(o, name, pps * len * 8 / 1e9, "Gbit/s");
        snprintf(name, sizeof(name), "core_%ub_ns_per_frame", len);
        emit(o, name, s * 1e9 / (double)frames, "ns");
    }
    return 0;
}

static int run_callgrind(const struct opts *o)
{
    struct bench b;
    uint32_t len = o->size ? o->size : 64;
    uint64_t frames = o->frames >= 0 ? (uint64_t)o->frames : 200000;

    if (bench_open(&b, o, len) < 0) {
        fprintf(stderr, "bench_core: setup failed\n");
        return 1;
    }
    pump(&b, (uint64_t)o->warmup);
    CALLGRIND_START_INSTRUMENTATION;
    pump(&b, frames);
    CALLGRIND_STOP_INSTRUMENTATION;
    int rc = check_counts(&b, len) < 0 ? 1 : 0;
    bench_close(&b);
    printf("BENCH_FRAMES %llu\n", (unsigned long long)frames);
    printf("BENCH_CALLGRIND_MACROS %d\n", HAVE_CALLGRIND_H);
    return rc;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_core [--json] [--runs N] [--frames N] [--warmup N] [--size 64|1500]\n"
            "                  [--qs MB] [--slots N] [--pack N]\n"
            "       bench_core --callgrind [--frames N] [--size B] [--qs MB] [--pack N]   (under valgrind)\n"
            "  --qs     QUEUESTORAGE of the NIC, 1..8 MB (default 1: the report's setting)\n"
            "  --slots  memlink ring slots (default 256)\n"
            "  --pack   frames per guest output buffer, 1..16 (default 16: packing mode)\n");
}

static int parse(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){ .runs = 3, .frames = -1, .warmup = -1, .qs_mb = BENCH_QS_MB,
                        .slots = BENCH_SLOTS, .pack = BENCH_PACK };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        long n = v ? strtol(v, &end, 10) : -1;
        bool num_ok = v && *v && end && *end == '\0' && n >= 0;

        if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else if (strcmp(a, "--callgrind") == 0) {
            o->callgrind = true;
        } else if (num_ok && strcmp(a, "--runs") == 0 && n >= 1 && n <= 100) {
            o->runs = (int)n, i++;
        } else if (num_ok && strcmp(a, "--frames") == 0) {
            o->frames = n, i++;
        } else if (num_ok && strcmp(a, "--warmup") == 0) {
            o->warmup = n, i++;
        } else if (num_ok && strcmp(a, "--qs") == 0 && n >= 1 && n <= 8) {
            o->qs_mb = (uint32_t)n, i++;
        } else if (num_ok && strcmp(a, "--pack") == 0 && n >= 1 && n <= 16) {
            o->pack = (uint32_t)n, i++;
        } else if (num_ok && strcmp(a, "--slots") == 0 && n >= BENCH_BUDGET && n <= 65536) {
            o->slots = (uint32_t)n, i++;
        } else if (num_ok && strcmp(a, "--size") == 0 && n >= ZVS_WL_FRAME_MIN && n <= 1514) {
            o->size = (uint32_t)n, i++;
        } else {
            return -1;
        }
    }
    if (o->warmup < 0)
        o->warmup = o->callgrind ? 20000 : 500000;
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o;

    if (parse(argc, argv, &o) < 0) {
        usage();
        return 2;
    }
    return o.callgrind ? run_callgrind(&o) : run_timed(&o);
}
