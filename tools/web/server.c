/* perfkit serve's HTTP server (web.h): listens only where configured (loopback by
 * default), answers GET and HEAD only (read-only: no CP command reaches vswitchd from
 * here), and refuses, counting each in /metrics: other methods (405), paths with ".." or
 * control characters (400), unknown pages (404), request headers over WEB_MAX_HEADERS
 * (431; past the connection's memory limit libmicrohttpd refuses them itself, counted
 * when the request ends), and connections past WEB_MAX_CONNS_IP from one address or
 * WEB_MAX_CONNS in all (closed at accept: conns.c).
 *
 * libmicrohttpd (GNU, Debian's libmicrohttpd-dev) runs the connections in its own thread
 * with epoll or poll; the records are read by a second thread (store_follow). Pages are
 * made under the store's lock from whole groups. */
#include "tools/web/web.h"
#include "tools/web/conns.h"
#include "tools/web/request.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define MHD_MEMORY_LIMIT (32u * 1024u)  /* per connection: past it, libmicrohttpd says 431 */

static int uri_seen, handled;           /* request markers: their addresses only */

static void refuse_count(struct web *w, enum metrics_refusal r)
{
    __atomic_fetch_add(&w->refused[r], 1, __ATOMIC_RELAXED);
}

static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t len)
{
    struct web *w = cls;
    (void)len;
    if (!conns_may_open(w->conns, addr)) {
        refuse_count(w, REFUSED_CONNECTIONS);
        return MHD_NO;
    }
    return MHD_YES;
}

/* Counts connections per client address; the address is kept with the connection (its
 * socket context) for the close. */
static void notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                              enum MHD_ConnectionNotificationCode toe)
{
    struct web *w = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        struct sockaddr_storage *ss = calloc(1, sizeof(*ss));
        if (ss && ci && ci->client_addr)
            memcpy(ss, ci->client_addr, ci->client_addr->sa_family == AF_INET6 ?
                   sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
        *socket_context = ss;
        conns_open(w->conns, (struct sockaddr *)ss);
    } else {
        conns_close(w->conns, (struct sockaddr *)*socket_context);
        free(*socket_context);
        *socket_context = NULL;
    }
}

/* Every request that got as far as its request line; its marker until the handler runs. */
static void *uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls;
    (void)uri;
    (void)c;
    return &uri_seen;
}

/* A request that ended before our handler saw it: libmicrohttpd refused it (its headers
 * overflowed the connection's memory, or were malformed). */
static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    (void)c;
    if (*con_cls == &uri_seen && toe != MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN &&
        toe != MHD_REQUEST_TERMINATED_CLIENT_ABORT)
        refuse_count(cls, REFUSED_HEADERS);
}

static enum MHD_Result add_size(void *cls, enum MHD_ValueKind kind, const char *key,
                                const char *value)
{
    size_t *n = cls;
    (void)kind;
    *n += strlen(key) + (value ? strlen(value) : 0) + 4;    /* ": " and CRLF */
    return MHD_YES;
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, char *text,
                              size_t len, const char *ctype)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(text);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'self'; script-src 'self' 'unsafe-inline'; "
                            "style-src 'unsafe-inline'; img-src 'self' data:");
    if (status == request_status(REFUSED_METHOD))
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result plain(struct MHD_Connection *c, unsigned status, const char *msg)
{
    char *text = strdup(msg);
    return text ? answer(c, status, text, strlen(text), "text/plain; charset=utf-8") : MHD_NO;
}

static const char *const HTML = "text/html; charset=utf-8";

/* The page for url; its status, and *ctype. Lock held. */
static int route(struct web *w, struct MHD_Connection *c, const char *url, struct wbuf *out,
                 const char **ctype)
{
    *ctype = HTML;
    if (strcmp(url, "/") == 0)
        return page_menu(w, out);
    if (strcmp(url, "/metrics") == 0) {
        uint64_t refused[REFUSED_NREASONS];
        for (unsigned r = 0; r < REFUSED_NREASONS; r++)
            refused[r] = __atomic_load_n(&w->refused[r], __ATOMIC_RELAXED);
        metrics_write(w->m, &w->st, refused, out);
        *ctype = "text/plain; version=0.0.4; charset=utf-8";
        return 200;
    }
    if (strcmp(url, "/charts") == 0)
        return page_charts(w, out);
    if (strcmp(url, "/charts/part") == 0)
        return page_charts_part(w, out);
    if (strcmp(url, "/data/charts.json") == 0) {
        *ctype = "application/json";
        return data_charts(w, out);
    }
    if (strcmp(url, "/errors") == 0)
        return page_errors(w, out);
    const char *i = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "i");
    const char *t = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "t");
    if (t && !*t)
        t = NULL;                       /* the form sent without a time: the latest */
    return page_screen(w, url + 1, i, t, out);
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version,
                               const char *upload_data, size_t *upload_data_size,
                               void **con_cls)
{
    struct web *w = cls;
    (void)version;
    (void)upload_data;
    if (*con_cls != &handled) {
        *con_cls = &handled;            /* headers are in: decide now, before any body */
        size_t n = strlen(url) + strlen(method) + 16;
        MHD_get_connection_values(c, MHD_HEADER_KIND, add_size, &n);
        MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_size, &n);
        enum metrics_refusal why = request_check(method, url, n);
        if (why != REFUSED_NREASONS) {
            static const char *const msg[REFUSED_NREASONS] = {
                [REFUSED_METHOD] = "read-only: GET and HEAD only\n",
                [REFUSED_PATH] = "bad path\n",
                [REFUSED_HEADERS] = "request headers too large\n",
            };
            refuse_count(w, why);
            return plain(c, request_status(why), msg[why] ? msg[why] : "refused\n");
        }
    }
    if (*upload_data_size) {            /* a GET with a body: read and ignored */
        *upload_data_size = 0;
        return MHD_YES;
    }
    struct wbuf out;
    const char *ctype;
    wbuf_init(&out);
    pthread_mutex_lock(&w->st.lock);
    int status = route(w, c, url, &out, &ctype);
    pthread_mutex_unlock(&w->st.lock);
    if (status < 0) {
        wbuf_free(&out);
        refuse_count(w, REFUSED_NOT_FOUND);
        return plain(c, MHD_HTTP_NOT_FOUND, "no such screen or page\n");
    }
    size_t len;
    char *text = wbuf_take(&out, &len);
    if (!text)
        return plain(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    return answer(c, (unsigned)status, text, len, ctype);
}

