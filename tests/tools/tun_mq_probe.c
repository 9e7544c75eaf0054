/* tun_mq_probe: what a multi-queue tap (IFF_MULTI_QUEUE) would change for a reader like
 * vswitchd's guest_tap driver, the measurement behind tests/bench/README.md's
 * "Multi-queue taps, measured" (issue 23).
 *
 *   tun_mq_probe [--seconds S] [--rounds R] [--flows F] [--senders N] [--only SHAPE]
 *                [--size 64|1472]
 *
 * Root; the probe unshares a network namespace of its own, so nothing outlives it. In it a
 * tap mq0 (IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, offloads CSUM|TSO4|TSO6|TSO_ECN, as
 * backends/guest_tap.c sets it) is up with 10.0.0.1/24 and a permanent neighbour 10.0.0.2
 * behind it. N sender threads (1 unless told) flood F UDP flows (8 unless told) to
 * 10.0.0.2:9, source ports 40000 + i, sendmmsg of 32 a socket in turn, through the
 * namespace's kernel into the tap, which picks each frame's queue (tun_select_queue). The
 * shapes:
 *   1q      one queue, no IFF_MULTI_QUEUE, one reader thread (guest_tap today)
 *   1q2000  the same with txqueuelen 2000, each queue's ring of frames (the kernel's is
 *           1000): mq2's two rings of buffering in one, to tell that from the queues
 *   mq2     IFF_MULTI_QUEUE, 2 queue fds, one reader thread over both
 *   mq4     IFF_MULTI_QUEUE, 4 queue fds, one reader thread over all four
 *   mq2x2   IFF_MULTI_QUEUE, 2 queue fds, a reader thread each
 * A reader is guest_tap's pump_out without the switch: a level-triggered epoll over its
 * fds, and for each ready fd up to 32 readv([virtio_net_hdr][frame]) until EAGAIN.
 *
 * Each shape runs S seconds (2 unless told; 0.3 s of warm-up first) at 64- and 1472-byte
 * payloads, R rounds (3 unless told), the shapes' order rotating a round. Per run: the
 * readers' CPU time (their threads' clocks, summed) over the frames they read, frames/s,
 * their voluntary context switches (wake-ups) and system calls (epoll_wait, readv, the
 * empty ones too) a frame, the tap's drops (a full ring) over the frames sent, the share
 * of each queue. Then per shape and size the median and the range of the rounds, and the
 * queue each flow's frames came from in the first round (-1: more than one).
 *
 * Under callgrind (user space only: the kernel's side of readv and epoll_wait is not
 * counted) the readers' instructions are those under reader_loop:
 *   valgrind --tool=callgrind --toggle-collect=reader_loop tun_mq_probe --only 1q --size 64
 * and the probe prints the frames read in all, warm-up included, to divide by.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum { MAXQ = 4, MAXFLOWS = 16, MAXSENDERS = 4, BURST = 32, MAXROUNDS = 15, NSIZES = 2,
       NSHAPES = 5 };

/* qlen: the tap's txqueuelen, each queue's ring of frames (0: the kernel's 1000). */
struct shape { const char *name; int queues, threads; bool mq; int qlen; };
static const struct shape shapes[NSHAPES] = {
    { "1q", 1, 1, false, 0 }, { "1q2000", 1, 1, false, 2000 }, { "mq2", 2, 1, true, 0 },
    { "mq4", 4, 1, true, 0 }, { "mq2x2", 2, 2, true, 0 },
};
static const int sizes[NSIZES] = { 64, 1472 };

static int nflows = 8, nsenders = 1;
static atomic_int phase;                /* 0 warm-up, 1 measuring, 2 stop */

struct reader {
    pthread_t th;
    int fd[MAXQ], qidx[MAXQ], n;
    uint64_t frames, frames_at[2], cpu_ns[2], nvcsw[2];
    uint64_t calls, calls_at[2];        /* epoll_wait and readv calls, the empty ones too */
    uint64_t per_q[MAXQ], flow_q[MAXFLOWS][MAXQ];
};

struct run {                            /* one shape at one size, one round */
    double ns_per_frame, fps, wakeups, calls, drop_share, q_share[MAXQ];
    uint64_t frames_all;
    int flow_q[MAXFLOWS];               /* the queue a flow's frames came from, -1 several */
};

static int sh(const char *cmd)
{
    int rc = system(cmd);
    if (rc != 0)
        fprintf(stderr, "failed (%d): %s\n", rc, cmd);
    return rc;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sample(struct reader *r, int i)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    r->cpu_ns[i] = thread_cpu_ns();
    r->nvcsw[i] = (uint64_t)ru.ru_nvcsw;
    r->frames_at[i] = r->frames;
    r->calls_at[i] = r->calls;
}

