/* libFuzzer target for the rtnetlink link watcher (backends/netlink_link.c): the parser of
 * what the kernel sends, fed through zvs_netlink_link_feed.
 *
 * Input: datagrams, each as a 2-byte big-endian length and that many bytes (a short last
 * one is cut to what is left). Every datagram is fed from an exactly sized heap copy, so
 * ASan sees any read past its end. Sequence numbers are relative: the harness adds the
 * number of dumps requested before the input, so "seq 1" is the dump the input's first
 * watch requests and "seq 2" the one after it, whatever earlier inputs did.
 *
 * The watcher is opened once (a real NETLINK_ROUTE socket; the kernel's own answers pile
 * up unread in it and are never fed). Per input the harness ends any running dump with
 * NLMSG_DONE messages until none is left, then unwatches and re-watches the names, so
 * every input starts from the same state: names unknown, one dump running with another
 * queued.
 *
 * Invariants: the callback only names watched interfaces; a gone interface has ifindex 0
 * and no carrier, a present one ifindex > 0; an event is delivered only when (exists,
 * ifindex, carrier) of the name changed; carrier means admin up, lower layer up and
 * operstate UP or UNKNOWN; zvs_netlink_link_state agrees with the last event; feed returns
 * the number of events delivered, and the stats count them.
 *
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 -I. -fsanitize=fuzzer,address,undefined \
 *         tests/fuzz/fuzz_netlink.c backends/netlink_link.c -o build/fuzz/fuzz_netlink
 *   build/fuzz/fuzz_netlink -max_total_time=60 work/ tests/fuzz/corpus/netlink
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if.h>
#include <linux/netlink.h>

#include "backends/netlink_link.h"
#include "fuzz_common.h"

/* TRACE (-DFUZZ_TRACE) prints every event. */

/* Names to watch: a usual one, an uplink-like one, and one of the longest allowed. */
static const char *const names[] = { "eth0", "uplink1", "abcdefghijklmno" };
#define NNAMES (sizeof(names) / sizeof(names[0]))

struct told {
    bool known;
    bool exists;
    int  ifindex;
    bool carrier;
};

struct harness {
    struct zvs_netlink_link *nl;
    struct told              last[NNAMES];  /* what the callback was told per name */
    uint64_t                 events;        /* callbacks since the last feed */
};

static struct harness H;

static int name_index(const char *ifname)
{
    for (size_t i = 0; i < NNAMES; i++)
        if (strcmp(names[i], ifname) == 0)
            return (int)i;
    return -1;
}

static void on_event(void *arg, const char *ifname, int ifindex, bool carrier, bool exists)
{
    struct harness *h = arg;
    struct zvs_link_state st;

    CHECK(h == &H && ifname != NULL);
    TRACE("event %s ifindex %d carrier %d exists %d\n", ifname, ifindex, carrier, exists);
    int i = name_index(ifname);
    CHECK(i >= 0);
    if (exists)
        CHECK(ifindex > 0);
    else
        CHECK(ifindex == 0 && !carrier);
    struct told *t = &h->last[i];
    CHECK(!t->known || t->exists != exists || t->ifindex != ifindex || t->carrier != carrier);
    *t = (struct told){ .known = true, .exists = exists, .ifindex = ifindex, .carrier = carrier };
    CHECK(zvs_netlink_link_state(h->nl, ifname, &st) == 0);
    CHECK(st.known && st.exists == exists && st.ifindex == ifindex && st.carrier == carrier);
    if (carrier)
        CHECK(st.admin_up && st.lower_up &&
              (st.operstate == IF_OPER_UP || st.operstate == IF_OPER_UNKNOWN));
    h->events++;
}

static uint64_t dumps(void)
{
    struct zvs_netlink_link_stats s;

    zvs_netlink_link_stats(H.nl, &s);
    return s.dumps;
}

