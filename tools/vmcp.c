/* vmcp: send CP commands to vswitchd's operator console (protocol in
 * cp-commands/console_protocol.h).
 *
 *   vmcp [-s SOCKET] 'QUERY VSWITCH CCBVSW1 DETAILS'   one command; exit status = CP rc
 *   vmcp [-s SOCKET]                                   one command per stdin line
 * The command may also be given as several arguments (joined with blanks, as Linux's vmcp
 * does). Socket: -s, else $ZVS_CONSOLE, else /run/zvswitch/console.sock.
 * Exit status: the CP return code (of the last command in interactive mode), capped at
 * 255; 1 with a message on stderr when the daemon cannot be reached or the connection
 * breaks. Blank stdin lines are skipped; a prompt is shown when stdin is a terminal.
 * Hazards: a daemon that stops answering would hang us; replies are awaited at most
 * REPLY_TIMEOUT_S seconds.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "cp-commands/console_protocol.h"

#define REPLY_TIMEOUT_S 60

struct conn {
    int    fd;
    char   buf[4096];                   /* received, not yet consumed */
    size_t len;
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: vmcp [-s SOCKET] [CP command ...]\n"
            "  Sends a CP command to vswitchd and prints the response; the exit status is the\n"
            "  CP return code (capped at 255; 1 when the daemon cannot be reached).\n"
            "  Without a command: reads one command per line from stdin.\n"
            "  -s, --socket SOCKET  console socket (default $ZVS_CONSOLE or %s)\n"
            "  -h, --help           this help\n",
            ZVS_CONSOLE_DEFAULT_PATH);
}

static int conn_open(struct conn *c, const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct timeval tv = { .tv_sec = REPLY_TIMEOUT_S };

    if (strlen(path) >= sizeof sa.sun_path) {
        fprintf(stderr, "vmcp: socket path too long: %s\n", path);
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    c->len = 0;
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        fprintf(stderr, "vmcp: cannot reach vswitchd at %s: %s\n", path, strerror(errno));
        if (c->fd >= 0)
            close(c->fd);
        return -1;
    }
    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    return 0;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Prints response lines up to the terminator; returns the rc, or -1 (reported). */
static int read_response(struct conn *c)
{
    for (;;) {
        char *nl;
        while ((nl = memchr(c->buf, '\n', c->len)) != NULL) {
            size_t n = (size_t)(nl - c->buf) + 1;
            bool last = c->buf[0] == ZVS_CONSOLE_RS;
            int rc = -1;
            if (last) {
                char tail[32];
                size_t tn = n - 1 < sizeof tail - 1 ? n - 1 : sizeof tail - 1;
                memcpy(tail, c->buf, tn);
                tail[tn] = '\0';
                if (sscanf(tail + 1, "RC=%d", &rc) != 1 || rc < 0) {
                    fprintf(stderr, "vmcp: malformed response terminator\n");
                    return -1;
                }
            } else {
                fwrite(c->buf, 1, n, stdout);
            }
            memmove(c->buf, c->buf + n, c->len - n);
            c->len -= n;
            if (last)
                return rc;
        }
        if (c->len == sizeof c->buf) {
            fwrite(c->buf, 1, c->len, stdout);  /* a line longer than our buffer */
            c->len = 0;
        }
        ssize_t r = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            fprintf(stderr, "vmcp: %s\n", r == 0 ? "connection closed by vswitchd"
                                                 : strerror(errno));
            return -1;
        }
        c->len += (size_t)r;
    }
}

/* Sends one command line and prints its response. rc, or -1. */
static int run_command(struct conn *c, const char *cmd)
{
    size_t n = strlen(cmd);
    if (send_all(c->fd, cmd, n) < 0 || send_all(c->fd, "\n", 1) < 0) {
        /* A refused connection (HCP1101E not mapped, HCP1106E busy) is answered and
         * closed at accept, maybe before our command went out: the answer is still in
         * our receive queue, and it is what the user needs to see. */
        if (errno != EPIPE && errno != ECONNRESET) {
            fprintf(stderr, "vmcp: cannot send: %s\n", strerror(errno));
            return -1;
        }
    }
    int rc = read_response(c);
    fflush(stdout);
    return rc;
}

static int exit_status(int rc)
{
    if (rc < 0)
        return 1;
    return rc > 255 ? 255 : rc;
}

static int interactive(struct conn *c)
{
    bool tty = isatty(STDIN_FILENO);
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;

    for (;;) {
        if (tty) {
            fputs("vmcp> ", stdout);
            fflush(stdout);
        }
        ssize_t n = getline(&line, &cap, stdin);
        if (n < 0)
            break;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (strspn(line, " \t") == (size_t)n)
            continue;
        rc = run_command(c, line);
        if (rc < 0)
            break;
        if (tty && rc != 0)
            printf("RC=%d\n", rc);
    }
    free(line);
    return rc;
}

int main(int argc, char **argv)
{
    const char *path = getenv("ZVS_CONSOLE");
    struct conn c;
    int opt, rc;

    if (path == NULL || path[0] == '\0')
        path = ZVS_CONSOLE_DEFAULT_PATH;
    static const struct option longopts[] = {
        { "socket", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    while ((opt = getopt_long(argc, argv, "+s:h", longopts, NULL)) != -1) {
        switch (opt) {
        case 's':
            path = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 1;
        }
    }
    signal(SIGPIPE, SIG_IGN);
    if (conn_open(&c, path) < 0)
        return 1;
    if (optind == argc) {
        rc = interactive(&c);
    } else {
        size_t total = 1;
        for (int i = optind; i < argc; i++)
            total += strlen(argv[i]) + 1;
        char *cmd = malloc(total);
        if (cmd == NULL) {
            fprintf(stderr, "vmcp: out of memory\n");
            close(c.fd);
            return 1;
        }
        cmd[0] = '\0';
        for (int i = optind; i < argc; i++) {
            if (i > optind)
                strcat(cmd, " ");
            strcat(cmd, argv[i]);
        }
        rc = run_command(&c, cmd);
        free(cmd);
    }
    close(c.fd);
    return exit_status(rc);
}
