/* scale_floor: the least any switch does per frame in bench_scale.c's workload, at 3 and
 * at 1,000 guests, measured beside vswitchd by tests/bench/bench_scale.sh (issue 23): the
 * floor of scale_fwd_ratio_1000g_vs_3g on this machine.
 *
 *   scale_floor [--frames N] [--rounds R] [--guests "3 1000"]
 *   valgrind --tool=callgrind --toggle-collect=forward_burst scale_floor --frames 64000 \
 *       --rounds 1 --guests 1000            (instructions: divide by the frames printed)
 *
 * The memory is laid out as the guests' is: each guest a 1 MB region of its own (memfd,
 * MAP_SHARED, 4 KB pages, populated first, as qdio/qdio.c maps QUEUESTORAGE 1M), its
 * input queue's 128 buffer descriptors (SBALs of 16 16-byte entries, 32 KB), their 128
 * state bytes, its input half of the data area (512 KB: 8 page sets of 16 pages, buffer
 * b's entries on the pages of set b mod 8, as the guest library arms 8 input buffers at
 * QUEUESTORAGE 1M, each frame on a page of its own), and its output page, where it builds
 * its bursts. 65,000 addresses spread evenly over the guests, as
 * bench_scale.c learns them, in an open-addressing table of 131,072 slots (2 MB; the
 * switch's own table is larger).
 * A burst, as bench_scale.c's: a guest builds 32 frames of 64 bytes in its output page,
 * each to a random address of another guest from a random address of its own (xorshift,
 * fixed seed), with a sequence number. Then, timed, forward_burst: for each frame the
 * source address looked up and its entry stamped (learning), the destination looked up,
 * the frame copied into its guest's next input page and described in an entry of that
 * guest's buffer for this burst (one buffer a guest a burst, as the switch packs a
 * burst's frames for one guest), each buffer primed once at the end; software-pipelined
 * in three passes over the burst (hash and load the table slots ahead, look up and load
 * the destination's lines ahead, copy and describe), the way dataplane/forward.c loads
 * ahead on a large switch. Untimed again, each guest that was sent something takes its
 * primed buffers: every entry's frame must carry one of its addresses and the sequence
 * numbers must add up to those sent (exit 1 otherwise), then the pages and buffers are
 * handed back. No MAC checks, VLANs, counters, QDIO ownership protocol or frame header:
 * what is left is about what no switch can skip, so the ratio of its rates at 1,000 and
 * at 3 guests says what the memory of 1,000 guests alone costs on this machine. Not a
 * proof of a bound: one design of the least work; a better one could do better.
 *
 * Prints a line a round and guest count, "FLOOR guests G frames N Mpps M" (the counts
 * interleave round by round; the caller takes the medians and their ratio); exit 0.
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
       SLOTS = 1 << 17, MAX_ROUNDS = 15, MAX_COUNTS = 4, NSETS = 8 };
#define REGION (1u << 20)
#define LAST_ENTRY 0x40000000u

struct sbale { uint64_t addr; uint32_t len; uint32_t flags; };

/* A guest's 1 MB region: descriptors first (page aligned), states, then the pages. */
struct region {
    struct sbale sbal[NBUFS][NSBALE];   /* 32 KB */
    uint8_t      state[NBUFS];
    uint8_t      pad[PAGE - NBUFS];
    uint8_t      in[NSETS * NSBALE][PAGE];  /* 512 KB: the input page sets */
    uint8_t      out[PAGE];             /* the output page its bursts are built in */
};
_Static_assert(sizeof(struct region) <= REGION, "a guest's region is 1 MB");

struct guest {
    struct region *r;
    uint32_t       next;                /* its next input buffer */
    uint32_t       first, count;        /* its addresses: first .. first + count - 1 */
    uint32_t       pending;             /* buffers primed since its last drain */
    uint32_t       burst;               /* the burst its open buffer belongs to */
    uint32_t       open, used;          /* that buffer and its entries used */
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

/* MACs in network order in the frame, whatever the machine's order. */
static void put_mac(uint8_t *p, uint64_t m)
{
    for (int i = 0; i < 6; i++)
        p[i] = (uint8_t)(m >> (40 - 8 * i));
}

static uint64_t get_mac(const uint8_t *p)     /* reads 8 bytes: p + 8 must be readable */
{
    uint64_t m;
    memcpy(&m, p, sizeof m);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    m = __builtin_bswap64(m);
#endif
    return m >> 16;
}

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
                                             uint32_t burst);
