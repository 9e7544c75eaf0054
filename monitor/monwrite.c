/* The MONWRITE framing (layout versions 3 and 4): building a group as z/VM's MONWRITE
 * frames monitor data, and reading one back, ours or a file z/VM wrote.
 * monitor/monwrite_internal.h says what the framing is; monitor/RECORDS.md has the bytes and the IBM pages they follow.
 *
 * Owns: the control record (IBM's MWTBK and our area in its last 80 bytes), frames with
 * D1R13 end-of-frame and D1R11 interval-end records, walking an entry's records across its
 * frames.
 *
 * Why our area is where it is: an IBM reader takes from the control record the IUCV
 * message (the MCA start and end addresses, bytes 12-19: one 12-byte entry here) and the
 * entries, and never looks past them; the rest of MWTCAREA is zero up to our area. Our
 * layout version, producer and CRC-32s are there, outside every field IBM defines.
 *
 * Addresses: an entry's start and end are addresses in the *MONITOR DCSS. In our files the
 * group is its own address space: the control record at 0, data page k at 4096 * (k + 1).
 * Reading, an entry's frames are taken to follow the control record in entry order, the
 * frame of its start address first (the Linux monreader documentation: the start address
 * gives the record set's offset within its 4 KB frame); each entry's frames are
 * (end / 4096) - (start / 4096) + 1.
 */
#include "monitor/monwrite_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/be.h"

/* MWTBK */
#define MWT_IPRMMSG1    12              /* IUCV message: MCA start address */
#define MWT_IPRMMSG2    16              /* IUCV message: MCA end address (last byte) */
#define MWT_CAREA       40              /* MWTCAREA: MWTCADOM 4, MWTCASTR 4, MWTCAEND 4 */
#define MWT_CALEN       12
#define MWT_SAMPLE      0xE2            /* EBCDIC 'S' */
#define MWT_EVENT       0xC5            /* EBCDIC 'E' */

/* Our area: the last 80 bytes of the control record. */
#define AREA            4016
#define AREA_MAGIC      (AREA + 0)      /* "ZVMW" */
#define AREA_VERSION    (AREA + 4)
#define AREA_FLAGS      (AREA + 5)      /* AREA_F_*; zero in files written before them */
#define AREA_RSV6       (AREA + 6)      /* 2 */
#define AREA_TOD        (AREA + 8)
#define AREA_NPAGES     (AREA + 16)
#define AREA_NREC       (AREA + 20)
#define AREA_DATACRC    (AREA + 24)
#define AREA_PRODUCER   (AREA + 28)     /* ASCII, NUL padded: 44 bytes, 36 with a system */
#define AREA_SYSTEM     (AREA + 64)     /* ASCII, NUL padded, 8 bytes: with AREA_F_SYSTEM */
#define AREA_RSV72      (AREA + 72)     /* 4 */
#define AREA_CRC        (AREA + 76)     /* CRC-32 of the record with these 4 bytes zero */

/* AREA_FLAGS. The system's name came after the producer, in the producer's last 8 bytes:
 * the flag says which reading a control record takes, so a file written before it (flags
 * zero, a producer of up to 44 characters) reads as it always did. */
#define AREA_F_SYSTEM   0x80

/* D1R13 MRMTREOF, D1R11 MRMTREND: a header alone, 20 bytes. */
#define DOMAIN_MONITOR  1
#define REC_END         11
#define REC_EOF         13

static const uint8_t area_magic[4] = { 'Z', 'V', 'M', 'W' };

static uint16_t domain_bit(uint8_t domain)
{
    return domain < 16 ? (uint16_t)(0x8000u >> domain) : 0;
}

static uint32_t area_crc(const uint8_t *b)
{
    return mw_block_crc(b, AREA_CRC);
}

static void put_monitor_record(uint8_t *p, uint16_t number, uint64_t tod)
{
    memset(p, 0, ZVS_MON_HDR_LEN);
    be_put16(p, ZVS_MON_HDR_LEN);
    p[4] = DOMAIN_MONITOR;
    be_put16(p + 6, number);
    be_put64(p + 8, tod);
}

/* ==== building ======================================================================= */

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
    size_t c = *cap ? *cap : 4 * ZVS_MON_BLOCK;
    uint8_t *p;

    if (need <= *cap)
        return 0;
    while (c < need)
        c *= 2;
    p = realloc(*buf, c);
    if (!p)
        return -ENOMEM;
    *buf = p;
    *cap = c;
    return 0;
}

/* Starts data page `page` (0-based) zeroed; -ENOMEM or -E2BIG. */
static int new_page(uint8_t **buf, size_t *cap, unsigned page)
{
    if (page >= MW_MAX_PAGES)
        return -E2BIG;
    if (grow(buf, cap, (size_t)(page + 2) * ZVS_MON_BLOCK) < 0)
        return -ENOMEM;
    memset(*buf + (size_t)(page + 1) * ZVS_MON_BLOCK, 0, ZVS_MON_BLOCK);
    return 0;
}

