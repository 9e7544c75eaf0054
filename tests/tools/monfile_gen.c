/* monfile_gen: a monitor file with known counters, for the tests of perfkit serve that need
 * no switch (tests/integration/web_serve.sh):
 *
 *   monfile_gen FILE [-n SAMPLES] [-s SECONDS] [-y SYSTEM] [-f MORE] [-d GROUP]
 *
 * Writes SAMPLES (default 5) sample groups SECONDS (default 2) apart, the last one now, with
 * vswitchd's writer: VSWITCH LABVSW1 with uplinks 28BA and 2902 in port group ETHGRP
 * (controller DTCVSW1; 2902 distributing, LACP collecting and distributing) and NIC 0600
 * of LNXA; in sample k the counters are (k * (k + 1) / 2) times a step of their own, so
 * interval k's rates are k steps per SECONDS. Each uplink's inbound discards (one a step)
 * are all not-collecting in the records' counters by reason, the NIC's reasons all zero.
 * The system watches 2 host names: each sample has a D15R1 whose lookups grow by 4 steps
 * and failures by 1 (changes: k). An event group (D6R22 of 28BA, carrier lost, D8R2 of
 * LNXA's 0600, and a D15R2: db.example.net changed from 192.0.2.10 to 192.0.2.11 and
 * 2001:db8::11) follows the second sample. -y names the system (default
 * LABSYS). -f MORE then appends one more sample every SECONDS, MORE times, as vswitchd
 * does (a file that grows while perfkit serve follows it). -d GROUP damages the GROUP-th
 * group written (from 1): one byte of its control record, so readers report its offset
 * and skip it. Exit 0, or 1 with a message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "monitor/monfile.h"
#include "monitor/monrec.h"

#define STEP_BYTES   100000ull          /* 28BA outbound; 2902 has twice, the NIC half */
#define STEP_PACKETS 100ull

static uint64_t now_tod(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return zvs_mon_tod_from_unix_us((uint64_t)ts.tv_sec * 1000000u +
                                    (uint64_t)ts.tv_nsec / 1000u);
}

static void lan(char *owner, char *name, char *group)
{
    strcpy(owner, "SYSTEM");
    strcpy(name, "LABVSW1");
    strcpy(group, "ETHGRP");
}

#define SAMPLE_RECS 4
#define EVENT_RECS  3

static void sample(uint64_t tod, unsigned k, struct zvs_mon_record rec[SAMPLE_RECS])
{
    uint64_t m = (uint64_t)k * (k + 1) / 2;
    memset(rec, 0, SAMPLE_RECS * sizeof(*rec));
    for (unsigned d = 0; d < 2; d++) {
        struct zvs_mon_vswitch_activity *v = &rec[d].u.vsw;
        rec[d].domain = ZVS_MON_DOMAIN_IO;
        rec[d].number = ZVS_MON_REC_D6R21;
        rec[d].tod = tod;
        v->rdev = d ? 0x2902 : 0x28BA;
        v->osa_port = 0;
        v->queuestorage_mb = 8;
        strcpy(v->controller, "DTCVSW1");
        lan(v->lan_owner, v->lan_name, v->group);
        v->tx_bytes = m * STEP_BYTES * (d + 1);
        v->tx_packets = m * STEP_PACKETS * (d + 1);
        v->rx_bytes = m * STEP_BYTES / 2;
        v->rx_packets = m * STEP_PACKETS / 2;
        v->rx_discards = m;
        v->ndrops = ZVS_MON_DROP_REASONS;
        v->drops[ZVS_MON_DROP_NOT_COLLECTING] = m;
        v->lacpdus_tx = k;
        v->lacpdus_rx = k;
        v->interval_s = 30;
        v->lacp_state = d ? 0x3D : 0x0D;
        v->distributing = (uint8_t)d;
        v->buckets = d ? 256 : 0;
        v->group_moves = 1;
    }
    struct zvs_mon_vnic_activity *n = &rec[2].u.vnic;
    rec[2].domain = ZVS_MON_DOMAIN_NET;
    rec[2].number = ZVS_MON_REC_D8R1;
    rec[2].tod = tod;
    strcpy(n->owner, "LNXA");
    n->vdev = 0x0600;
    n->nic_type = 2;
    n->vswitch = 1;
    n->transport = 2;
    lan(n->lan_owner, n->lan_name, n->group);
    n->tx_bytes = m * STEP_BYTES / 2;
    n->tx_packets = m * STEP_PACKETS / 2;
    n->rx_bytes = m * STEP_BYTES / 4;
    n->rx_packets = m * STEP_PACKETS / 4;
    n->ndrops = ZVS_MON_DROP_REASONS;
    rec[3].domain = ZVS_MON_DOMAIN_ZVS;
    rec[3].number = ZVS_MON_REC_D15R1;
    rec[3].tod = tod;
    rec[3].u.res.watched = 2;
    rec[3].u.res.lookups = 4 * m;
    rec[3].u.res.failures = m;
    rec[3].u.res.changes = k;
}

