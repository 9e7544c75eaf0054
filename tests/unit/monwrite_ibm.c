/* An independent MONWRITE writer and reader, from IBM's pages only (monwrite_ibm.h names
 * them). Nothing here includes monitor/: its byte order, EBCDIC and framing are its own.
 */
#include "tests/unit/monwrite_ibm.h"

#include <stdlib.h>
#include <string.h>

/* MRRECHDR */
#define MRHDRLEN  0
#define MRHDRDM   4
#define MRHDRRC   6
#define MRHDRTOD  8
#define MRHDR_END 20

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)(v >> 16)); put16(p + 2, (uint16_t)v); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)(v >> 32)); put32(p + 4, (uint32_t)v); }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t get32(const uint8_t *p) { return (uint32_t)get16(p) << 16 | get16(p + 2); }
static uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) << 32 | get32(p + 4); }

/* EBCDIC code page 037 for the characters of CP names. */
static uint8_t to_ebcdic(char c)
{
    if (c >= 'A' && c <= 'I') return (uint8_t)(0xC1 + (c - 'A'));
    if (c >= 'J' && c <= 'R') return (uint8_t)(0xD1 + (c - 'J'));
    if (c >= 'S' && c <= 'Z') return (uint8_t)(0xE2 + (c - 'S'));
    if (c >= '0' && c <= '9') return (uint8_t)(0xF0 + (c - '0'));
    if (c == '@') return 0x7C;
    if (c == '#') return 0x7B;
    if (c == '$') return 0x5B;
    return 0x40;
}

static char from_ebcdic(uint8_t e)
{
    for (int c = 0; c < 128; c++)
        if (c != ' ' && to_ebcdic((char)c) == e && e != 0x40)
            return (char)c;
    return e == 0x40 ? ' ' : '?';
}

void ibm_name(uint8_t *b, const char *ascii)
{
    size_t n = ascii ? strlen(ascii) : 0;

    for (size_t i = 0; i < 8; i++)
        b[i] = i < n ? to_ebcdic(ascii[i]) : 0x40;
}

bool ibm_name_get(char out[9], const uint8_t *b)
{
    size_t n = 0;

    while (n < 8 && b[n] != 0x40) {
        out[n] = from_ebcdic(b[n]);
        if (out[n] == '?')
            return false;
        n++;
    }
    out[n] = '\0';
    for (size_t i = n; i < 8; i++)
        if (b[i] != 0x40)
            return false;
    return true;
}

void ibm_hdr(uint8_t *b, uint16_t len, uint8_t domain, uint16_t number, uint64_t tod)
{
    memset(b, 0, len);
    put16(b + MRHDRLEN, len);
    b[MRHDRDM] = domain;
    put16(b + MRHDRRC, number);
    put64(b + MRHDRTOD, tod);
}

/* MRIODVSW, z/VM 7.1: 492 bytes; 20 IODVSW_RDEVSID 4, 24 IODVSW_RDEVDEV 2, 26 IODVSW_LANFSV
 * 1, 27 reserved, 28 IODVSW_LANIPTO 2, 30 IODVSW_LANRDD_OSAPORTN 1. Not on a page we
 * found: 32 IODVSW_VMDUSER 8, 40 IODVSW_NICTXBYT 8, 48 IODVSW_NICRXBYT 8, 56 NICTXPKT,
 * NICTXDSC, NICTXERR, NICRXPKT, NICRXDSC, NICRXERR 4 each. */
size_t ibm_put_d6r21(uint8_t *b, uint64_t tod, const struct ibm_d6r21 *v)
{
    const uint32_t c[6] = { v->txpkt, v->txdsc, v->txerr, v->rxpkt, v->rxdsc, v->rxerr };

    ibm_hdr(b, 492, 6, 21, tod);
    put16(b + 24, v->rdev);
    b[26] = v->lanfsv;
    b[30] = v->osaport;
    ibm_name(b + 32, v->vmduser);
    put64(b + 40, v->txbyt);
    put64(b + 48, v->rxbyt);
    for (int i = 0; i < 6; i++)
        put32(b + 56 + 4 * i, c[i]);
    return 492;
}