int mw_build(uint8_t **buf, size_t *cap, unsigned version, bool sample, uint64_t tod,
             const struct zvs_mon_record *recs, unsigned n, const char *producer,
             const char *system)
{
    uint8_t rec[ZVS_MON_RECORD_MAX], *ctl;
    unsigned page = 0, off = 0;
    bool any = n > 0 || sample;         /* a sample group always has its interval end */
    uint16_t domains = 0;
    size_t plen = producer ? strlen(producer) : 0;
    size_t slen = system ? strlen(system) : 0;
    size_t pmax = slen ? MW_PRODUCER_LEN - MW_SYSTEM_LEN : MW_PRODUCER_LEN;

    if (grow(buf, cap, ZVS_MON_BLOCK) < 0)
        return -ENOMEM;
    memset(*buf, 0, ZVS_MON_BLOCK);
    if (any && new_page(buf, cap, 0) < 0)
        return -ENOMEM;
    for (unsigned i = 0; i < n; i++) {
        int len = zvs_mon_encode_version(&recs[i], version, rec, sizeof(rec));
        if (len < 0)
            return len;
        /* A record never spans a frame, and a frame keeps room for the 20-byte record that
         * ends it: D1R13 when more follows, D1R11 at a sample interval's end. */
        if (off + (unsigned)len > ZVS_MON_BLOCK - ZVS_MON_HDR_LEN) {
            put_monitor_record(*buf + (size_t)(page + 1) * ZVS_MON_BLOCK + off, REC_EOF, tod);
            domains |= domain_bit(DOMAIN_MONITOR);
            int rc = new_page(buf, cap, ++page);
            if (rc < 0)
                return rc;
            off = 0;
        }
        memcpy(*buf + (size_t)(page + 1) * ZVS_MON_BLOCK + off, rec, (size_t)len);
        off += (unsigned)len;
        domains |= domain_bit(recs[i].domain);
    }
    if (sample) {
        put_monitor_record(*buf + (size_t)(page + 1) * ZVS_MON_BLOCK + off, REC_END, tod);
        off += ZVS_MON_HDR_LEN;
        domains |= domain_bit(DOMAIN_MONITOR);
    }
    ctl = *buf;
    if (any) {
        uint8_t *en = ctl + MWT_CAREA;
        en[0] = sample ? MWT_SAMPLE : MWT_EVENT;
        be_put16(en + 1, domains);
        be_put32(en + 4, ZVS_MON_BLOCK);                            /* page 0's address */
        be_put32(en + 8, (uint32_t)((page + 1) * ZVS_MON_BLOCK + off - 1));
        be_put32(ctl + MWT_IPRMMSG1, MWT_CAREA);                    /* the entries' address */
        be_put32(ctl + MWT_IPRMMSG2, MWT_CAREA + MWT_CALEN - 1);
    }
    memcpy(ctl + AREA_MAGIC, area_magic, 4);
    ctl[AREA_VERSION] = (uint8_t)version;
    be_put64(ctl + AREA_TOD, tod);
    be_put32(ctl + AREA_NPAGES, any ? page + 1 : 0);
    be_put32(ctl + AREA_NREC, n);
    be_put32(ctl + AREA_DATACRC, any ? zvs_mon_crc32(0, ctl + ZVS_MON_BLOCK,
                                                       (size_t)(page + 1) * ZVS_MON_BLOCK) : 0);
    memcpy(ctl + AREA_PRODUCER, producer ? producer : "", plen > pmax ? pmax : plen);
    if (slen) {
        ctl[AREA_FLAGS] = AREA_F_SYSTEM;
        memcpy(ctl + AREA_SYSTEM, system, slen > MW_SYSTEM_LEN ? MW_SYSTEM_LEN : slen);
    }
    be_put32(ctl + AREA_CRC, area_crc(ctl));
    return any ? (int)page + 1 : 0;
}

/* ==== parsing the control record ===================================================== */

/* n bytes at p as a NUL-padded printable ASCII string into out (n + 1 bytes); false when
 * a byte is not printable or text follows a NUL. */
static bool ascii_field(const uint8_t *p, unsigned n, char *out)
{
    for (unsigned i = 0; i < n; i++) {
        uint8_t ch = p[i];
        if ((ch != 0 && (ch < 0x20 || ch > 0x7E)) || (ch != 0 && i > 0 && p[i - 1] == 0))
            return false;
        out[i] = (char)ch;
    }
    out[n] = '\0';
    return true;
}

