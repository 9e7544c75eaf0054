/* awm: the two workload shapes of the IBM report's AWM runs, on plain TCP sockets.
 *
 *   awm server PORT                          serve until killed (SIGTERM)
 *   awm client HOST PORT str|rr THREADS SECS [WARMUP]
 *
 * STR: the client sends 20 bytes, the server answers 20 MB; repeated. RR: the client
 * sends 200 bytes, the server answers 1000; one transaction in flight per connection.
 * The request's first byte says which (S or R), so one server serves both shapes.
 * THREADS connections, one thread each. Counting starts after WARMUP seconds (default 0)
 * and lasts SECS; the client prints one line:
 *   AWM mode=str threads=10 secs=20.000 bytes=2459000000 tx=117 mb_s=117.25 tx_s=5.85
 * bytes: response bytes received in the counted window (partial STR answers included),
 * tx: transactions completed in it. Exit 0, or 1 when a connection failed.
 *
 * Why not iperf3/netperf: neither does both shapes with many connections and the
 * report's sizes in one run (netperf TCP_RR does RR, TCP_CRR/STREAM not 20 MB answers).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define STR_REQ   20
#define STR_RESP  (20u * 1000u * 1000u)
#define RR_REQ    200
#define RR_RESP   1000
#define MAX_THREADS 256

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

static int write_full(int fd, const void *buf, size_t n)
{
    size_t put = 0;
    while (put < n) {
        ssize_t r = write(fd, (const char *)buf + put, n - put);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        put += (size_t)r;
    }
    return 0;
}

/* ---- server -------------------------------------------------------------------------- */

static void *serve_conn(void *arg)
{
    int fd = (int)(intptr_t)arg;
    static char zeros[256 * 1024];
    char req[RR_REQ];
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    for (;;) {
        if (read_full(fd, req, 1) < 0)
            break;
        if (req[0] == 'S') {
            if (read_full(fd, req + 1, STR_REQ - 1) < 0)
                break;
            size_t left = STR_RESP;
            while (left) {
                size_t n = left < sizeof(zeros) ? left : sizeof(zeros);
                if (write_full(fd, zeros, n) < 0)
                    goto out;
                left -= n;
            }
        } else {
            if (read_full(fd, req + 1, RR_REQ - 1) < 0 || write_full(fd, zeros, RR_RESP) < 0)
                break;
        }
    }
out:
    close(fd);
    return NULL;
}

static int server(int port)
{
    int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(ls, 512) < 0) {
        perror("awm server");
        return 1;
    }
    for (;;) {
        int fd = accept(ls, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR)
                continue;
            perror("accept");
            return 1;
        }
        pthread_t t;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&at, 256 * 1024);
        if (pthread_create(&t, &at, serve_conn, (void *)(intptr_t)fd) != 0)
            close(fd);
        pthread_attr_destroy(&at);
    }
}

/* ---- client -------------------------------------------------------------------------- */

static struct sockaddr_in target;
static int rr;                          /* 1: RR, 0: STR */
static double t_start, t_end;           /* counting window */
static atomic_uint_fast64_t total_bytes, total_tx;
static atomic_int failed;

static int in_window(double t) { return t >= t_start && t < t_end; }

static void *client_conn(void *arg)
{
    (void)arg;
    static char zeros[RR_REQ];
    char *buf = malloc(256 * 1024);
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (!buf || fd < 0 || connect(fd, (struct sockaddr *)&target, sizeof(target)) < 0) {
        perror("awm client connect");
        atomic_store(&failed, 1);
        free(buf);
        return NULL;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    /* A 20 MB answer may be half way at the end of the window: wake up to notice it. */
    struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    char req[RR_REQ];
    memcpy(req, zeros, sizeof(req));
    req[0] = rr ? 'R' : 'S';
    size_t req_len = rr ? RR_REQ : STR_REQ, resp_len = rr ? RR_RESP : STR_RESP;
    while (now_s() < t_end) {
        if (write_full(fd, req, req_len) < 0)
            goto bad;
        size_t left = resp_len;
        while (left) {
            size_t want = left < 256 * 1024 ? left : 256 * 1024;
            ssize_t r = read(fd, buf, want);
            double t = now_s();
            if (t >= t_end)
                goto done;
            if (r < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (r <= 0)
                goto bad;
            left -= (size_t)r;
            if (in_window(t))
                atomic_fetch_add(&total_bytes, (uint64_t)r);
        }
        if (in_window(now_s()))
            atomic_fetch_add(&total_tx, 1);
    }
done:
    close(fd);
    free(buf);
    return NULL;
bad:
    if (now_s() < t_end) {
        fprintf(stderr, "awm client: connection lost\n");
        atomic_store(&failed, 1);
    }
    close(fd);
    free(buf);
    return NULL;
}

static int client(const char *host, int port, const char *mode, int threads, double secs,
                  double warm)
{
    pthread_t t[MAX_THREADS];
    target.sin_family = AF_INET;
    target.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &target.sin_addr) != 1 || threads < 1 ||
        threads > MAX_THREADS || secs <= 0 || warm < 0 ||
        (strcmp(mode, "str") && strcmp(mode, "rr"))) {
        fprintf(stderr, "awm client: bad arguments\n");
        return 2;
    }
    rr = strcmp(mode, "rr") == 0;
    t_start = now_s() + warm;
    t_end = t_start + secs;
    int started = 0;
    for (int i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, client_conn, NULL) == 0)
            started++;
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    uint64_t b = atomic_load(&total_bytes), x = atomic_load(&total_tx);
    printf("AWM mode=%s threads=%d secs=%.3f bytes=%llu tx=%llu mb_s=%.2f tx_s=%.2f\n", mode,
           threads, secs, (unsigned long long)b, (unsigned long long)x, b / secs / 1e6,
           x / secs);
    return atomic_load(&failed) || started < threads ? 1 : 0;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    if (argc == 3 && strcmp(argv[1], "server") == 0)
        return server(atoi(argv[2]));
    if ((argc == 7 || argc == 8) && strcmp(argv[1], "client") == 0)
        return client(argv[2], atoi(argv[3]), argv[4], atoi(argv[5]), atof(argv[6]),
                      argc == 8 ? atof(argv[7]) : 0.0);
    fprintf(stderr, "usage: awm server PORT\n"
                    "       awm client HOST PORT str|rr THREADS SECS [WARMUP]\n");
    return 2;
}
