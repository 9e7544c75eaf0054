/* scale_floor: the least any switch does per frame in bench_scale.c's workload, at 3 and
 * at 1,000 guests, measured beside vswitchd by tests/bench/bench_scale.sh (issue 23): the
 * floor of scale_fwd_ratio_1000g_vs_3g on this machine.
 *
 *   scale_floor [--frames N] [--rounds R] [--guests "3 1000"]
 *   valgrind --tool=callgrind --toggle-collect=forward_burst scale_floor --frames 64000 \
 *       --rounds 1 --guests 1000            (instructions: divide by the frames printed)
 *
 * The memory is laid out as the guests' is: each guest a 1 MB region of its own (memfd,
 * MAP_SHARED, 4 KB pages, as qdio/qdio.c maps QUEUESTORAGE 1M), its input queue's 128
 * buffer descriptors (SBALs of 16 16-byte entries, 32 KB), their 128 state bytes, and an
 * input page for each buffer; its output page, where it builds its bursts. 65,000
 * addresses spread evenly over the guests, as bench_scale.c learns them, in an
 * open-addressing table of 131,072 slots (2 MB; the switch's own table is larger).
 * A burst, as bench_scale.c's: a guest builds 32 frames of 64 bytes in its output page,
 * each to a random address of another guest from a random address of its own (xorshift,
 * fixed seed); then, timed, forward_burst: for each frame the source address looked up and
 * its entry stamped (learning), the destination looked up, the frame copied into its
 * guest's next input page, that buffer's first descriptor written and its state byte set
 * (primed); software-pipelined in three passes over the burst (hash and load the table
 * slots ahead, look up and load the destination's lines ahead, copy and write), the way
 * dataplane/forward.c loads ahead on a large switch. Untimed again, each guest that was
 * sent something reads its frames and hands the buffers back, as bench_scale.c's drain.
 * No MAC checks, VLANs, counters, QDIO ownership protocol or frame header: what is left is
 * what no switch can skip, so the ratio of its rates at 1,000 and at 3 guests is what the
 * memory of 1,000 guests alone costs on this machine.
 *
 * Prints a line a round and guest count, "FLOOR guests G frames N Mpps M", then
 * "FLOOR ratio R" (1,000 over 3, the medians of the rounds, which interleave); exit 0.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

enum { BURST = 32, NBUFS = 128, NSBALE = 16, PAGE = 4096, FRAME = 64, MACS = 65000,
       SLOTS = 1 << 17, MAX_ROUNDS = 15, MAX_COUNTS = 4 };
#define REGION (1u << 20)

struct sbale { uint64_t addr; uint32_t len; uint32_t flags; };

/* A guest's 1 MB region: descriptors first (page aligned), states, then the pages. */
struct region {
    struct sbale sbal[NBUFS][NSBALE];   /* 32 KB */
    uint8_t      state[NBUFS];
    uint8_t      pad[PAGE - NBUFS];
    uint8_t      in[NBUFS][PAGE];       /* 512 KB: an input page a buffer */
    uint8_t      out[PAGE];             /* the output page its bursts are built in */
};
_Static_assert(sizeof(struct region) <= REGION, "a guest's region is 1 MB");

struct guest {
    struct region *r;
    uint32_t       next;                /* its next input buffer */
    uint32_t       first, count;        /* its addresses: first .. first + count - 1 */
    uint32_t       pending;             /* buffers primed since its last drain */
};

struct slot { uint64_t key; uint32_t guest; uint32_t stamp; };

static struct slot *table;
static uint64_t     rng = 0x9E3779B97F4A7C15ull;

static uint64_t xorshift(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint64_t mac_of(uint32_t i) { return 0x020000000000ull | i; }
static uint32_t hash_of(uint64_t k) { return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 47); }