/* guest_tap's pump_out without the switch: what each ready queue fd costs a frame. */
static void *reader_loop(void *arg)
{
    struct reader *r = arg;
    static _Thread_local unsigned char buf[65536];
    struct virtio_net_hdr vh;
    struct iovec iov[2] = { { &vh, sizeof vh }, { buf, sizeof buf } };
    struct epoll_event ev[64];
    int ep = epoll_create1(0), seen = 0;

    if (ep < 0) {
        perror("epoll_create1");
        exit(1);
    }
    for (int i = 0; i < r->n; i++) {
        struct epoll_event e = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
        epoll_ctl(ep, EPOLL_CTL_ADD, r->fd[i], &e);
    }
    while (seen < 2) {
        int n = epoll_wait(ep, ev, 64, 10);
        r->calls++;
        for (int k = 0; k < n; k++) {
            int i = (int)ev[k].data.u32;
            for (int b = 0; b < BURST; b++) {
                ssize_t len = readv(r->fd[i], iov, 2);
                r->calls++;
                if (len < 0)
                    break;
                r->frames++;
                r->per_q[i]++;
                /* The UDP source port names the flow: Ethernet 14 + IPv4 20 bytes in. */
                if (len >= (ssize_t)(sizeof vh + 36)) {
                    unsigned sport = (unsigned)buf[34] << 8 | buf[35];
                    if (sport >= 40000 && sport < 40000u + (unsigned)nflows)
                        r->flow_q[sport - 40000][i]++;
                }
            }
        }
        int p = atomic_load(&phase);
        while (seen < p)
            sample(r, seen++);
    }
    close(ep);
    return NULL;
}

struct sender { pthread_t th; int size, first; _Atomic uint64_t sent; };

static void *sender_loop(void *arg)
{
    struct sender *s = arg;
    static char payload[1472];
    struct iovec iov = { payload, (size_t)s->size };
    struct mmsghdr m[BURST];
    int fd[MAXFLOWS];

    memset(m, 0, sizeof m);
    for (int i = 0; i < BURST; i++) {
        m[i].msg_hdr.msg_iov = &iov;
        m[i].msg_hdr.msg_iovlen = 1;
    }
    for (int f = s->first; f < nflows; f += nsenders) {
        struct sockaddr_in src = { .sin_family = AF_INET,
                                   .sin_port = htons((uint16_t)(40000 + f)),
                                   .sin_addr.s_addr = htonl(0x0a000001) };
        struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(9),
                                   .sin_addr.s_addr = htonl(0x0a000002) };
        fd[f] = socket(AF_INET, SOCK_DGRAM, 0);
        if (fd[f] < 0 || bind(fd[f], (struct sockaddr *)&src, sizeof src) < 0 ||
            connect(fd[f], (struct sockaddr *)&dst, sizeof dst) < 0) {
            perror("sender socket");
            exit(2);
        }
    }
    while (atomic_load(&phase) < 2)
        for (int f = s->first; f < nflows; f += nsenders) {
            int n = sendmmsg(fd[f], m, BURST, MSG_DONTWAIT);
            if (n > 0)
                s->sent += (uint64_t)n;
            else
                sched_yield();          /* EAGAIN, ENOBUFS: let the readers run */
        }
    for (int f = s->first; f < nflows; f += nsenders)
        close(fd[f]);
    return NULL;
}

static uint64_t sent_all(struct sender *snd)
{
    uint64_t n = 0;
    for (int j = 0; j < nsenders; j++)
        n += atomic_load(&snd[j].sent);
    return n;
}

/* The tap's tx_dropped (frames its full queues refused) from /proc/net/dev: this
 * namespace's view, where /sys/class/net is the one sysfs was mounted in. */
static uint64_t tap_drops(void)
{
    char line[256];
    unsigned long long v[12], drops = 0;
    FILE *f = fopen("/proc/net/dev", "r");

    while (f && fgets(line, sizeof line, f)) {
        char *p = strstr(line, "mq0:");
        if (p && sscanf(p + 4, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
                        &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
                        &v[9], &v[10], &v[11]) == 12)
            drops = v[11];
    }
    if (f)
        fclose(f);
    return drops;
}

static int open_queue(bool mq)
{
    struct ifreq ifr;
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK), le = 1;

    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | (mq ? IFF_MULTI_QUEUE : 0);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "mq0");
    if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) < 0 || ioctl(fd, TUNSETVNETLE, &le) < 0 ||
        ioctl(fd, TUNSETOFFLOAD,
              (unsigned long)(TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN)) < 0) {
        perror("tap mq0");
        exit(2);
    }
    return fd;
}