void ibm_get_d6r21(const uint8_t *b, struct ibm_d6r21 *v, char vmduser[9])
{
    uint32_t c[6];

    for (int i = 0; i < 6; i++)
        c[i] = get32(b + 56 + 4 * i);
    v->rdev = get16(b + 24);
    v->lanfsv = b[26];
    v->osaport = b[30];
    if (!ibm_name_get(vmduser, b + 32))
        vmduser[0] = '?';
    v->vmduser = vmduser;
    v->txbyt = get64(b + 40);
    v->rxbyt = get64(b + 48);
    v->txpkt = c[0];
    v->txdsc = c[1];
    v->txerr = c[2];
    v->rxpkt = c[3];
    v->rxdsc = c[4];
    v->rxerr = c[5];
}

/* MRIODVSF z/VM 7.2 and MRIODVSR z/VM 7.4: 20 LANOWNER 8, 28 LANNAME 8, 36 LANRDD_LANCONT 8,
 * 44 LANRDD_RDEV 2, 46 LANRDD_OSAPORTN 1, 47 FLAG1 (VSF) / LANTYPE (VSR). MRIODVSF: 48
 * LANMGIPA 4, 52 MGSWIEUSER 8, 60 MGNICMAC 6, 66 reserved 2, 68 SWPGROUP 8, 76 LANRDD_RSN 1,
 * 77 VQSTATE 1, 78 2 bytes. */
static void put_d6r2x_head(uint8_t *b, const struct ibm_d6r2x *v)
{
    ibm_name(b + 20, v->owner);
    ibm_name(b + 28, v->name);
    ibm_name(b + 36, v->cont);
    put16(b + 44, v->rdev);
    b[46] = v->osaport;
    b[47] = v->byte47;
}

size_t ibm_put_d6r22(uint8_t *b, uint64_t tod, const struct ibm_d6r2x *v)
{
    ibm_hdr(b, 80, 6, 22, tod);
    put_d6r2x_head(b, v);
    ibm_name(b + 52, "");               /* no LAN management user */
    ibm_name(b + 68, v->swpgroup);
    b[76] = v->rsn;
    return 80;
}

size_t ibm_put_d6r23(uint8_t *b, uint64_t tod, const struct ibm_d6r2x *v)
{
    ibm_hdr(b, 88, 6, 23, tod);
    put_d6r2x_head(b, v);
    return 88;
}

/* MRVNDLSU z/VM 6.1: 60 bytes; 20 LANOWNER 8, 28 LANNAME 8, 36 NICOWNER 8, 44 NICBASE 2,
 * 46 NICTYPE 1, 47 LANTYPE 1, 48 NICMGPOR 4, 52 NICMGIFI 4, 56 FLAGS 1 (X'80' UPLINK). */
size_t ibm_put_d8r23(uint8_t *b, uint16_t number, uint64_t tod, const struct ibm_d8r23 *v)
{
    ibm_hdr(b, 60, 8, number, tod);
    ibm_name(b + 20, v->lanowner);
    ibm_name(b + 28, v->lanname);
    ibm_name(b + 36, v->nicowner);
    put16(b + 44, v->nicbase);
    b[46] = v->nictype;
    b[47] = v->lantype;
    b[56] = v->flags;
    return 60;
}

/* MRVNDSES z/VM 5.3 (IBM's page not found; the offsets of zpmd's decoder, an
 * implementation of IBM's 5.3 layout): 316 bytes; 20 VDEVSUB 2, 22 reserved 2, 24 OWNER 8,
 * 32 VDEVDEV 2, 34 NICBASE 2, 36 NICMAC 6, 42 NICTRANP 1, 43 NICTYPE 1, 44 LANID 16 (owner,
 * name), 60 VSWITCH 1, 61 reserved 3, 64 NIC_LOCKREQS, LANDEFER, TXDEFERS, RXDEFERS 8 each,
 * 96 SESTXBYT 8, 104 SESRXBYT 8, 112 SESTXPKT, SESTXDSC, SESTXERR, SESRXPKT, SESRXDSC,
 * SESRXERR 8 each, 160 SESRXPCI 8, 168 SESTXPCI 8, 176 SWPGROUP 8, 184 SWPINTSC 2, 186
 * reserved 2, 188 eight (NIDDVNUM 2, reserved 2, VRTPFRME 4), 252 request counts to 316. */
