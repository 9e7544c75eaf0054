/* Port group benchmark: the cost of the per-frame port choice and the balance the INTERVAL
 * pass reaches, against plain `suffix mod N`.
 *
 * Design note.
 * - dist_ns_per_frame: the data path's work per frame, as forward.c does it: the live map
 *   is acquire-loaded once per burst of ZVS_BATCH (32) frames; per frame the bucket from
 *   the MAC suffix, the port lookup and the bucket byte add. 4096 prepared frames (random
 *   destination suffixes, 64..1514 bytes) are cycled; 50M frames by default (--frames N),
 *   best of 3 runs, clock_gettime around the loop only. The chosen ports are summed into
 *   a volatile sink so nothing is optimized away.
 * - balance_max_over_mean_<pop>_<N>p_<policy>: 64 guests (MAC suffixes) send a steady load
 *   over a group of N = 2 or 4 ports. Populations: sequential suffixes with equal load,
 *   random suffixes with equal load, random suffixes with Zipf loads (guest k sends 1/k).
 *   policy "load": our group (LOAD policy, idle start = b mod N, INTERVAL passes on
 *   virtual time, no Marker); measured: max/mean of the ports' outbound bytes over the
 *   interval after two passes. policy "modn": the static suffix mod N binding.
 *   balance_<pop>_<N>p: ours with modn as the peer value and modn/ours as the ratio (> 1:
 *   we are better).
 * - Output: the tests/bench/run.sh line protocol; exit 0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lag/pgroup.h"

#define GUESTS   64
#define IVL_S    10u
#define NS       1000000000ull

static uint32_t lcg_state = 12345;

static uint32_t lcg(void)
{
    lcg_state = lcg_state * 1103515245u + 12345u;
    return lcg_state >> 8;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct zvs_pgroup *group(unsigned ports)
{
    struct zvs_pg_params p = { .name = "BENCH", .interval_s = IVL_S };
    struct zvs_pgroup *g = zvs_pgroup_create(&p, NULL, NULL);

    if (!g)
        exit(1);
    for (unsigned i = 0; i < ports; i++) {
        zvs_pgroup_join(g, (uint16_t)(10 + i), "28BA", 1000000000ull, 0);
        zvs_pgroup_set_state(g, (uint16_t)(10 + i), true, true, 0);
    }
    return g;
}

/* ---- dist_ns_per_frame --------------------------------------------------------------- */

#define NFRAMES 4096

static double dist_ns(uint64_t frames)
{
    static uint8_t mac[NFRAMES][12];
    static uint16_t len[NFRAMES];
    struct zvs_pgroup *g = group(4);
    uint64_t *bytes = zvs_pgroup_bucket_bytes(g);
    volatile uint64_t sink = 0;
    double best = 1e30;

    for (unsigned i = 0; i < NFRAMES; i++) {
        for (unsigned j = 0; j < 12; j++)
            mac[i][j] = (uint8_t)lcg();
        len[i] = (uint16_t)(64 + lcg() % 1451);
    }
    for (int run = 0; run < 3; run++) {
        uint64_t acc = 0;
        unsigned k = 0;
        double t0 = now_s();
        for (uint64_t done = 0; done < frames; done += 32) {
            const struct zvs_pg_map *m = zvs_pgroup_map(g);
            enum zvs_pg_hash h = zvs_pgroup_params(g)->hash;
            for (unsigned i = 0; i < 32; i++, k = (k + 1) & (NFRAMES - 1)) {
                unsigned b = zvs_pg_bucket(h, mac[k], mac[k] + 6);
                acc += m->bucket_port[b];
                bytes[b] += len[k];
            }
        }
        double ns = (now_s() - t0) * 1e9 / (double)frames;
        sink += acc;
        if (ns < best)
            best = ns;
    }
    (void)sink;
    zvs_pgroup_destroy(g);
    return best;
}

/* ---- balance ------------------------------------------------------------------------- */

enum pop { POP_SEQ, POP_RANDOM, POP_SKEWED };
static const char *const pop_name[] = { "sequential", "random", "skewed" };