static void run_shape(const struct shape *sp, int size, double seconds, struct run *out)
{
    struct reader rd[2];
    struct sender snd[MAXSENDERS];
    int fds[MAXQ];

    memset(rd, 0, sizeof rd);
    for (int q = 0; q < sp->queues; q++)
        fds[q] = open_queue(sp->mq);
    char cmd[80];
    snprintf(cmd, sizeof cmd, "ip link set mq0 txqueuelen %d", sp->qlen);
    if ((sp->qlen && sh(cmd)) ||
        sh("ip link set mq0 up && ip addr add 10.0.0.1/24 dev mq0 && "
           "ip neigh replace 10.0.0.2 lladdr 02:00:00:00:00:02 dev mq0 nud permanent"))
        exit(2);
    for (int q = 0; q < sp->queues; q++) {   /* queue q to thread q % threads */
        struct reader *r = &rd[q % sp->threads];
        r->qidx[r->n] = q;
        r->fd[r->n++] = fds[q];
    }
    atomic_store(&phase, 0);
    for (int t = 0; t < sp->threads; t++)
        if (pthread_create(&rd[t].th, NULL, reader_loop, &rd[t]) != 0) {
            fprintf(stderr, "cannot start a reader thread\n");
            exit(1);
        }
    for (int j = 0; j < nsenders; j++) {
        snd[j].size = size;
        snd[j].first = j;
        atomic_store(&snd[j].sent, 0);
        if (pthread_create(&snd[j].th, NULL, sender_loop, &snd[j]) != 0) {
            fprintf(stderr, "cannot start a sender thread\n");
            exit(1);
        }
    }
    usleep(300000);
    uint64_t d0 = tap_drops(), s0 = sent_all(snd);
    double t0 = now_s();
    atomic_store(&phase, 1);
    usleep((useconds_t)(seconds * 1e6));
    atomic_store(&phase, 2);
    double wall = now_s() - t0;
    uint64_t d1 = tap_drops(), s1 = sent_all(snd);
    for (int j = 0; j < nsenders; j++)
        pthread_join(snd[j].th, NULL);
    for (int t = 0; t < sp->threads; t++)
        pthread_join(rd[t].th, NULL);

    uint64_t frames = 0, cpu = 0, vcsw = 0, calls = 0, all = 0, per_q[MAXQ] = { 0 };
    memset(out, 0, sizeof *out);
    for (int t = 0; t < sp->threads; t++) {
        struct reader *r = &rd[t];
        frames += r->frames_at[1] - r->frames_at[0];
        cpu += r->cpu_ns[1] - r->cpu_ns[0];
        vcsw += r->nvcsw[1] - r->nvcsw[0];
        calls += r->calls_at[1] - r->calls_at[0];
        all += r->frames;
        for (int i = 0; i < r->n; i++)
            per_q[r->qidx[i]] += r->per_q[i];
    }
    for (int f = 0; f < nflows; f++) {
        out->flow_q[f] = -2;            /* no frame seen */
        for (int t = 0; t < sp->threads; t++)
            for (int i = 0; i < rd[t].n; i++)
                if (rd[t].flow_q[f][i])
                    out->flow_q[f] = out->flow_q[f] == -2 ? rd[t].qidx[i] : -1;
    }
    if (frames == 0) {                  /* nothing read: no figure, not the cheapest one */
        fprintf(stderr, "%s, %d B: the readers got no frame in the measured window (%llu "
                "sent)\n", sp->name, size, (unsigned long long)(s1 - s0));
        exit(1);
    }
    out->frames_all = all;
    out->ns_per_frame = frames ? (double)cpu / (double)frames : 0;
    out->fps = (double)frames / wall;
    out->wakeups = frames ? (double)vcsw / (double)frames : 0;
    out->calls = frames ? (double)calls / (double)frames : 0;
    out->drop_share = s1 > s0 ? (double)(d1 - d0) / (double)(s1 - s0) : 0;
    for (int q = 0; q < sp->queues; q++)
        out->q_share[q] = all ? (double)per_q[q] / (double)all : 0;
    for (int q = 0; q < sp->queues; q++)
        close(fds[q]);                  /* not persistent: the tap goes with its last fd */
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* "median (min-max)" of the rounds' values, scaled, with dec decimals and a unit. */
static void stat3(char *s, size_t n, const double *v, int k, double scale, int dec,
                  const char *unit)
{
    double w[MAXROUNDS], med;

    memcpy(w, v, (size_t)k * sizeof *w);
    qsort(w, (size_t)k, sizeof *w, cmp_double);
    med = k % 2 ? w[k / 2] : (w[k / 2 - 1] + w[k / 2]) / 2;
    snprintf(s, n, "%.*f%s (%.*f-%.*f)", dec, med * scale, unit, dec, w[0] * scale, dec,
             w[k - 1] * scale);
}

int main(int argc, char **argv)
{
    static struct run res[NSIZES][NSHAPES][MAXROUNDS];
    double seconds = 2;
    int rounds = 3, only = -1, only_size = -1;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seconds"))
            seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--rounds"))
            rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--flows"))
            nflows = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--senders"))
            nsenders = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--size")) {
            only_size = !strcmp(argv[i + 1], "64") ? 0 : !strcmp(argv[i + 1], "1472") ? 1 : -2;
            if (only_size == -2) {
                fprintf(stderr, "--size takes 64 or 1472\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--only")) {
            for (int s = 0; s < NSHAPES; s++)
                if (!strcmp(argv[i + 1], shapes[s].name))
                    only = s;
            if (only < 0) {
                fprintf(stderr, "--only: no shape %s\n", argv[i + 1]);
                return 2;
            }
        } else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (rounds < 1 || rounds > MAXROUNDS || nflows < 1 || nflows > MAXFLOWS || seconds <= 0 ||
        nsenders < 1 || nsenders > MAXSENDERS || nsenders > nflows) {
        fprintf(stderr, "rounds 1-%d, flows 1-%d, senders 1-%d and at most the flows, "
                "seconds > 0\n", MAXROUNDS, MAXFLOWS, MAXSENDERS);
        return 2;
    }
    if (unshare(CLONE_NEWNET) < 0) {
        perror("unshare(CLONE_NEWNET) (root?)");
        return 2;
    }
    if (sh("ip link set lo up && sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
           "net.ipv6.conf.default.disable_ipv6=1"))
        return 2;

    for (int r = 0; r < rounds; r++)
        for (int z = 0; z < NSIZES; z++)
            for (int k = 0; k < NSHAPES; k++) {
                int s = (k + r) % NSHAPES;      /* the order rotates a round */
                if ((only >= 0 && s != only) || (only_size >= 0 && z != only_size))
                    continue;
                struct run *o = &res[z][s][r];
                run_shape(&shapes[s], sizes[z], seconds, o);
                printf("round %d %4d B %-6s %5.0f ns/frame %7.0f frames/s %.3f wake-ups "
                       "%.2f calls /frame, drops %4.1f %%, queues", r + 1, sizes[z],
                       shapes[s].name, o->ns_per_frame, o->fps, o->wakeups, o->calls,
                       o->drop_share * 100);
                for (int q = 0; q < shapes[s].queues; q++)
                    printf(" %.0f%%", o->q_share[q] * 100);
                printf(" (%llu frames in all)\n", (unsigned long long)o->frames_all);
                fflush(stdout);
            }

    printf("\nmedian (range) of %d rounds; wake-ups, calls (epoll_wait, readv) a frame; drops "
           "of the frames sent, %%\n", rounds);
    for (int z = 0; z < NSIZES; z++)
        for (int s = 0; s < NSHAPES; s++) {
            double v[5][MAXROUNDS];
            char c[5][96];
            if ((only >= 0 && s != only) || (only_size >= 0 && z != only_size))
                continue;
            for (int r = 0; r < rounds; r++) {
                v[0][r] = res[z][s][r].ns_per_frame;
                v[1][r] = res[z][s][r].fps;
                v[2][r] = res[z][s][r].wakeups;
                v[3][r] = res[z][s][r].calls;
                v[4][r] = res[z][s][r].drop_share;
            }
            stat3(c[0], sizeof c[0], v[0], rounds, 1, 0, " ns");
            stat3(c[1], sizeof c[1], v[1], rounds, 1e-3, 0, "k/s");
            stat3(c[2], sizeof c[2], v[2], rounds, 1, 3, "");
            stat3(c[3], sizeof c[3], v[3], rounds, 1, 2, "");
            stat3(c[4], sizeof c[4], v[4], rounds, 100, 1, "");
            printf("%-6s %4d B | %s | %s | %s | %s | %s\n", shapes[s].name, sizes[z],
                   c[0], c[1], c[2], c[3], c[4]);
        }
    for (int s = 0; s < NSHAPES; s++) {
        int z = only_size >= 0 ? only_size : 0;
        if ((only >= 0 && s != only) || !shapes[s].mq)
            continue;
        printf("%s: each flow's queue (source port: queue; -1 several):", shapes[s].name);
        for (int f = 0; f < nflows; f++)
            printf(" %d:%d", 40000 + f, res[z][s][0].flow_q[f]);
        printf("\n");
    }
    return 0;
}