static void events(uint64_t tod, struct zvs_mon_record ev[EVENT_RECS])
{
    memset(ev, 0, EVENT_RECS * sizeof(*ev));
    ev[0].domain = ZVS_MON_DOMAIN_IO;
    ev[0].number = ZVS_MON_REC_D6R22;
    ev[0].tod = tod;
    lan(ev[0].u.vswev.lan_owner, ev[0].u.vswev.lan_name, ev[0].u.vswev.group);
    strcpy(ev[0].u.vswev.controller, "DTCVSW1");
    ev[0].u.vswev.rdev = 0x28BA;
    ev[0].u.vswev.reason = ZVS_MON_FAIL_CARRIER;
    ev[1].domain = ZVS_MON_DOMAIN_NET;
    ev[1].number = ZVS_MON_REC_D8R2;
    ev[1].tod = tod;
    strcpy(ev[1].u.link.lan_owner, "SYSTEM");
    strcpy(ev[1].u.link.lan_name, "LABVSW1");
    strcpy(ev[1].u.link.nic_owner, "LNXA");
    ev[1].u.link.vdev = 0x0600;
    ev[1].u.link.nic_type = 2;
    struct zvs_mon_resolver_event *r = &ev[2].u.resev;
    ev[2].domain = ZVS_MON_DOMAIN_ZVS;
    ev[2].number = ZVS_MON_REC_D15R2;
    ev[2].tod = tod;
    strcpy(r->name, "db.example.net");
    r->event = ZVS_MON_RES_EV_CHANGED;
    r->state = 1;                       /* resolved */
    r->ttl_s = 300;
    r->nold = 1;
    r->old[0].family = 4;
    memcpy(r->old[0].addr, "\xc0\x00\x02\x0a", 4);
    r->nnew = 2;
    r->now[0].family = 4;
    memcpy(r->now[0].addr, "\xc0\x00\x02\x0b", 4);
    r->now[1].family = 6;
    memcpy(r->now[1].addr, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x11", 16);
}

static long size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : 0;
}

int main(int argc, char **argv)
{
    unsigned n = 5, secs = 2, more = 0, damage = 0, group = 0;
    const char *system = "LABSYS";
    int opt;
    while ((opt = getopt(argc, argv, "n:s:y:f:d:")) != -1) {
        switch (opt) {
        case 'n': n = (unsigned)atoi(optarg); break;
        case 's': secs = (unsigned)atoi(optarg); break;
        case 'y': system = optarg; break;
        case 'f': more = (unsigned)atoi(optarg); break;
        case 'd': damage = (unsigned)atoi(optarg); break;
        default:
            fprintf(stderr, "usage: monfile_gen FILE [-n N] [-s S] [-y SYSTEM] [-f MORE] [-d GROUP]\n");
            return 1;
        }
    }
    if (optind + 1 != argc || n < 1 || secs < 1) {
        fprintf(stderr, "usage: monfile_gen FILE [-n N] [-s S] [-y SYSTEM] [-f MORE] [-d GROUP]\n");
        return 1;
    }
    const char *path = argv[optind];
    struct zvs_mon_writer_opts o = { .producer = "monfile_gen", .system = system };
    int err = 0;
    struct zvs_mon_writer *w = zvs_mon_writer_open(path, &o, &err);
    if (!w) {
        fprintf(stderr, "monfile_gen: %s: %s\n", path, strerror(-err));
        return 1;
    }
    uint64_t sec = 1000000ull << 12, t0 = now_tod() - (uint64_t)(n - 1) * secs * sec;
    long damaged_at = -1;
    struct zvs_mon_record rec[SAMPLE_RECS], ev[EVENT_RECS];
    for (unsigned k = 0; k < n + more; k++) {
        if (k >= n)
            sleep(secs);
        uint64_t tod = k < n ? t0 + (uint64_t)k * secs * sec : now_tod();
        sample(tod, k, rec);
        long at = size_of(path);
        if ((err = zvs_mon_write_group(w, true, tod, rec, SAMPLE_RECS)) < 0)
            break;
        if (++group == damage)
            damaged_at = at;
        if (k == 1) {
            events(tod + sec / 2, ev);
            at = size_of(path);
            if ((err = zvs_mon_write_group(w, false, tod + sec / 2, ev, EVENT_RECS)) < 0)
                break;
            if (++group == damage)
                damaged_at = at;
        }
        if (damaged_at >= 0 && damage) {        /* one byte of the IUCV message: CRC fails */
            FILE *f = fopen(path, "r+b");
            if (!f || fseek(f, damaged_at + 20, SEEK_SET) != 0 || fputc(0x5A, f) == EOF) {
                fprintf(stderr, "monfile_gen: cannot damage %s\n", path);
                err = -EIO;
            }
            if (f)
                fclose(f);
            damage = 0;
        }
    }
    zvs_mon_writer_close(w);
    if (err < 0) {
        fprintf(stderr, "monfile_gen: %s: %s\n", path, strerror(-err));
        return 1;
    }
    return 0;
}
