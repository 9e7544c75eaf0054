/* An independent MONWRITE writer and reader for tests, written from IBM's pages only and
 * never calling monitor/: what a z/VM shop's own tools would do with a monitor file.
 *
 * Sources (all IBM): z/VM CP data areas MWTBK (z/VM 7.5): the 4 KB control record, 0-39
 * the IUCV message pending external interrupt buffer, from 40 the 12-byte control area
 * entries (domain information, start address, end address); the Linux kernel's monreader
 * documentation and driver: the IUCV message's 8 bytes (offsets 12 and 16) are the MCA
 * start and end addresses, an entry's first byte is its type and bytes 1-2 its domains,
 * the start address gives the record set's offset within its 4 KB frame. Monitor records:
 * MRRECHDR; MRMTREOF (D1R13, end of frame: "its presence implies that there is another
 * frame of data to follow"; "the record itself will not be spanned across a frame
 * boundary"); MRMTREND (D1R11, interval end: the last record of a sample interval);
 * MRIODVSW (z/VM 7.1, 492 bytes), MRIODVSF (z/VM 7.2), MRIODVSR (z/VM 7.4), MRVNDLSU
 * (z/VM 6.1); MRVNDSES (z/VM 5.3) at the offsets of zpmd's decoder (IBM's page not found).
 * D6R21's 32-79 are the one part no IBM page we found shows: IBM's field names
 * (VMDUSER, NICTXBYT, NICRXBYT, then six 4-byte NIC counters) in the order of IBM's field
 * list, marked where they are written.
 */
#ifndef ZVS_TEST_MONWRITE_IBM_H
#define ZVS_TEST_MONWRITE_IBM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IBM_FRAME       4096
#define IBM_TYPE_SAMPLE 0xE2            /* EBCDIC 'S' */
#define IBM_TYPE_EVENT  0xC5            /* EBCDIC 'E' */

/* ---- records at IBM's layouts --------------------------------------------------------- */

/* A record header (MRRECHDR) of `len` bytes at b, the rest of the record zeroed. */
void ibm_hdr(uint8_t *b, uint16_t len, uint8_t domain, uint16_t number, uint64_t tod);
/* An 8-byte EBCDIC name, blank padded (A-Z 0-9 @ # $ only). */
void ibm_name(uint8_t *b, const char *ascii);
/* Reads one back into out[9]; false if it is not a blank-padded name. */
bool ibm_name_get(char out[9], const uint8_t *b);

struct ibm_d6r21 {                      /* MRIODVSW, z/VM 7.1 */
    uint16_t rdev;
    uint8_t  lanfsv, osaport;
    const char *vmduser;
    uint64_t txbyt, rxbyt;
    uint32_t txpkt, txdsc, txerr, rxpkt, rxdsc, rxerr;
};
size_t ibm_put_d6r21(uint8_t *b, uint64_t tod, const struct ibm_d6r21 *v);     /* 492 */
void ibm_get_d6r21(const uint8_t *b, struct ibm_d6r21 *v, char vmduser[9]);

struct ibm_d6r2x {                      /* MRIODVSF (z/VM 7.2) / MRIODVSR (z/VM 7.4) */
    const char *owner, *name, *cont, *swpgroup;   /* swpgroup: D6R22 only */
    uint16_t rdev;
    uint8_t  osaport;
    uint8_t  byte47;                    /* D6R22: IODVSF_FLAG1; D6R23: IODVSR_LANTYPE */
    uint8_t  rsn;                       /* D6R22: IODVSF_LANRDD_RSN */
};
size_t ibm_put_d6r22(uint8_t *b, uint64_t tod, const struct ibm_d6r2x *v);      /* 80 */
size_t ibm_put_d6r23(uint8_t *b, uint64_t tod, const struct ibm_d6r2x *v);      /* 88 */

struct ibm_d8r23 {                      /* MRVNDLSU, z/VM 6.1 (MRVNDLSD the same) */
    const char *lanowner, *lanname, *nicowner;
    uint16_t nicbase;
    uint8_t  nictype, lantype, flags;
};
size_t ibm_put_d8r23(uint8_t *b, uint16_t number, uint64_t tod, const struct ibm_d8r23 *v);

struct ibm_d8r1 {                       /* MRVNDSES, z/VM 5.3 (zpmd's offsets) */
    const char *owner, *lanowner, *lanname, *swpgroup;
    uint16_t vdevdev;                   /* NICBASE written the same */
    uint8_t  nicmac[6];
    uint8_t  nictranp, nictype, vswitch;
    uint64_t ses[8];                    /* SESTXBYT, SESRXBYT, SESTXPKT, SESTXDSC, SESTXERR,
                                           SESRXPKT, SESRXDSC, SESRXERR */
};
size_t ibm_put_d8r1(uint8_t *b, uint64_t tod, const struct ibm_d8r1 *v);       /* 316 */
void ibm_get_d8r1(const uint8_t *b, struct ibm_d8r1 *v, char names[4][9]);

/* ---- writing a MONWRITE file ---------------------------------------------------------- */

/* One record set (one control area entry): frames built as *MONITOR fills them. */
struct ibm_set {
    uint8_t  type;                      /* IBM_TYPE_* */
    uint32_t start;                     /* DCSS address of the first record */
    uint16_t domains;                   /* bit (15 - domain) of every record put */
    uint8_t *frames;                    /* nframes * 4096 */
    unsigned nframes;
    unsigned off;                       /* next free byte in the last frame */
};

/* Starts a set at DCSS address `start` (any offset within its frame: the bytes before it
 * in the first frame are left as `fill`, as another set's would be). */
void ibm_set_begin(struct ibm_set *s, uint8_t type, uint32_t start, uint8_t fill);
/* Adds a record; a record that would not leave room for the 20-byte D1R13 starts a new
 * frame after a D1R13 (tod). */
void ibm_set_add(struct ibm_set *s, const uint8_t *rec, size_t len, uint64_t tod);
/* Ends a sample interval with D1R11. */
void ibm_set_end_interval(struct ibm_set *s, uint64_t tod);
void ibm_set_free(struct ibm_set *s);

/* Appends a control record with one entry per set (all of one type), then each set's
 * frames in entry order. */
void ibm_file_append(uint8_t **file, size_t *len, struct ibm_set *const *sets, unsigned n);

/* ---- reading a MONWRITE file ---------------------------------------------------------- */

struct ibm_rec {
    uint8_t  domain;
    uint16_t number;
    uint16_t len;
    const uint8_t *p;                   /* into the file */
};

struct ibm_group {
    uint8_t  type;
    unsigned nent;
    unsigned nrec;
    struct ibm_rec rec[512];            /* every record but D1R13, D1R11 included */
};

/* Reads the group at *off and advances *off past its frames. Checks what IBM's pages say:
 * entries counted from the IUCV message, every entry of one type with domains, records
 * within their entry and frame, D1R13 only with a frame after it, D1R11 last in a sample
 * set. Returns 1, 0 at the end, or -1 with why set. */
int ibm_read_group(const uint8_t *file, size_t len, size_t *off, struct ibm_group *g,
                   const char **why);

#endif