size_t ibm_put_d8r1(uint8_t *b, uint64_t tod, const struct ibm_d8r1 *v)
{
    ibm_hdr(b, 316, 8, 1, tod);
    ibm_name(b + 24, v->owner);
    put16(b + 32, v->vdevdev);
    put16(b + 34, v->vdevdev);          /* NICBASE: the NIC's base device, VDEVDEV's */
    memcpy(b + 36, v->nicmac, 6);
    b[42] = v->nictranp;
    b[43] = v->nictype;
    ibm_name(b + 44, v->lanowner);
    ibm_name(b + 52, v->lanname);
    b[60] = v->vswitch;
    for (int i = 0; i < 8; i++)
        put64(b + 96 + 8 * i, v->ses[i]);
    ibm_name(b + 176, v->swpgroup);
    return 316;
}

void ibm_get_d8r1(const uint8_t *b, struct ibm_d8r1 *v, char names[4][9])
{
    const uint16_t at[4] = { 24, 44, 52, 176 };
    const char **to[4] = { &v->owner, &v->lanowner, &v->lanname, &v->swpgroup };

    for (int i = 0; i < 4; i++) {
        if (!ibm_name_get(names[i], b + at[i]))
            names[i][0] = '?';
        *to[i] = names[i];
    }
    v->vdevdev = get16(b + 32);
    memcpy(v->nicmac, b + 36, 6);
    v->nictranp = b[42];
    v->nictype = b[43];
    v->vswitch = b[60];
    for (int i = 0; i < 8; i++)
        v->ses[i] = get64(b + 96 + 8 * i);
}

/* ---- writing ---------------------------------------------------------------------- */

static uint8_t *frame(struct ibm_set *s, unsigned i)
{
    return s->frames + (size_t)i * IBM_FRAME;
}

static void add_frame(struct ibm_set *s, uint8_t fill)
{
    s->frames = realloc(s->frames, (size_t)(s->nframes + 1) * IBM_FRAME);
    memset(frame(s, s->nframes), fill, IBM_FRAME);
    s->nframes++;
}

void ibm_set_begin(struct ibm_set *s, uint8_t type, uint32_t start, uint8_t fill)
{
    memset(s, 0, sizeof(*s));
    s->type = type;
    s->start = start;
    add_frame(s, fill);
    s->off = start % IBM_FRAME;
    memset(frame(s, 0) + s->off, 0, IBM_FRAME - s->off);
}

static void put_raw(struct ibm_set *s, const uint8_t *rec, size_t len)
{
    memcpy(frame(s, s->nframes - 1) + s->off, rec, len);
    s->off += (unsigned)len;
    s->domains |= (uint16_t)(0x8000u >> rec[MRHDRDM]);
}

void ibm_set_add(struct ibm_set *s, const uint8_t *rec, size_t len, uint64_t tod)
{
    if (s->off + len + MRHDR_END > IBM_FRAME) {
        uint8_t eof[MRHDR_END];
        ibm_hdr(eof, MRHDR_END, 1, 13, tod);        /* MRMTREOF */
        put_raw(s, eof, sizeof(eof));
        /* the rest of the frame is not data: left as whatever was there */
        memset(frame(s, s->nframes - 1) + s->off, 0xEE, IBM_FRAME - s->off);
        add_frame(s, 0);
        s->off = 0;
    }
    put_raw(s, rec, len);
}

void ibm_set_end_interval(struct ibm_set *s, uint64_t tod)
{
    uint8_t end[MRHDR_END];

    ibm_hdr(end, MRHDR_END, 1, 11, tod);            /* MRMTREND */
    put_raw(s, end, sizeof(end));
}

void ibm_set_free(struct ibm_set *s)
{
    free(s->frames);
    memset(s, 0, sizeof(*s));
}