/* "host:port" or "[v6]:port" into *ss. 0 or -EINVAL. */
static int parse_listen(const char *s, struct sockaddr_storage *ss, bool *v6)
{
    char host[64];
    const char *colon = strrchr(s, ':');
    if (!colon || (size_t)(colon - s) >= sizeof(host))
        return -EINVAL;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    char *end;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (*end || !colon[1] || port > 65535)
        return -EINVAL;
    size_t hl = strlen(host);
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = '\0';
    }
    struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
                              .ai_socktype = SOCK_STREAM }, *ai;
    if (getaddrinfo(host, NULL, &hints, &ai) != 0)
        return -EINVAL;
    memcpy(ss, ai->ai_addr, ai->ai_addrlen);
    *v6 = ai->ai_family == AF_INET6;
    freeaddrinfo(ai);
    if (*v6)
        ((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
    else
        ((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
    return 0;
}

struct follower {
    struct web *w;
    struct store_source src;
};

static void *follow(void *arg)
{
    struct follower *f = arg;
    store_follow(&f->w->st, &f->src);
    return NULL;
}

int web_serve(const struct web_opts *o)
{
    static struct web w;
    struct sockaddr_storage ss;
    bool v6 = false;
    const char *listen = o->listen ? o->listen : WEB_DEFAULT_LISTEN;

    if (parse_listen(listen, &ss, &v6) < 0) {
        fprintf(stderr, "perfkit: --listen %s: not an address:port\n", listen);
        return -EINVAL;
    }
    /* Below vswitchd and its guests, at the lowest priority: a flood of requests may slow
     * the pages, never take a core from forwarding (bench_web.sh: iperf3 through vswitchd
     * during a flood; at nice 10 the server still took 0.12-0.25 of a core from a busy
     * machine). Set before any thread starts, so that every thread has it. */
    if (setpriority(PRIO_PROCESS, 0, WEB_NICE) < 0)
        fprintf(stderr, "perfkit: cannot lower its priority: %s\n", strerror(errno));
    memset(&w, 0, sizeof(w));
    w.o = o;
    int rc = store_init(&w.st);
    if (rc < 0)
        return rc;
    w.st.max_samples = STORE_MAX_SAMPLES;
    w.st.max_events = STORE_MAX_EVENTS;
    w.m = metrics_new();
    w.conns = conns_new(o->max_conns ? o->max_conns : WEB_MAX_CONNS, WEB_MAX_CONNS_IP);
    if (!w.m || !w.conns) {
        metrics_free(w.m);
        conns_free(w.conns);
        store_destroy(&w.st);
        return -ENOMEM;
    }
    w.st.on_sample = metrics_on_sample;
    w.st.on_sample_arg = w.m;

    /* Signals go to the thread that waits for them, not to the server's threads. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    volatile int stop = 0;
    struct follower f = { .w = &w, .src = { .file = o->file, .live = o->live, .stop = &stop } };
    pthread_t reader;
    rc = store_open(&f.src);
    if (rc < 0) {
        fprintf(stderr, "perfkit: %s: %s\n", o->live ? o->live : o->file, strerror(-rc));
        goto out;
    }
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0), 0,
        accept_policy, &w, handler, &w,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)(o->max_conns ? o->max_conns : WEB_MAX_CONNS) + 8,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)WEB_CONN_TIMEOUT_S,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)WEB_LISTEN_BACKLOG,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MHD_MEMORY_LIMIT,
        MHD_OPTION_NOTIFY_CONNECTION, notify_connection, &w,
        MHD_OPTION_URI_LOG_CALLBACK, uri_log, &w,
        MHD_OPTION_NOTIFY_COMPLETED, completed, &w,
        MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "perfkit: cannot listen on %s\n", listen);
        rc = -EADDRNOTAVAIL;
        goto out_source;
    }
    if (pthread_create(&reader, NULL, follow, &f) != 0) {
        rc = -EAGAIN;
        MHD_stop_daemon(d);
        goto out_source;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    char host[64];
    if (v6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof(host));
    else
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof(host));
    printf("perfkit: serving http://%s%s%s:%u/ from %s %s\n", v6 ? "[" : "", host,
           v6 ? "]" : "", info ? info->port : 0, o->live ? "live stream" : "monitor file",
           o->live ? o->live : o->file);
    fflush(stdout);
    int sig;
    sigwait(&sigs, &sig);
    stop = 1;
    MHD_stop_daemon(d);
    pthread_join(reader, NULL);         /* it closes the source */
    rc = 0;
    goto out;
out_source:
    zvs_mon_reader_close(f.src.rd);
    if (f.src.fd >= 0)
        close(f.src.fd);
out:
    conns_free(w.conns);
    metrics_free(w.m);
    store_destroy(&w.st);
    return rc;
}
