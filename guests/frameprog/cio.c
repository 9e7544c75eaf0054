/* Channel I/O on ESA/390 subchannels, by polling: STSCH finds the devices, MSCH
 * enables them, SSCH starts a channel program, TSCH collects its ending status. The
 * PSW stays disabled for I/O: an interruption only ends fp_wait(), and its status is
 * then read here with TSCH. */
#include "fp.h"

struct schib {
    uint32_t intparm;
    uint16_t flags;                     /* ISC (bits 2-4), E (0x0080), V (0x0001) */
    uint16_t devno;
    uint8_t lpm, pnom, lpum, pim;
    uint16_t mbi;
    uint8_t pom, pam;
    uint8_t chpid[8];
    uint32_t misc;
    uint8_t scsw[12];
    uint8_t model[12];
} __attribute__((packed, aligned(4)));

struct orb {
    uint32_t intparm;
    uint32_t ctl;                       /* key, flags, LPM */
    uint32_t ccw;
    uint32_t ext[5];
} __attribute__((aligned(8)));

struct irb {
    uint8_t scsw[12];
    uint8_t rest[84];
} __attribute__((aligned(8)));

#define PMCW_ENABLED 0x0080
#define PMCW_VALID   0x0001
#define ORB_FORMAT1  0x00800000
#define ORB_LPM_ALL  0x0000FF00
#define SC_PRIMARY   0x04
#define SC_SECONDARY 0x02
#define SC_PENDING   0x01

static int stsch(uint32_t sid, struct schib *s)
{
    int cc;
    __asm__ volatile("lr 1,%[sid]\n\tstsch %[s]\n\tipm %[cc]\n\tsrl %[cc],28"
                     : [cc] "=d"(cc), [s] "=Q"(*s) : [sid] "d"(sid) : "cc", "1");
    return cc;
}

static int msch(uint32_t sid, struct schib *s)
{
    int cc;
    __asm__ volatile("lr 1,%[sid]\n\tmsch %[s]\n\tipm %[cc]\n\tsrl %[cc],28"
                     : [cc] "=d"(cc) : [sid] "d"(sid), [s] "Q"(*s) : "cc", "1", "memory");
    return cc;
}

static int ssch(uint32_t sid, struct orb *o)
{
    int cc;
    __asm__ volatile("lr 1,%[sid]\n\tssch %[o]\n\tipm %[cc]\n\tsrl %[cc],28"
                     : [cc] "=d"(cc) : [sid] "d"(sid), [o] "Q"(*o) : "cc", "1", "memory");
    return cc;
}

static int tsch(uint32_t sid, struct irb *i)
{
    int cc;
    __asm__ volatile("lr 1,%[sid]\n\ttsch %[i]\n\tipm %[cc]\n\tsrl %[cc],28"
                     : [cc] "=d"(cc), [i] "=Q"(*i) : [sid] "d"(sid) : "cc", "1", "memory");
    return cc;
}

/* The next valid subchannel at or after *schno; 0 when there are no more. */
int cio_next(uint32_t *schno, struct cio_dev *d)
{
    struct schib s;
    for (; *schno <= 0xFFFF; (*schno)++) {
        uint32_t sid = 0x00010000u | *schno;
        int cc = stsch(sid, &s);
        if (cc == 3)
            return 0;
        if (cc == 0 && (s.flags & PMCW_VALID)) {
            memset(d, 0, sizeof *d);
            d->sid = sid;
            d->devno = s.devno;
            (*schno)++;
            return 1;
        }
    }
    return 0;
}

int cio_find(uint16_t devno, struct cio_dev *d)
{
    uint32_t schno = 0;
    while (cio_next(&schno, d))
        if (d->devno == devno)
            return 1;
    return 0;
}

int cio_enable(struct cio_dev *d)
{
    struct schib s;
    if (stsch(d->sid, &s) != 0)
        return -1;
    s.intparm = d->sid;
    s.flags = (uint16_t)((s.flags & ~0x3800u) | PMCW_ENABLED);   /* ISC 0, enabled */
    if (msch(d->sid, &s) != 0)
        return -1;
    if (stsch(d->sid, &s) != 0 || !(s.flags & PMCW_ENABLED))
        return -1;
    return 0;
}

int cio_start(struct cio_dev *d, struct ccw1 *ccw)
{
    static struct orb o;
    memset(&o, 0, sizeof o);
    o.intparm = d->sid;
    o.ctl = ORB_FORMAT1 | ORB_LPM_ALL;
    o.ccw = (uint32_t)ccw;
    for (int tries = 0; tries < 1000; tries++) {
        int cc = ssch(d->sid, &o);
        if (cc == 0) {
            d->busy = 1;
            return 0;
        }
        if (cc == 3)
            return -1;
        /* cc 1: status pending (e.g. an unsolicited attention): clear it and retry. */
        struct irb irb;
        tsch(d->sid, &irb);
    }
    return -1;
}

int cio_poll(struct cio_dev *d)
{
    struct irb irb;
    if (!d->busy)
        return 0;
    if (tsch(d->sid, &irb) != 0)
        return 0;
    uint8_t sc = irb.scsw[3] & 0x1F;
    if (!(sc & SC_PENDING) || !(sc & (SC_PRIMARY | SC_SECONDARY)))
        return 0;                       /* intermediate or unsolicited status */
    d->dstat = irb.scsw[8];
    d->cstat = irb.scsw[9];
    d->residual = (uint16_t)((irb.scsw[10] << 8) | irb.scsw[11]);
    d->busy = 0;
    return 1;
}

int cio_run(struct cio_dev *d, struct ccw1 *ccw, uint32_t timeout_us)
{
    if (cio_start(d, ccw) != 0)
        return -1;
    uint32_t t0 = fp_now_us();
    while (!cio_poll(d))
        if (fp_now_us() - t0 > timeout_us)
            return -1;
    /* Unit check or a channel error other than incorrect length fail. */
    if ((d->dstat & 0x02) || (d->cstat & ~0x40))
        return -1;
    return 0;
}

int cio_sense_id(struct cio_dev *d)
{
    static uint8_t id[8] __attribute__((aligned(8)));
    static struct ccw1 ccw;
    memset(id, 0, sizeof id);
    ccw.cmd = 0xE4;
    ccw.flags = CCW_SLI;
    ccw.count = 7;
    ccw.addr = (uint32_t)id;
    if (cio_enable(d) != 0 || cio_run(d, &ccw, 1000000) != 0 || id[0] != 0xFF)
        return -1;
    d->cu_type = (uint16_t)((id[1] << 8) | id[2]);
    d->cu_model = id[3];
    d->dev_type = (uint16_t)((id[4] << 8) | id[5]);
    d->dev_model = id[6];
    return 0;
}