static int parse_area(const uint8_t *b, struct mw_ctl *c, const char **why)
{
    if (be_get32(b + AREA_CRC) != area_crc(b)) {
        *why = "control record checksum mismatch";
        return -EBADMSG;
    }
    c->ours = true;
    c->version = b[AREA_VERSION];
    if (c->version != ZVS_MON_FORMAT_V3 && c->version != ZVS_MON_FORMAT_V4) {
        *why = "monitor file format version unknown";
        return -EPROTONOSUPPORT;
    }
    uint8_t flags = b[AREA_FLAGS];
    if ((flags & ~AREA_F_SYSTEM) || b[AREA_RSV6] || b[AREA_RSV6 + 1] ||
        be_get32(b + AREA_RSV72)) {
        *why = "control record: reserved bytes of our area not zero";
        return -EBADMSG;
    }
    c->tod = be_get64(b + AREA_TOD);
    c->npages = be_get32(b + AREA_NPAGES);
    c->nrec = be_get32(b + AREA_NREC);
    c->crc = be_get32(b + AREA_DATACRC);
    bool has_system = flags & AREA_F_SYSTEM;
    if (!ascii_field(b + AREA_PRODUCER,
                     has_system ? MW_PRODUCER_LEN - MW_SYSTEM_LEN : MW_PRODUCER_LEN,
                     c->producer)) {
        *why = "control record: producer not NUL-padded printable ASCII";
        return -EBADMSG;
    }
    if (has_system && (!ascii_field(b + AREA_SYSTEM, MW_SYSTEM_LEN, c->system) ||
                       c->system[0] == '\0')) {
        *why = "control record: system name not NUL-padded printable ASCII";
        return -EBADMSG;
    }
    return 0;
}

/* How many entries: the IUCV message's MCA start and end when they describe whole entries
 * (z/VM's files and ours), else up to the first empty entry. */
static unsigned count_entries(const uint8_t *b)
{
    uint32_t s = be_get32(b + MWT_IPRMMSG1), e = be_get32(b + MWT_IPRMMSG2);
    unsigned n = 0;

    if (e > s && (e - s + 1) % MWT_CALEN == 0 && (e - s + 1) / MWT_CALEN <= MW_MAX_ENTRIES)
        return (e - s + 1) / MWT_CALEN;
    while (n < MW_MAX_ENTRIES && b[MWT_CAREA + MWT_CALEN * n] != 0)
        n++;
    return n;
}

int mw_ctl_parse(const uint8_t *b, struct mw_ctl *c, const char **why)
{
    unsigned pages = 0;
    int rc;

    memset(c, 0, sizeof(*c));
    c->version = ZVS_MON_FORMAT_IBM;
    if (memcmp(b + AREA_MAGIC, area_magic, 4) == 0 && (rc = parse_area(b, c, why)) < 0)
        return rc;
    c->nent = count_entries(b);
    if (!c->ours && c->nent == 0) {
        *why = "not a MONWRITE control record (no entries)";
        return -EBADMSG;
    }
    for (unsigned i = 0; i < c->nent; i++) {
        const uint8_t *en = b + MWT_CAREA + MWT_CALEN * i;
        struct mw_entry *x = &c->ent[i];

        x->type = en[0];
        x->domains = be_get16(en + 1);
        x->start = be_get32(en + 4);
        x->end = be_get32(en + 8);
        x->page = pages;
        if ((x->type != MWT_SAMPLE && x->type != MWT_EVENT) || x->domains == 0 ||
            x->end <= x->start || (i > 0 && x->type != c->ent[0].type)) {
            *why = "control record entry: type, domains or addresses out of range";
            return -EBADMSG;
        }
        pages += (x->end >> 12) - (x->start >> 12) + 1;
        if (pages > MW_MAX_PAGES) {
            *why = "control record entries: more data pages than a group may have";
            return -EBADMSG;
        }
    }
    c->sample = c->nent > 0 && c->ent[0].type == MWT_SAMPLE;
    if (!c->ours) {
        c->npages = pages;
        return 0;
    }
    if (pages != c->npages || c->npages > MW_MAX_PAGES || (c->npages == 0) != (c->nent == 0)) {
        *why = "control record: page count does not match the entries";
        return -EBADMSG;
    }
    for (size_t i = MWT_CAREA + MWT_CALEN * (size_t)c->nent; i < AREA; i++) {
        if (b[i] != 0) {
            *why = "control record: bytes after the entries not zero";
            return -EBADMSG;
        }
    }
    return 0;
}

bool mw_is_ctl(const uint8_t *b)
{
    struct mw_ctl *c = malloc(sizeof(*c));
    const char *why;
    int rc;

    if (!c)
        return false;
    rc = mw_ctl_parse(b, c, &why);
    free(c);
    return rc == 0 || rc == -EPROTONOSUPPORT;
}

/* ==== walking the records ============================================================ */