void forward_burst(struct guest *gs, struct guest *from, uint32_t burst)
{
    struct slot *src[BURST];
    struct guest *to[BURST], *opened[BURST];
    uint32_t buf[BURST], ent[BURST], page[BURST], opened_buf[BURST];
    int nopen = 0;
    uint8_t (*f)[FRAME] = (uint8_t (*)[FRAME])(void *)from->r->out;

    for (int i = 0; i < BURST; i++) {   /* pass 1: the table's slots ahead */
        __builtin_prefetch(&table[hash_of(get_mac(f[i]))]);
        __builtin_prefetch(&table[hash_of(get_mac(f[i] + 6))], 1);
    }
    for (int i = 0; i < BURST; i++) {   /* pass 2: look up, place; its lines ahead */
        src[i] = find(get_mac(f[i] + 6));
        struct guest *g = to[i] = &gs[find(get_mac(f[i]))->guest];
        if (g->burst != burst || g->used == NSBALE) {   /* a buffer for this burst */
            g->burst = burst;
            g->open = g->next;
            g->next = (g->next + 1) % NBUFS;
            g->used = 0;
            opened[nopen] = g;
            opened_buf[nopen++] = g->open;
            __builtin_prefetch(&g->r->state[g->open], 1);
        }
        buf[i] = g->open;
        ent[i] = g->used++;
        page[i] = (buf[i] % NSETS) * NSBALE + ent[i];
        __builtin_prefetch(g->r->in[page[i]], 1);
        __builtin_prefetch(&g->r->sbal[buf[i]][ent[i]], 1);
    }
    for (int i = 0; i < BURST; i++) {   /* pass 3: learn, copy, describe */
        src[i]->stamp = burst;
        struct region *r = to[i]->r;
        memcpy(r->in[page[i]], f[i], FRAME);
        r->sbal[buf[i]][ent[i]] =
            (struct sbale){ (uint64_t)page[i] * PAGE, FRAME, LAST_ENTRY };
        if (ent[i])                     /* the entry before is no longer the last */
            r->sbal[buf[i]][ent[i] - 1].flags = 0;
    }
    for (int k = 0; k < nopen; k++) {   /* prime each buffer once */
        __atomic_store_n(&opened[k]->r->state[opened_buf[k]], 0x01, __ATOMIC_RELEASE);
        opened[k]->pending++;
    }
}

/* The guests' side, untimed: build a burst; drain what was primed for each guest. */
static void build_burst(struct guest *gs, uint32_t n, uint32_t who, uint32_t *seq)
{
    uint8_t (*f)[FRAME] = (uint8_t (*)[FRAME])(void *)gs[who].r->out;
    for (int i = 0; i < BURST; i++) {
        uint32_t g = (uint32_t)(xorshift() % (n - 1));
        g += g >= who;                  /* another guest */
        put_mac(f[i], mac_of(gs[g].first + (uint32_t)(xorshift() % gs[g].count)));
        put_mac(f[i] + 6, mac_of(gs[who].first + (uint32_t)(xorshift() % gs[who].count)));
        ++*seq;
        memcpy(f[i] + 12, seq, sizeof *seq);
        memset(f[i] + 16, 0x5A, FRAME - 16);
    }
}

/* Each guest's primed buffers, oldest first: state primed, every entry's frame one of its
 * addresses; the frames' sequence numbers added to *sum and counted in *frames; then the
 * pages wiped and the buffers handed back. False when anything is wrong. */
static bool drain(struct guest *gs, uint32_t n, uint64_t *sum, uint64_t *frames)
{
    for (uint32_t g = 0; g < n; g++) {
        struct region *r = gs[g].r;
        for (; gs[g].pending; gs[g].pending--) {
            uint32_t b = (gs[g].next + NBUFS - gs[g].pending) % NBUFS;
            if (r->state[b] != 0x01)
                return false;
            for (uint32_t e = 0; e < NSBALE; e++) {
                struct sbale *se = &r->sbal[b][e];
                if (se->addr % PAGE || se->addr / PAGE >= NSETS * NSBALE)
                    return false;               /* checked before it is read through */
                uint8_t *p = r->in[se->addr / PAGE];
                uint64_t m = get_mac(p) - mac_of(0);
                uint32_t seq;
                if (se->len != FRAME || m < gs[g].first || m >= gs[g].first + gs[g].count)
                    return false;
                memcpy(&seq, p + 12, sizeof seq);
                *sum += seq;
                ++*frames;
                memset(p, 0, 16);
                uint32_t flags = se->flags;
                *se = (struct sbale){ 0, 0, 0 };
                if (flags & LAST_ENTRY)
                    break;
            }
            r->state[b] = 0;
        }
    }
    return true;
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
    uint64_t done = 0, sent_sum = 0, got_sum = 0, got = 0;
    uint32_t seq = 0;
    for (uint32_t who = 0, burst = 1; done < frames; who = (who + 1) % n, burst++) {
        uint32_t seq0 = seq;
        build_burst(gs, n, who, &seq);
        for (uint32_t k = seq0 + 1; k != seq + 1; k++)
            sent_sum += k;
        double t0 = now_s();
        forward_burst(gs, &gs[who], burst);
        busy += now_s() - t0;
        done += BURST;
        if (!drain(gs, n, &got_sum, &got) || got != done || got_sum != sent_sum) {
            fprintf(stderr, "scale_floor: a frame lost or misplaced at burst %u\n", burst);
            exit(1);
        }
    }
    for (uint32_t g = 0; g < n; g++)
        munmap(gs[g].r, REGION);
    free(gs);
    free(table);
    return (double)done / busy / 1e6;
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
    return 0;
}