static struct slot *find(uint64_t k)
{
    for (uint32_t h = hash_of(k);; h = (h + 1) & (SLOTS - 1))
        if (table[h].key == k || table[h].key == 0)
            return &table[h];
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The timed part: forward the burst of `from` (its frames in its output page). */
__attribute__((noinline)) void forward_burst(struct guest *gs, struct guest *from,
                                             uint32_t stamp);
void forward_burst(struct guest *gs, struct guest *from, uint32_t stamp)
{
    struct slot *src[BURST], *dst[BURST];
    struct guest *to[BURST];
    uint8_t (*f)[FRAME] = (uint8_t (*)[FRAME])(void *)from->r->out;

    for (int i = 0; i < BURST; i++) {   /* pass 1: the table's slots ahead */
        uint64_t d, s;
        memcpy(&d, f[i], 8);
        memcpy(&s, f[i] + 6, 8);
        d &= 0xFFFFFFFFFFFFull;
        s &= 0xFFFFFFFFFFFFull;
        __builtin_prefetch(&table[hash_of(d)]);
        __builtin_prefetch(&table[hash_of(s)], 1);
    }
    for (int i = 0; i < BURST; i++) {   /* pass 2: look up; the destination's lines ahead */
        uint64_t d, s;
        memcpy(&d, f[i], 8);
        memcpy(&s, f[i] + 6, 8);
        src[i] = find(s & 0xFFFFFFFFFFFFull);
        dst[i] = find(d & 0xFFFFFFFFFFFFull);
        to[i] = &gs[dst[i]->guest];
        struct region *r = to[i]->r;
        uint32_t b = to[i]->next;
        __builtin_prefetch(r->in[b], 1);
        __builtin_prefetch(&r->sbal[b][0], 1);
        __builtin_prefetch(&r->state[b], 1);
    }
    for (int i = 0; i < BURST; i++) {   /* pass 3: learn, copy, describe, prime */
        src[i]->stamp = stamp;
        struct guest *g = to[i];
        uint32_t b = g->next;
        memcpy(g->r->in[b], f[i], FRAME);
        g->r->sbal[b][0] = (struct sbale){ (uint64_t)b * PAGE, FRAME, 0x40000000u };
        __atomic_store_n(&g->r->state[b], 0x01, __ATOMIC_RELEASE);
        g->next = (b + 1) % NBUFS;
        g->pending++;
    }
}

/* The guests' side, untimed: build a burst; drain what was primed for each guest. */
static void build_burst(struct guest *gs, uint32_t n, uint32_t who)
{
    uint8_t (*f)[FRAME] = (uint8_t (*)[FRAME])(void *)gs[who].r->out;
    for (int i = 0; i < BURST; i++) {
        uint32_t g = (uint32_t)(xorshift() % (n - 1));
        g += g >= who;                  /* another guest */
        uint64_t d = mac_of(gs[g].first + (uint32_t)(xorshift() % gs[g].count));
        uint64_t s = mac_of(gs[who].first + (uint32_t)(xorshift() % gs[who].count));
        memcpy(f[i], &d, 6);
        memcpy(f[i] + 6, &s, 6);
        memset(f[i] + 12, 0x5A, FRAME - 12);
    }
}

static uint64_t drain(struct guest *gs, uint32_t n)
{
    uint64_t sum = 0;
    for (uint32_t g = 0; g < n; g++) {
        for (; gs[g].pending; gs[g].pending--) {
            uint32_t b = (gs[g].next + NBUFS - gs[g].pending) % NBUFS;
            sum += gs[g].r->in[b][FRAME - 1];
            gs[g].r->state[b] = 0;
        }
    }
    return sum;
}

static double run(uint32_t n, uint64_t frames)
{
    struct guest *gs = calloc(n, sizeof *gs);
    table = calloc(SLOTS, sizeof *table);
    if (!gs || !table)
        die("calloc");
    for (uint32_t g = 0; g < n; g++) {
        int fd = memfd_create("scale-floor", MFD_CLOEXEC);
        if (fd < 0 || ftruncate(fd, REGION) < 0)
            die("memfd");
        gs[g].r = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
        if (gs[g].r == MAP_FAILED)
            die("mmap");
        close(fd);
        gs[g].first = (uint32_t)((uint64_t)MACS * g / n);
        gs[g].count = (uint32_t)((uint64_t)MACS * (g + 1) / n) - gs[g].first;
        for (uint32_t i = 0; i < gs[g].count; i++) {
            struct slot *s = find(mac_of(gs[g].first + i));
            *s = (struct slot){ mac_of(gs[g].first + i), g, 0 };
        }
    }
    double busy = 0;
    uint64_t done = 0, check = 0;
    for (uint32_t who = 0, stamp = 1; done < frames; who = (who + 1) % n, stamp++) {
        build_burst(gs, n, who);
        double t0 = now_s();
        forward_burst(gs, &gs[who], stamp);
        busy += now_s() - t0;
        done += BURST;
        check += drain(gs, n);
    }
    if (check != done * 0x5A)
        fprintf(stderr, "scale_floor: a frame was lost\n"), exit(1);
    for (uint32_t g = 0; g < n; g++)
        munmap(gs[g].r, REGION);
    free(gs);
    free(table);
    return (double)done / busy / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    uint64_t frames = 2000000;
    int rounds = 3, ncounts = 0;
    uint32_t counts[MAX_COUNTS];
    const char *list = "3 1000";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--frames"))
            frames = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--rounds"))
            rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--guests"))
            list = argv[i + 1];
        else
            return fprintf(stderr, "scale_floor: unknown option %s\n", argv[i]), 2;
    }
    char *copy = strdup(list), *tok, *save = NULL;
    for (tok = strtok_r(copy, " ", &save); tok && ncounts < MAX_COUNTS; tok = strtok_r(NULL, " ", &save))
        counts[ncounts++] = (uint32_t)atoi(tok);
    free(copy);
    if (rounds < 1 || rounds > MAX_ROUNDS || frames < BURST || ncounts < 1)
        return fprintf(stderr, "scale_floor: bad arguments\n"), 2;
    for (int c = 0; c < ncounts; c++)
        if (counts[c] < 2 || counts[c] > 4096)
            return fprintf(stderr, "scale_floor: 2 to 4096 guests\n"), 2;

    double mpps[MAX_COUNTS][MAX_ROUNDS];
    for (int r = 0; r < rounds; r++)
        for (int c = 0; c < ncounts; c++) {
            mpps[c][r] = run(counts[c], frames);
            printf("FLOOR guests %u frames %llu Mpps %.3f\n", counts[c],
                   (unsigned long long)(frames + BURST - 1) / BURST * BURST, mpps[c][r]);
        }
    if (ncounts == 2) {
        for (int c = 0; c < 2; c++)
            qsort(mpps[c], (size_t)rounds, sizeof(double), cmp);
        printf("FLOOR ratio %.3f\n", mpps[1][rounds / 2] / mpps[0][rounds / 2]);
    }
    return 0;
}