/* End the running dump (and the one it may queue) so that none is running. */
static void end_dumps(void)
{
    for (int guard = 0; guard < 8; guard++) {
        uint64_t d = dumps();
        struct nlmsghdr done = {
            .nlmsg_len = NLMSG_LENGTH(sizeof(int)), .nlmsg_type = NLMSG_DONE,
            .nlmsg_flags = NLM_F_MULTI, .nlmsg_seq = (uint32_t)d,
        };
        uint8_t buf[NLMSG_LENGTH(sizeof(int))];
        memset(buf, 0, sizeof(buf));
        memcpy(buf, &done, sizeof(done));
        zvs_netlink_link_feed(H.nl, buf, sizeof(buf));
        if (dumps() == d)
            return;
    }
    CHECK(!"dumps keep restarting");
}

/* False when a dump request could not be sent (the socket refused it): the input is
 * skipped, since the sequence numbers would not be the ones the input expects. */
static bool setup(void)
{
    int err = 0;

    if (H.nl == NULL) {
        H.nl = zvs_netlink_link_open(on_event, &H, &err);
        if (H.nl == NULL) {
            fprintf(stderr, "fuzz_netlink: open: %s\n", strerror(-err));
            abort();
        }
    }
    /* The sweep of a completed dump may report names gone: not this input's events. */
    end_dumps();
    for (size_t i = 0; i < NNAMES; i++) {
        int rc = zvs_netlink_link_unwatch(H.nl, names[i]);
        CHECK(rc == 0 || rc == -ENOENT);
    }
    memset(H.last, 0, sizeof(H.last));
    bool ok = true;
    for (size_t i = 0; i < NNAMES; i++) {
        int rc = zvs_netlink_link_watch(H.nl, names[i]);
        CHECK(rc <= 0 && rc != -EEXIST && rc != -EINVAL);
        ok = ok && rc == 0;
    }
    CHECK(zvs_netlink_link_watch(H.nl, names[0]) == -EEXIST);
    CHECK(zvs_netlink_link_watch(H.nl, "") == -EINVAL);
    CHECK(zvs_netlink_link_watch(H.nl, "abcdefghijklmnop") == -EINVAL);
    return ok;
}

/* Add base to the sequence number of every message header the walk reaches. */
static void rebase_seq(uint8_t *d, size_t len, uint32_t base)
{
    size_t off = 0;

    while (len - off >= sizeof(struct nlmsghdr)) {
        struct nlmsghdr h;
        memcpy(&h, d + off, sizeof(h));
        h.nlmsg_seq += base;
        memcpy(d + off, &h, sizeof(h));
        if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > len - off)
            return;
        off += NLMSG_ALIGN(h.nlmsg_len);
        if (off > len)
            return;
    }
}

static void check_states(void)
{
    for (size_t i = 0; i < NNAMES; i++) {
        struct zvs_link_state st;
        CHECK(zvs_netlink_link_state(H.nl, names[i], &st) == 0);
        const struct told *t = &H.last[i];
        CHECK(st.known == t->known);
        if (!st.known)
            continue;
        CHECK(st.exists == t->exists && st.ifindex == t->ifindex && st.carrier == t->carrier);
        if (!st.exists)
            CHECK(st.ifindex == 0 && !st.carrier && !st.admin_up && !st.lower_up &&
                  st.operstate == IF_OPER_NOTPRESENT && st.mtu == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct zvs_netlink_link_stats before, after;

    if (size > 65536)
        return 0;
    if (!setup())
        return 0;
    uint32_t base = (uint32_t)dumps() - 1;  /* the first watch's dump is "seq 1" */
    while (size >= 2) {
        size_t len = (size_t)data[0] << 8 | data[1];
        data += 2;
        size -= 2;
        if (len > size)
            len = size;
        uint8_t *dg = malloc(len ? len : 1);
        CHECK(dg != NULL);
        memcpy(dg, data, len);
        data += len;
        size -= len;
        rebase_seq(dg, len, base);
        zvs_netlink_link_stats(H.nl, &before);
        H.events = 0;
        int n = zvs_netlink_link_feed(H.nl, dg, len);
        TRACE("feed(%zu) = %d\n", len, n);
        zvs_netlink_link_stats(H.nl, &after);
        CHECK(n >= 0 && (uint64_t)n == H.events);
        CHECK(after.events - before.events == H.events);
        CHECK(after.messages - before.messages <= len / NLMSG_HDRLEN);
        check_states();
        free(dg);
    }
    return 0;
}
