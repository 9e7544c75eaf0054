/* FCX269, the Performance Toolkit VNIC screen, from two consecutive D8R1 sample groups.
 *
 * Layout: copied from the seed report's FCX269 example (header without "Monitor", the
 * ruler, three heading lines, the "<<  ---   System   ---  >>" row, one row per NIC
 * session sorted by Addr, record order kept for equal addresses). The report cuts the
 * screen at column 85; the full R_Pack and R_Disc columns and our T_Err / R_Err are
 * rendered to the right.
 *
 * Rules (monitor/SCREENS.md): rates per second; the System row is the sum of the rows
 * divided by the number of distinct NICs (adapter owner + address) and by the seconds.
 * The report's example needs exactly that: its nine rows (F010 TCPIP twice) give
 * 169398 = (677405 + 677782) / 8. Numbers: zero is ".0", below 1000 one decimal, above
 * the FCX240 k/M rule.
 */
#include "monitor/screens.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool is_d8r1(const struct zvs_mon_record *r)
{
    return r->domain == ZVS_MON_DOMAIN_NET && r->number == ZVS_MON_REC_D8R1;
}

static bool same_session(const struct zvs_mon_vnic_activity *a,
                         const struct zvs_mon_vnic_activity *b)
{
    return a->vdev == b->vdev && strcmp(a->owner, b->owner) == 0 &&
           strcmp(a->lan_owner, b->lan_owner) == 0 && strcmp(a->lan_name, b->lan_name) == 0;
}

/* Occurrence k of a session key in a sample (k-th equal record), or NULL. */
static const struct zvs_mon_record *
nth_session(const struct zvs_scr_sample *s, const struct zvs_mon_vnic_activity *key,
            unsigned k)
{
    for (unsigned i = 0; s && i < s->nrec; i++) {
        const struct zvs_mon_record *r = &s->rec[i];
        if (is_d8r1(r) && same_session(&r->u.vnic, key) && k-- == 0)
            return r;
    }
    return NULL;
}

/* The previous sample of cur->rec[idx] (matched by key and occurrence). */
static const struct zvs_mon_record *
prev_vnic(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur, unsigned idx)
{
    const struct zvs_mon_vnic_activity *v = &cur->rec[idx].u.vnic;
    unsigned k = 0;
    for (unsigned i = 0; i < idx; i++)
        if (is_d8r1(&cur->rec[i]) && same_session(&cur->rec[i].u.vnic, v))
            k++;
    return nth_session(prev, v, k);
}

static int cmp_vdev(const void *a, const void *b)
{
    const struct zvs_scr_row *x = a, *y = b;
    if (x->rec->u.vnic.vdev != y->rec->u.vnic.vdev)
        return x->rec->u.vnic.vdev < y->rec->u.vnic.vdev ? -1 : 1;
    return x->rec < y->rec ? -1 : (x->rec > y->rec);    /* stable: record order */
}

/* Distinct NICs (adapter owner + address) among the rows. */
static unsigned distinct_nics(const struct zvs_scr_row *row, unsigned n)
{
    unsigned d = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct zvs_mon_vnic_activity *v = &row[i].rec->u.vnic;
        bool seen = false;
        for (unsigned j = 0; j < i && !seen; j++) {
            const struct zvs_mon_vnic_activity *w = &row[j].rec->u.vnic;
            seen = w->vdev == v->vdev && strcmp(w->owner, v->owner) == 0;
        }
        d += !seen;
    }
    return d;
}

static void deltas_vnic(const struct zvs_mon_record *p, const struct zvs_mon_record *c,
                        uint64_t *d)
{
    static const struct zvs_mon_vnic_activity zero;
    ZVS_SCR_DEVICE_DELTAS(p ? &p->u.vnic : &zero, &c->u.vnic, d);
}

int zvs_fcx269_rows(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                    struct zvs_scr_row **rows, double system[ZVS_SCR_NCOL])
{
    static const struct zvs_scr_kind kind = { is_d8r1, prev_vnic, deltas_vnic, cmp_vdev };
    uint64_t sum[ZVS_SCR_NCOL];
    double secs;
    int n = zvs_scr_collect(prev, cur, &kind, rows, sum, &secs);
    if (n < 0)
        return n;
    unsigned nics = distinct_nics(*rows, (unsigned)n);
    for (unsigned k = 0; k < ZVS_SCR_NCOL; k++)
        system[k] = nics ? (double)sum[k] / nics / secs : 0.0;
    return n;
}

static void rates6(struct zvs_scr_buf *b, const double *rate, unsigned n)
{
    char s[16];
    for (unsigned i = 0; i < n; i++) {
        zvs_scr_fmt_dec6(rate[i], s, sizeof(s));
        zvs_scr_printf(b, " %6s", s);
    }
    zvs_scr_printf(b, "\n");
}

static char nic_type_letter(uint8_t t)
{
    switch (t) {
    case 1: return 'H';                 /* HiperSockets */
    case 2: return 'Q';                 /* QDIO */
    default: return '?';
    }
}

static char digit(uint8_t v)
{
    return v <= 9 ? (char)('0' + v) : '?';
}

int zvs_fcx269_render(const struct zvs_scr_sample *prev, const struct zvs_scr_sample *cur,
                      char *out, size_t cap)
{
    struct zvs_scr_row *row;
    double sys[ZVS_SCR_NCOL];
    int n = zvs_fcx269_rows(prev, cur, &row, sys);
    if (n < 0)
        return n;

    struct zvs_scr_buf b;
    zvs_scr_buf_init(&b, out, cap);
    zvs_scr_header(&b, "FCX269", prev->tod, cur->tod, false);
    zvs_scr_printf(&b, "____ .                 .        .    .                   .      "
                   ".      .      .      .      .      .      .\n");
    zvs_scr_printf(&b, "%52s<--- Outbound/s ---> <--- Inbound/s ----> <--Errors/s->\n", "");
    zvs_scr_printf(&b, "     <---  LAN ID  --> Adapter  Base Vswitch  V      Bytes <  "
                   "Packets  >  Bytes <  Packets  >\n");
    zvs_scr_printf(&b, "Addr Owner    Name     Owner    Addr Grpname  S L T T_Byte T_Pack "
                   "T_Disc R_Byte R_Pack R_Disc  T_Err  R_Err\n");
    if (n > 0) {
        zvs_scr_printf(&b, "<<  -----------------   System   --------------  >>");
        rates6(&b, sys, ZVS_SCR_NCOL);
        for (int i = 0; i < n; i++) {
            const struct zvs_mon_vnic_activity *v = &row[i].rec->u.vnic;
            zvs_scr_printf(&b, "%04X %-8.8s %-8.8s %-8.8s %04X %-8.8s %c %c %c", v->vdev,
                           v->lan_owner, v->lan_name, v->owner, v->vdev,
                           v->group[0] ? v->group : "........", v->vswitch ? 'X' : ' ',
                           digit(v->transport), nic_type_letter(v->nic_type));
            rates6(&b, row[i].rate, ZVS_SCR_NCOL);
        }
    }
    free(row);
    return zvs_scr_buf_result(&b);
}
