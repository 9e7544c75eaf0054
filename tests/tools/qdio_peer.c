/* qdio_peer: an external guest program on a NIC's QDIO queues, attached through
 * vswitchd's attach socket. It is both a test tool and the smallest example of a guest
 * driver written against qdio/qdio_guest.h:
 *
 *   qdio_peer -s SOCKET -u USERID -v VDEV -m OWN_MAC -d DST_MAC
 *             [-n FRAMES_TO_SEND] [-e FRAMES_TO_EXPECT] [-t SECONDS] [-r]
 *
 * It sends FRAMES_TO_SEND frames of EtherType 0x88B5 (local experimental) from OWN_MAC
 * to DST_MAC, then waits (thin interrupt on the irq eventfd, bounded by -t) until it has
 * received FRAMES_TO_EXPECT frames of that EtherType, and prints "sent N received M".
 * Exit 0 when M reached the expectation, 1 otherwise, 2 on usage or attach errors.
 * -r: when vswitchd goes away while it waits (killed, restarted), attach again to the next
 * one (qdio/qdio_session.h: bounded retries) and go on counting; it then prints
 * "attached" once the queues are up, "reattached" at each re-attach (flushed: a test can
 * wait for the line) and "sent N received M reattached K" at the end.
 * -S: a guest that never reads: attach (printing "attached"), send nothing, read nothing,
 * and hold the attachment for -t seconds, so its input queue fills and stays full; a
 * SIGTERM ends the hold early (a test that has counted what it needed), and either way
 * it detaches cleanly and exits 0.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qdio/qdio_attach.h"
#include "qdio/qdio_guest.h"
#include "qdio/qdio_session.h"

#define ETHERTYPE_TEST 0x88B5

static int parse_mac(const char *s, uint8_t mac[6])
{
    unsigned v[6];
    if (sscanf(s, "%x%*[:-]%x%*[:-]%x%*[:-]%x%*[:-]%x%*[:-]%x", &v[0], &v[1], &v[2], &v[3],
               &v[4], &v[5]) != 6)
        return -1;
    for (int i = 0; i < 6; i++)
        mac[i] = (uint8_t)v[i];
    return 0;
}

static void on_rx(void *arg, const struct zvs_qdio_rx *rx)
{
    unsigned *received = arg;
    uint8_t head[14];
    if (zvs_qdio_rx_copy(rx, head, sizeof(head)) == sizeof(head) &&
        (head[12] << 8 | head[13]) == ETHERTYPE_TEST)
        (*received)++;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    const char *sock = NULL, *user = NULL;
    uint8_t own[6], dst[6];
    int have_own = 0, have_dst = 0, c;
    unsigned vdev = 0, nsend = 0, nexpect = 0;
    double timeout = 5;
    int reattach = 0, stall = 0;

    while ((c = getopt(argc, argv, "s:u:v:m:d:n:e:t:rS")) != -1) {
        switch (c) {
        case 's': sock = optarg; break;
        case 'u': user = optarg; break;
        case 'v': vdev = (unsigned)strtoul(optarg, NULL, 16); break;
        case 'm': have_own = parse_mac(optarg, own) == 0; break;
        case 'd': have_dst = parse_mac(optarg, dst) == 0; break;
        case 'n': nsend = (unsigned)atoi(optarg); break;
        case 'e': nexpect = (unsigned)atoi(optarg); break;
        case 't': timeout = atof(optarg); break;
        case 'r': reattach = 1; break;
        case 'S': stall = 1; break;
        default: return 2;
        }
    }
    if (!sock || !user || !have_own || !have_dst) {
        fprintf(stderr, "usage: qdio_peer -s SOCKET -u USERID -v VDEV -m OWN_MAC -d DST_MAC "
                        "[-n SEND] [-e EXPECT] [-t SECONDS] [-r] [-S]\n");
        return 2;
    }

    /* -S: SIGTERM is taken by sigtimedwait below, blocked from before "attached" on, so
     * one sent as soon as the line is read is not lost. */
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    if (stall)
        sigprocmask(SIG_BLOCK, &term, NULL);

    struct zvs_qdio_session *ses;
    char err[128];
    int rc = zvs_qdio_session_open(sock, user, (uint16_t)vdev, NULL, &ses, err, sizeof(err));
    if (rc < 0) {
        fprintf(stderr, "qdio_peer: attach %s %04X: %s\n", user, vdev, err[0] ? err : strerror(-rc));
        return 2;
    }
    struct zvs_qdio_guest *g = zvs_qdio_session_guest(ses);
    if (reattach || stall) {
        printf("attached\n");
        fflush(stdout);
    }
    if (stall) {
        struct timespec ts = { .tv_sec = (time_t)timeout,
                               .tv_nsec = (long)((timeout - (double)(time_t)timeout) * 1e9) };
        sigtimedwait(&term, NULL, &ts);
        zvs_qdio_session_close(ses);
        return 0;
    }

    uint8_t frame[64] = { 0 };
    memcpy(frame, dst, 6);
    memcpy(frame + 6, own, 6);
    frame[12] = ETHERTYPE_TEST >> 8;
    frame[13] = ETHERTYPE_TEST & 0xFF;
    unsigned sent = 0, received = 0;
    double end = now_s() + timeout;
    while (sent < nsend && now_s() < end) {
        frame[14] = (uint8_t)(sent >> 8);
        frame[15] = (uint8_t)sent;
        struct zvs_qdio_pkt p = { .data = frame, .len = sizeof(frame) };
        rc = zvs_qdio_guest_send(g, &p, 1);
        if (rc == 1)
            sent++;
        else
            zvs_qdio_guest_reap(g);
    }
    while (received < nexpect && now_s() < end) {
        zvs_qdio_guest_receive(g, 64, on_rx, &received);
        if (received >= nexpect)
            break;
        if (zvs_qdio_guest_arm_irq(g))
            continue;                   /* input arrived while arming: look again */
        struct pollfd pfd[2] = { { .fd = zvs_qdio_session_irq_fd(ses), .events = POLLIN },
                                 { .fd = zvs_qdio_session_fd(ses), .events = POLLIN } };
        poll(pfd, reattach ? 2 : 1, 100);
        zvs_qdio_guest_irq_ack(g);
        if (reattach && pfd[1].revents) {
            rc = zvs_qdio_session_check(ses);
            if (rc < 0) {
                fprintf(stderr, "qdio_peer: vswitchd gone, no re-attach: %s\n", strerror(-rc));
                break;
            }
            g = zvs_qdio_session_guest(ses);
            if (rc == 1) {
                printf("reattached\n");
                fflush(stdout);
            }
        }
    }
    if (reattach)
        printf("sent %u received %u reattached %u\n", sent, received,
               zvs_qdio_session_reattaches(ses));
    else
        printf("sent %u received %u\n", sent, received);
    zvs_qdio_session_close(ses);
    return received >= nexpect && sent == nsend ? 0 : 1;
}