void ibm_file_append(uint8_t **file, size_t *len, struct ibm_set *const *sets, unsigned n)
{
    size_t total = IBM_FRAME;
    uint8_t *ctl;
    const uint32_t mca = 0x00701000;    /* the MCA's DCSS address: any, readers use bytes 40+ */

    for (unsigned i = 0; i < n; i++)
        total += (size_t)sets[i]->nframes * IBM_FRAME;
    *file = realloc(*file, *len + total);
    ctl = *file + *len;
    memset(ctl, 0, IBM_FRAME);
    put32(ctl + 12, mca);                           /* IUCV message: MCA start */
    put32(ctl + 16, mca + 12 * n - 1);              /* IUCV message: MCA end */
    for (unsigned i = 0; i < n; i++) {
        const struct ibm_set *s = sets[i];
        uint8_t *en = ctl + 40 + 12 * i;            /* MWTCADOM, MWTCASTR, MWTCAEND */
        uint32_t end = s->start - s->start % IBM_FRAME + (s->nframes - 1) * IBM_FRAME +
                       s->off - 1;
        en[0] = s->type;
        put16(en + 1, s->domains);
        put32(en + 4, s->start);
        put32(en + 8, end);
    }
    *len += IBM_FRAME;
    for (unsigned i = 0; i < n; i++) {
        memcpy(*file + *len, sets[i]->frames, (size_t)sets[i]->nframes * IBM_FRAME);
        *len += (size_t)sets[i]->nframes * IBM_FRAME;
    }
}

/* ---- reading ---------------------------------------------------------------------- */

int ibm_read_group(const uint8_t *file, size_t len, size_t *off, struct ibm_group *g,
                   const char **why)
{
    const uint8_t *ctl = file + *off;
    uint32_t mca_s, mca_e;
    size_t data;

    memset(g, 0, sizeof(*g));
    if (*off == len)
        return 0;
    if (len - *off < IBM_FRAME) {
        *why = "file ends inside a control record";
        return -1;
    }
    mca_s = get32(ctl + 12);
    mca_e = get32(ctl + 16);
    if (mca_e <= mca_s || (mca_e - mca_s + 1) % 12 != 0) {
        *why = "IUCV message: MCA start and end do not give whole entries";
        return -1;
    }
    g->nent = (mca_e - mca_s + 1) / 12;
    data = *off + IBM_FRAME;
    for (unsigned i = 0; i < g->nent; i++) {
        const uint8_t *en = ctl + 40 + 12 * i;
        uint32_t start = get32(en + 4), end = get32(en + 8), pos = start;
        size_t frames = end / IBM_FRAME - start / IBM_FRAME + 1;
        uint16_t domains = 0;

        if ((en[0] != IBM_TYPE_SAMPLE && en[0] != IBM_TYPE_EVENT) ||
            (i > 0 && en[0] != g->type) || get16(en + 1) == 0 || end <= start) {
            *why = "control area entry";
            return -1;
        }
        g->type = en[0];
        if (data + frames * IBM_FRAME > len) {
            *why = "entry's frames past the end of the file";
            return -1;
        }
        while (pos <= end) {
            const uint8_t *f = file + data + (pos / IBM_FRAME - start / IBM_FRAME) * IBM_FRAME;
            const uint8_t *p = f + pos % IBM_FRAME;
            uint16_t rl;

            if (pos % IBM_FRAME + MRHDR_END > IBM_FRAME || pos + MRHDR_END - 1 > end) {
                *why = "record header cut by its frame or entry";
                return -1;
            }
            rl = get16(p + MRHDRLEN);
            if (rl < MRHDR_END || pos % IBM_FRAME + rl > IBM_FRAME || pos + rl - 1 > end ||
                get16(p + 2) != 0) {
                *why = "record spans a frame, or its length is out of range";
                return -1;
            }
            domains |= (uint16_t)(0x8000u >> p[MRHDRDM]);
            if (p[MRHDRDM] == 1 && get16(p + MRHDRRC) == 13) {      /* end of frame */
                pos = (pos / IBM_FRAME + 1) * IBM_FRAME;
                if (pos > end) {
                    *why = "D1R13 with no frame after it";
                    return -1;
                }
                continue;
            }
            if (g->nrec == sizeof(g->rec) / sizeof(g->rec[0])) {
                *why = "too many records for the test";
                return -1;
            }
            g->rec[g->nrec++] = (struct ibm_rec){ p[MRHDRDM], get16(p + MRHDRRC), rl, p };
            pos += rl;
        }
        if (domains != get16(en + 1)) {
            *why = "entry's domains differ from its records'";
            return -1;
        }
        data += frames * IBM_FRAME;
    }
    if (g->type == IBM_TYPE_SAMPLE &&
        (g->nrec == 0 || g->rec[g->nrec - 1].domain != 1 || g->rec[g->nrec - 1].number != 11)) {
        *why = "sample set without D1R11 last";
        return -1;
    }
    *off = data;
    return 1;
}
