/* The MONWRITE framing of the monitor file (layout versions 3 and 4): private to monitor/, used by
 * monfile.c. Bytes: monitor/RECORDS.md, "The monitor file".
 *
 * A group is a 4096-byte control record, IBM's MWTBK (z/VM CP data areas, MWTBK, z/VM 7.5:
 * 0-39 MWTEXTBF, the IUCV message pending external interrupt buffer; from 40 the control
 * area, 12-byte entries MWTCADOM / MWTCASTR / MWTCAEND), followed by the 4096-byte monitor
 * data pages (frames) the entries point into. A record never spans a frame; a frame with
 * more data after it ends with D1R13 (MRMTREOF, end of frame) and a sample interval ends
 * with D1R11 (MRMTREND, interval end), as z/VM writes them.
 *
 * zvswitch's own data (layout version, producer, system name, TOD, counts, CRC-32s) sits in the last 80
 * bytes of the control record, our area, which an IBM reader never reaches: it reads as
 * many entries as the IUCV message's MCA start and end addresses (bytes 12-19) say (one),
 * and the entries after ours are zero. A control record without our area is z/VM's own
 * (a file MONWRITE wrote): read with the IBM record layouts (ZVS_MON_FORMAT_IBM).
 */
#ifndef ZVS_MONWRITE_INTERNAL_H
#define ZVS_MONWRITE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "monitor/monfile.h"

#define MW_MAX_ENTRIES   ((4016 - 40) / 12)     /* entries that fit before our area */
#define MW_MAX_PAGES     1024                   /* data pages of one group we accept */
#define MW_PRODUCER_LEN  44                     /* 36 when the system's name follows */
#define MW_SYSTEM_LEN    8                      /* the SYSTEM_IDENTIFIER name */

/* A parsed control record. */
struct mw_ctl {
    bool     ours;                      /* our area present: a zvswitch file */
    unsigned version;                   /* ZVS_MON_FORMAT_V3 or _V4, or ZVS_MON_FORMAT_IBM */
    bool     sample;                    /* every entry X'E2' (else every one X'C5') */
    uint64_t tod;                       /* ours: the group's TOD; z/VM's: 0 (from records) */
    unsigned npages;                    /* data pages after the control record */
    unsigned nrec;                      /* ours: records of ours in the group */
    uint32_t crc;                       /* ours: CRC-32 of the data pages */
    unsigned nent;
    struct mw_entry {
        uint8_t  type;                  /* X'E2' sample, X'C5' event */
        uint16_t domains;               /* bit (15 - domain) */
        uint32_t start, end;            /* first and last byte of the records */
        unsigned page;                  /* its first data page, counted from 0 */
    } ent[MW_MAX_ENTRIES];
    char     producer[MW_PRODUCER_LEN + 1];
    char     system[MW_SYSTEM_LEN + 1];  /* "" in files without it */
};

/* CRC-32 of a 4096-byte block with the 4 bytes at `hole` taken as zero: the control
 * blocks' own checksums, of both framings (monfile.c). */
uint32_t mw_block_crc(const uint8_t *b, size_t hole);

/* 0, -EBADMSG (why set) or -EPROTONOSUPPORT (our area, a version we do not know). */
int mw_ctl_parse(const uint8_t *b, struct mw_ctl *c, const char **why);
/* A block that parses as a control record (or one of a version we do not know). */
bool mw_is_ctl(const uint8_t *b);

/* Builds a group (control record and data pages) of layout `version` (3 or 4) into *buf,
 * growing it; returns the number of data pages or -errno. */
int mw_build(uint8_t **buf, size_t *cap, unsigned version, bool sample, uint64_t tod,
             const struct zvs_mon_record *recs, unsigned n, const char *producer,
             const char *system);

/* Walks the data pages (npages of them at pages; the file offset of the control record is
 * ctl_off), decoding our records into out (room for cap) and skipping the rest. Returns the
 * number decoded, or -EBADMSG / -ENOMEM with e filled. */
int mw_decode(const struct mw_ctl *c, const uint8_t *pages, uint64_t ctl_off,
              struct zvs_mon_record *out, size_t cap, uint64_t *tod,
              struct zvs_mon_read_error *e);

#endif