static void population(enum pop pop, double *rate)
{
    memset(rate, 0, sizeof(double) * ZVS_PG_BUCKETS);
    lcg_state = 777;
    for (unsigned k = 0; k < GUESTS; k++) {
        unsigned suffix = pop == POP_SEQ ? 0x10 + k : lcg() & 0xFF;
        rate[suffix] += pop == POP_SKEWED ? 12500000.0 / (k + 1) : 1000000.0;
    }
}

static double ratio(const double *port, unsigned n)
{
    double sum = 0, max = 0;
    for (unsigned i = 0; i < n; i++) {
        sum += port[i];
        max = port[i] > max ? port[i] : max;
    }
    return max / (sum / n);
}

static double balance_modn(const double *rate, unsigned ports)
{
    double port[ZVS_PG_MAX_MEMBERS] = { 0 };
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++)
        port[b % ports] += rate[b];
    return ratio(port, ports);
}

/* One interval of steady load through the live map; returns bytes per port. */
static void interval(struct zvs_pgroup *g, const double *rate, unsigned ports, uint64_t *now,
                     uint64_t *ctr, double *port)
{
    const struct zvs_pg_map *m = zvs_pgroup_map(g);
    uint64_t *bytes = zvs_pgroup_bucket_bytes(g);
    struct zvs_pg_sample smp[ZVS_PG_MAX_MEMBERS];

    memset(port, 0, sizeof(double) * ports);
    for (unsigned b = 0; b < ZVS_PG_BUCKETS; b++) {
        uint64_t n = (uint64_t)(rate[b] * IVL_S);
        bytes[b] += n;
        ctr[m->bucket_slot[b]] += n;
        port[m->bucket_slot[b]] += (double)n;
    }
    *now += IVL_S * NS;
    for (unsigned i = 0; i < ports; i++)
        smp[i] = (struct zvs_pg_sample){ (uint16_t)(10 + i), ctr[i], 0 };
    zvs_pgroup_run(g, *now, smp, (int)ports);
}

static double balance_ours(const double *rate, unsigned ports)
{
    struct zvs_pgroup *g = group(ports);
    uint64_t now = 0, ctr[ZVS_PG_MAX_MEMBERS] = { 0 };
    double port[ZVS_PG_MAX_MEMBERS];
    struct zvs_pg_sample smp[ZVS_PG_MAX_MEMBERS];

    for (unsigned i = 0; i < ports; i++)
        smp[i] = (struct zvs_pg_sample){ (uint16_t)(10 + i), 0, 0 };
    zvs_pgroup_run(g, now, smp, (int)ports);        /* counter baselines */
    interval(g, rate, ports, &now, ctr, port);      /* pass 1 */
    interval(g, rate, ports, &now, ctr, port);      /* pass 2 */
    interval(g, rate, ports, &now, ctr, port);      /* measured */
    zvs_pgroup_destroy(g);
    return ratio(port, ports);
}

int main(int argc, char **argv)
{
    uint64_t frames = 50000000ull;
    double rate[ZVS_PG_BUCKETS];

    if (argc == 3 && strcmp(argv[1], "--frames") == 0)
        frames = strtoull(argv[2], NULL, 10);
    printf("BENCH dist_ns_per_frame %.2f ns\n", dist_ns(frames));
    for (unsigned pop = POP_SEQ; pop <= POP_SKEWED; pop++) {
        for (unsigned ports = 2; ports <= 4; ports += 2) {
            population((enum pop)pop, rate);
            double ours = balance_ours(rate, ports), modn = balance_modn(rate, ports);
            printf("BENCH balance_max_over_mean_%s_%up_load %.3f ratio\n", pop_name[pop],
                   ports, ours);
            printf("BENCH balance_max_over_mean_%s_%up_modn %.3f ratio\n", pop_name[pop],
                   ports, modn);
            printf("BENCH balance_%s_%up %.3f ratio %.3f %.3f\n", pop_name[pop], ports, ours,
                   modn, modn / ours);
        }
    }
    return 0;
}