struct walk {
    const struct mw_ctl *c;
    const uint8_t *pages;
    uint64_t ctl_off;
    struct zvs_mon_read_error *e;
    unsigned index;                     /* records walked, every domain */
    unsigned ours;                      /* records not of domain 1 */
};

static uint64_t file_off(const struct walk *w, unsigned page, unsigned off)
{
    return w->ctl_off + (uint64_t)(page + 1) * ZVS_MON_BLOCK + off;
}

static void fail(struct walk *w, unsigned page, unsigned off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void fail(struct walk *w, unsigned page, unsigned off, const char *fmt, ...)
{
    va_list ap;

    if (!w->e)
        return;
    w->e->offset = file_off(w, page, off);
    w->e->record = (int)w->index;
    va_start(ap, fmt);
    vsnprintf(w->e->what, sizeof(w->e->what), fmt, ap);
    va_end(ap);
}

/* One entry's records; returns records decoded into out or -EBADMSG. */
static int walk_entry(struct walk *w, const struct mw_entry *x, struct zvs_mon_record *out,
                      size_t cap, uint64_t *tod)
{
    uint64_t pos = x->start;
    uint16_t domains = 0;
    int k = 0;

    while (pos <= x->end) {
        unsigned page = x->page + (unsigned)((pos >> 12) - (x->start >> 12));
        unsigned off = (unsigned)(pos & 4095u);
        const uint8_t *p = w->pages + (size_t)page * ZVS_MON_BLOCK + off;
        unsigned len;
        uint8_t dom;
        uint16_t num;
        int rc;

        if (off + ZVS_MON_HDR_LEN > ZVS_MON_BLOCK || pos + ZVS_MON_HDR_LEN - 1 > x->end) {
            fail(w, page, off, off + ZVS_MON_HDR_LEN > ZVS_MON_BLOCK
                 ? "record header cut by the end of the frame (%u bytes left)"
                 : "record header cut by the end of the entry (%u bytes left)",
                 (unsigned)(off + ZVS_MON_HDR_LEN > ZVS_MON_BLOCK ? ZVS_MON_BLOCK - off
                                                                  : x->end - pos + 1));
            return -EBADMSG;
        }
        len = be_get16(p);
        if (len < ZVS_MON_HDR_LEN || off + len > ZVS_MON_BLOCK || pos + len - 1 > x->end) {
            fail(w, page, off, len < ZVS_MON_HDR_LEN || pos + len - 1 > x->end
                 ? "record length %u out of range" : "record of length %u spans a frame", len);
            return -EBADMSG;
        }
        dom = p[4];
        num = be_get16(p + 6);
        domains |= domain_bit(dom);
        *tod = be_get64(p + 8);
        w->index++;
        if (dom == DOMAIN_MONITOR && num == REC_EOF) {
            pos = ((pos >> 12) + 1) << 12;  /* the rest of the frame is not data */
            continue;
        }
        pos += len;
        if (dom == DOMAIN_MONITOR)
            continue;                   /* D1R11 interval end, and the monitor's own */
        w->ours++;
        if ((size_t)k >= cap) {
            fail(w, page, off, "more than %zu records", cap);
            return -EBADMSG;
        }
        rc = zvs_mon_decode_version(p, len, w->c->version, &out[k]);
        if (rc == -EBADMSG) {
            w->index--;
            fail(w, page, off, "%s record refused (length %u)", zvs_mon_record_name(dom, num),
                 len);
            return -EBADMSG;
        }
        if (rc == 0)
            k++;                        /* -ENOTSUP: a record we do not read, skipped */
    }
    if (w->c->ours && domains != x->domains) {
        fail(w, x->page, 0, "control record entry %td: domains do not match the records",
             x - w->c->ent);
        return -EBADMSG;
    }
    return k;
}

int mw_decode(const struct mw_ctl *c, const uint8_t *pages, uint64_t ctl_off,
              struct zvs_mon_record *out, size_t cap, uint64_t *tod,
              struct zvs_mon_read_error *e)
{
    struct walk w = { .c = c, .pages = pages, .ctl_off = ctl_off, .e = e };
    uint64_t last = 0;
    size_t n = 0;

    if (c->ours && zvs_mon_crc32(0, pages, (size_t)c->npages * ZVS_MON_BLOCK) != c->crc) {
        fail(&w, 0, 0, "data pages checksum mismatch (%u pages)", c->npages);
        return -EBADMSG;
    }
    for (unsigned i = 0; i < c->nent; i++) {
        int k = walk_entry(&w, &c->ent[i], out + n, cap - n, &last);
        if (k < 0)
            return k;
        n += (size_t)k;
    }
    if (c->ours && w.ours != c->nrec) {
        fail(&w, 0, 0, "control record says %u records, the pages hold a different number",
             c->nrec);
        return -EBADMSG;
    }
    *tod = c->ours ? c->tod : last;
    return (int)n;
}
