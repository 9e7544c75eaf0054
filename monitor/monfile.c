/* The monitor file: a MONWRITE-like stream of 4096-byte blocks (monitor/RECORDS.md, "File").
 *
 * Owns: the control block format, packing records into data blocks, rotation, the live
 * subscriber, and a reader that survives damage.
 *
 * Writer rules: a group is built whole in memory and appended with one write() (O_APPEND),
 * so a reader following the file meets whole groups; a failed write is cut back off
 * (ftruncate) so the file stays at a group boundary; a file whose size is not a multiple
 * of 4096 (a crash) is padded with zeros at open so later groups stay block aligned.
 * Rotation: when a group would take the file past max_bytes, name.(K-1) -> name.K ...
 * name -> name.1 and a new file starts (a group bigger than the bound still goes whole
 * into an empty file).
 *
 * Reader rules: strictly sequential (works on pipes), one block at a time through a
 * staging buffer, so a non-blocking fd can return -EAGAIN at any point without losing
 * data. A control block is valid when its magic, version, checksum and entries are; each
 * data block has its own CRC-32 in the control block. On a bad control block the reader
 * reports it and skips blocks until a valid control block; on a bad data block or record
 * it reports the record and goes on after the group; a valid control block met where a
 * data block was expected ends the current group as truncated and starts the next one.
 * Allocation follows the data actually read, never a count from the file.
 *
 * Hazard: a subscriber that cannot take a whole group at once is dropped mid-group; its
 * reader sees a truncated group. That is the price of never blocking the daemon.
 */
#include "monitor/monfile.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "monitor/be.h"
#include "monitor/monwrite_internal.h"

/* Control block */
#define CTL_MAGIC       0               /* "ZVMW" */
#define CTL_VERSION     4
#define CTL_FLAG        5               /* X'E2' 'S' sample, X'C5' 'E' event, as MWTBK */
#define CTL_DOMAINS     6               /* bit (15 - domain): X'0200' I/O, X'0080' network */
#define CTL_TOD         8
#define CTL_NBLOCKS     16
#define CTL_NREC        20
#define CTL_RSV24       24
#define CTL_CRC         28              /* CRC-32 of the block with these 4 bytes as zero */
#define CTL_ENTRIES     32              /* per data block: used(2) nrec(2) crc32(4) */
#define CTL_ENTRY_LEN   8
#define CTL_MAX_BLOCKS  ((ZVS_MON_BLOCK - CTL_ENTRIES) / CTL_ENTRY_LEN)   /* 508 */
/* The control block's version is the layout version of the group's records
 * (ZVS_MON_FORMAT_*, monitor/monrec.h): 1 or 2. Another version is refused. Version 3
 * and 4 groups have the MONWRITE framing instead (monitor/monwrite.c). */
#define FLAG_SAMPLE     0xE2
#define FLAG_EVENT      0xC5
#define MAX_REC_PER_BLOCK (ZVS_MON_BLOCK / ZVS_MON_HDR_LEN)

static const uint8_t ctl_magic[4] = { 'Z', 'V', 'M', 'W' };

/* zlib's CRC-32 (IEEE 802.3, reflected): the same values the table here computed before, so
 * files written then still check (test_monfile's file of an earlier vswitchd). zlib takes
 * uInt lengths; ours are at most a block, but longer ones are fed in slices all the same. */
uint32_t zvs_mon_crc32(uint32_t crc, const void *buf, size_t len)
{
    const Bytef *p = buf;
    uLong c = crc;

    while (len > 0) {
        uInt n = len > UINT_MAX ? UINT_MAX : (uInt)len;
        c = crc32(c, p, n);
        p += n;
        len -= n;
    }
    return (uint32_t)c;
}

static uint16_t domain_bit(uint8_t domain)
{
    return domain < 16 ? (uint16_t)(0x8000u >> domain) : 0;
}

uint32_t mw_block_crc(const uint8_t *b, size_t hole)
{
    static const uint8_t zero[4];
    uint32_t crc = zvs_mon_crc32(0, b, hole);

    crc = zvs_mon_crc32(crc, zero, 4);
    return zvs_mon_crc32(crc, b + hole + 4, ZVS_MON_BLOCK - hole - 4);
}

static uint32_t ctl_crc(const uint8_t *b)
{
    return mw_block_crc(b, CTL_CRC);
}

/* ==== writer ======================================================================== */

struct zvs_mon_writer {
    char    *path;
    int      fd;
    uint64_t size;                      /* bytes in the current file */
    uint64_t max_bytes;
    unsigned keep;
    unsigned version;                   /* record layout written, ZVS_MON_FORMAT_* */
    char    *producer;                  /* for the MONWRITE control record, or NULL */
    char    *system;                    /* likewise, the system's name, or NULL */
    int      sub;                       /* live subscriber, -1 none */
    uint8_t *buf;                       /* the group being built */
    size_t   cap;
};

static int open_append(const char *path, uint64_t *size)
{
    static const uint8_t zero[ZVS_MON_BLOCK];
    struct stat st;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) < 0)
        goto fail;
    *size = (uint64_t)st.st_size;
    if (*size % ZVS_MON_BLOCK != 0) {
        size_t pad = ZVS_MON_BLOCK - *size % ZVS_MON_BLOCK;
        if (write(fd, zero, pad) != (ssize_t)pad)
            goto fail;
        *size += pad;
    }
    return fd;
fail:
    {
        int rc = errno ? -errno : -EIO;
        close(fd);
        return rc;
    }
}

struct zvs_mon_writer *zvs_mon_writer_open(const char *path,
                                           const struct zvs_mon_writer_opts *opts, int *err)
{
    struct zvs_mon_writer *w = calloc(1, sizeof(*w));
    int rc = -ENOMEM;

    if (!w)
        goto fail;
    w->fd = -1;
    w->sub = -1;
    w->path = strdup(path);
    if (!w->path)
        goto fail;
    w->max_bytes = opts ? opts->max_bytes : 0;
    w->keep = opts && opts->keep > 0 ? opts->keep : 1;
    w->version = opts && opts->format_version ? opts->format_version : ZVS_MON_FORMAT_CURRENT;
    if (w->version < ZVS_MON_FORMAT_V1 || w->version > ZVS_MON_FORMAT_V4) {
        rc = -EINVAL;
        goto fail;
    }
    if (opts && opts->producer && !(w->producer = strdup(opts->producer)))
        goto fail;
    if (opts && opts->system && opts->system[0]) {
        for (const char *c = opts->system; *c; c++) {
            if (*c < 0x20 || *c > 0x7E || c - opts->system >= 8) {
                rc = -EINVAL;           /* a name no reader would take back */
                goto fail;
            }
        }
        if (!(w->system = strdup(opts->system)))
            goto fail;
    }
    w->fd = open_append(path, &w->size);
    if (w->fd < 0) {
        rc = w->fd;
        goto fail;
    }
    return w;
fail:
    if (w) {
        free(w->path);
        free(w->producer);
        free(w->system);
    }
    free(w);
    if (err)
        *err = rc;
    return NULL;
}

void zvs_mon_writer_close(struct zvs_mon_writer *w)
{
    if (!w)
        return;
    zvs_mon_writer_subscribe(w, -1);
    if (w->fd >= 0)
        close(w->fd);
    free(w->buf);
    free(w->path);
    free(w->producer);
    free(w->system);
    free(w);
}

void zvs_mon_writer_subscribe(struct zvs_mon_writer *w, int fd)
{
    if (w->sub >= 0 && w->sub != fd)
        close(w->sub);
    w->sub = fd;
    if (fd >= 0) {
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
            close(fd);
            w->sub = -1;
        }
    }
}

bool zvs_mon_writer_subscribed(const struct zvs_mon_writer *w)
{
    return w->sub >= 0;
}

static int reserve(struct zvs_mon_writer *w, size_t need)
{
    if (need <= w->cap)
        return 0;
    size_t cap = w->cap ? w->cap : 4 * ZVS_MON_BLOCK;
    while (cap < need)
        cap *= 2;
    uint8_t *p = realloc(w->buf, cap);
    if (!p)
        return -ENOMEM;
    w->buf = p;
    w->cap = cap;
    return 0;
}

/* Packs the records after the control block; returns the number of data blocks or -errno. */
static int build_group(struct zvs_mon_writer *w, bool sample, uint64_t tod,
                       const struct zvs_mon_record *recs, unsigned n)
{
    uint8_t rec[ZVS_MON_RECORD_MAX];
    uint8_t *ctl, *blk = NULL;
    unsigned nblk = 0, used = 0, inblk = 0;
    uint16_t domains = 0;

    if (w->version >= ZVS_MON_FORMAT_V3)
        return mw_build(&w->buf, &w->cap, w->version, sample, tod, recs, n, w->producer,
                        w->system);
    if (reserve(w, ZVS_MON_BLOCK) < 0)
        return -ENOMEM;
    memset(w->buf, 0, ZVS_MON_BLOCK);
    for (unsigned i = 0; i < n; i++) {
        int len = zvs_mon_encode_version(&recs[i], w->version, rec, sizeof(rec));
        if (len < 0)
            return len;
        if (!blk || used + (unsigned)len > ZVS_MON_BLOCK) {
            if (blk) {
                be_put16(w->buf + CTL_ENTRIES + CTL_ENTRY_LEN * (nblk - 1), (uint16_t)used);
                be_put16(w->buf + CTL_ENTRIES + CTL_ENTRY_LEN * (nblk - 1) + 2, (uint16_t)inblk);
            }
            if (nblk == CTL_MAX_BLOCKS)
                return -E2BIG;
            if (reserve(w, (size_t)(nblk + 2) * ZVS_MON_BLOCK) < 0)
                return -ENOMEM;
            blk = w->buf + (size_t)(nblk + 1) * ZVS_MON_BLOCK;
            memset(blk, 0, ZVS_MON_BLOCK);
            nblk++;
            used = 0;
            inblk = 0;
        }
        memcpy(blk + used, rec, (size_t)len);
        used += (unsigned)len;
        inblk++;
        domains |= domain_bit(recs[i].domain);
    }
    ctl = w->buf;
    if (blk) {
        be_put16(ctl + CTL_ENTRIES + CTL_ENTRY_LEN * (nblk - 1), (uint16_t)used);
        be_put16(ctl + CTL_ENTRIES + CTL_ENTRY_LEN * (nblk - 1) + 2, (uint16_t)inblk);
    }
    for (unsigned b = 0; b < nblk; b++)
        be_put32(ctl + CTL_ENTRIES + CTL_ENTRY_LEN * b + 4,
              zvs_mon_crc32(0, ctl + (size_t)(b + 1) * ZVS_MON_BLOCK, ZVS_MON_BLOCK));
    memcpy(ctl + CTL_MAGIC, ctl_magic, 4);
    ctl[CTL_VERSION] = (uint8_t)w->version;
    ctl[CTL_FLAG] = sample ? FLAG_SAMPLE : FLAG_EVENT;
    be_put16(ctl + CTL_DOMAINS, domains);
    be_put32(ctl + CTL_TOD, (uint32_t)(tod >> 32));
    be_put32(ctl + CTL_TOD + 4, (uint32_t)tod);
    be_put32(ctl + CTL_NBLOCKS, nblk);
    be_put32(ctl + CTL_NREC, n);
    be_put32(ctl + CTL_CRC, ctl_crc(ctl));
    return (int)nblk;
}

static int rotate(struct zvs_mon_writer *w)
{
    size_t plen = strlen(w->path) + 16;
    char *from = malloc(plen), *to = malloc(plen);
    int rc = -ENOMEM;

    if (!from || !to)
        goto out;
    close(w->fd);
    w->fd = -1;
    for (unsigned i = w->keep; i > 1; i--) {
        snprintf(from, plen, "%s.%u", w->path, i - 1);
        snprintf(to, plen, "%s.%u", w->path, i);
        if (rename(from, to) < 0 && errno != ENOENT) {
            rc = -errno;
            goto reopen;
        }
    }
    snprintf(to, plen, "%s.1", w->path);
    rc = rename(w->path, to) < 0 ? -errno : 0;
reopen:
    {
        int fd = open_append(w->path, &w->size);
        if (fd < 0)
            rc = fd;
        else
            w->fd = fd;
    }
out:
    free(from);
    free(to);
    return rc;
}

/* write() to a pipe whose reader has gone raises SIGPIPE; the daemon may not ignore it,
 * so block it around the write and take back a SIGPIPE that the write caused. */
static ssize_t write_nosigpipe(int fd, const void *p, size_t n)
{
    sigset_t pipe_set, old, pending;
    ssize_t k;
    int saved;
    bool was_pending;

    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigpending(&pending);
    was_pending = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    k = write(fd, p, n);
    saved = errno;
    if (k < 0 && saved == EPIPE && !was_pending) {
        static const struct timespec zero;
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return k;
}

static void feed_subscriber(struct zvs_mon_writer *w, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t k = send(w->sub, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k < 0 && errno == ENOTSOCK)
            k = write_nosigpipe(w->sub, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {                   /* EAGAIN: not keeping up; EPIPE: gone */
            zvs_mon_writer_subscribe(w, -1);
            return;
        }
        p += k;
        n -= (size_t)k;
    }
}

int zvs_mon_write_group(struct zvs_mon_writer *w, bool sample, uint64_t tod,
                        const struct zvs_mon_record *recs, unsigned n)
{
    int nblk = build_group(w, sample, tod, recs, n);
    size_t total, done = 0;

    if (nblk < 0)
        return nblk;
    total = (size_t)(nblk + 1) * ZVS_MON_BLOCK;
    if (w->fd < 0 || (w->max_bytes && w->size > 0 && w->size + total > w->max_bytes)) {
        int rc = rotate(w);
        if (rc < 0 && w->fd < 0)
            return rc;
    }
    while (done < total) {
        ssize_t k = write(w->fd, w->buf + done, total - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            int rc = k < 0 ? -errno : -EIO;
            if (done > 0 && ftruncate(w->fd, (off_t)w->size) < 0)
                rc = -errno;
            return rc;
        }
        done += (size_t)k;
    }
    w->size += total;
    if (w->sub >= 0)
        feed_subscriber(w, w->buf, total);
    return 0;
}

/* ==== reader ======================================================================== */

enum rd_state {
    RD_CTL,                             /* the next block must be a control block */
    RD_DATA,                            /* reading the data blocks of a group */
    RD_RESYNC,                          /* skipping to the next valid control block */
    RD_END,                             /* truncated: nothing more */
};

struct ctl {
    unsigned version;                   /* ZVS_MON_FORMAT_* of the group's records */
    bool     sample;
    uint16_t domains;
    uint64_t tod;
    unsigned nblocks;
    unsigned nrec;
    uint16_t used[CTL_MAX_BLOCKS];
    uint16_t nrec_blk[CTL_MAX_BLOCKS];
    uint32_t crc[CTL_MAX_BLOCKS];
};

struct zvs_mon_reader {
    int            fd;                  /* -1 for memory */
    bool           own_fd;
    const uint8_t *mem;
    size_t         memlen;
    uint64_t       pos;                 /* offset of the block being staged */
    uint8_t        stage[ZVS_MON_BLOCK];
    size_t         stage_len;
    enum rd_state  state;
    bool           mw;                  /* the group has the MONWRITE framing */
    struct ctl     ctl;                 /* its control block (ZVMW framing) */
    struct mw_ctl  mwc;                 /* its control record (MONWRITE framing) */
    uint64_t       ctl_off;
    uint8_t       *data;                /* the group's data blocks */
    size_t         data_cap;            /* in blocks */
    unsigned       have;                /* data blocks read */
    struct zvs_mon_record *rec;
    size_t         rec_cap;
};

static struct zvs_mon_reader *reader_new(int *err)
{
    struct zvs_mon_reader *rd = calloc(1, sizeof(*rd));

    if (!rd && err)
        *err = -ENOMEM;
    if (rd)
        rd->fd = -1;
    return rd;
}

struct zvs_mon_reader *zvs_mon_reader_open(const char *path, int *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct zvs_mon_reader *rd;

    if (fd < 0) {
        if (err)
            *err = -errno;
        return NULL;
    }
    rd = reader_new(err);
    if (!rd) {
        close(fd);
        return NULL;
    }
    rd->fd = fd;
    rd->own_fd = true;
    return rd;
}

struct zvs_mon_reader *zvs_mon_reader_fdopen(int fd, int *err)
{
    struct zvs_mon_reader *rd;

    if (fd < 0) {
        if (err)
            *err = -EBADF;
        return NULL;
    }
    rd = reader_new(err);
    if (rd)
        rd->fd = fd;
    return rd;
}

struct zvs_mon_reader *zvs_mon_reader_memopen(const void *buf, size_t len, int *err)
{
    struct zvs_mon_reader *rd = reader_new(err);

    if (rd) {
        rd->mem = buf;
        rd->memlen = buf ? len : 0;
    }
    return rd;
}

void zvs_mon_reader_close(struct zvs_mon_reader *rd)
{
    if (!rd)
        return;
    if (rd->own_fd)
        close(rd->fd);
    free(rd->data);
    free(rd->rec);
    free(rd);
}

/* Fills the staging buffer: 1 a whole block, 0 clean end, -ENODATA end inside a block,
 * -EAGAIN, or -errno. */
static int fill_block(struct zvs_mon_reader *rd)
{
    while (rd->stage_len < ZVS_MON_BLOCK) {
        size_t want = ZVS_MON_BLOCK - rd->stage_len;
        ssize_t k;
        if (rd->fd < 0) {
            uint64_t at = rd->pos + rd->stage_len;
            size_t left = at < rd->memlen ? (size_t)(rd->memlen - at) : 0;
            k = (ssize_t)(left < want ? left : want);
            memcpy(rd->stage + rd->stage_len, rd->mem + at, (size_t)k);
        } else {
            k = read(rd->fd, rd->stage + rd->stage_len, want);
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0)
                return errno == EWOULDBLOCK ? -EAGAIN : -errno;
        }
        if (k == 0)
            return rd->stage_len == 0 ? 0 : -ENODATA;
        rd->stage_len += (size_t)k;
    }
    return 1;
}

static void consume_block(struct zvs_mon_reader *rd)
{
    rd->pos += ZVS_MON_BLOCK;
    rd->stage_len = 0;
}

static void set_error(struct zvs_mon_read_error *e, uint64_t offset, int record, const char *fmt,
                      ...) __attribute__((format(printf, 4, 5)));

static void set_error(struct zvs_mon_read_error *e, uint64_t offset, int record, const char *fmt,
                      ...)
{
    va_list ap;

    if (!e)
        return;
    e->offset = offset;
    e->record = record;
    va_start(ap, fmt);
    vsnprintf(e->what, sizeof(e->what), fmt, ap);
    va_end(ap);
}

/* Parses a control block; 0, -EBADMSG with why set, or -EPROTONOSUPPORT: a sound control
 * block (magic and checksum right) of a format version we do not know. */
static int ctl_parse(const uint8_t *b, struct ctl *c, const char **why)
{
    unsigned sum = 0;

    if (memcmp(b + CTL_MAGIC, ctl_magic, 4) != 0) {
        *why = "not a control block (magic)";
        return -EBADMSG;
    }
    if (be_get32(b + CTL_CRC) != ctl_crc(b)) {
        *why = "control block checksum mismatch";
        return -EBADMSG;
    }
    c->nblocks = be_get32(b + CTL_NBLOCKS);
    c->nrec = be_get32(b + CTL_NREC);
    c->domains = be_get16(b + CTL_DOMAINS);
    c->tod = be_get64(b + CTL_TOD);
    c->version = b[CTL_VERSION];
    if (c->version != ZVS_MON_FORMAT_V1 && c->version != ZVS_MON_FORMAT_V2) {
        *why = "monitor file format version unknown";
        return -EPROTONOSUPPORT;
    }
    if (b[CTL_FLAG] != FLAG_SAMPLE && b[CTL_FLAG] != FLAG_EVENT) {
        *why = "control block flag neither sample nor event";
        return -EBADMSG;
    }
    c->sample = b[CTL_FLAG] == FLAG_SAMPLE;
    if (be_get32(b + CTL_RSV24) != 0 || c->nblocks > CTL_MAX_BLOCKS) {
        *why = "control block reserved bytes or block count";
        return -EBADMSG;
    }
    for (unsigned i = 0; i < c->nblocks; i++) {
        const uint8_t *en = b + CTL_ENTRIES + CTL_ENTRY_LEN * i;
        c->used[i] = be_get16(en);
        c->nrec_blk[i] = be_get16(en + 2);
        c->crc[i] = be_get32(en + 4);
        if (c->used[i] < ZVS_MON_HDR_LEN || c->used[i] > ZVS_MON_BLOCK ||
            c->nrec_blk[i] == 0 || c->nrec_blk[i] > c->used[i] / ZVS_MON_HDR_LEN) {
            *why = "control block entry out of range";
            return -EBADMSG;
        }
        sum += c->nrec_blk[i];
    }
    for (size_t i = CTL_ENTRIES + CTL_ENTRY_LEN * (size_t)c->nblocks; i < ZVS_MON_BLOCK; i++) {
        if (b[i] != 0) {
            *why = "control block tail not zero";
            return -EBADMSG;
        }
    }
    if (sum != c->nrec) {
        *why = "control block record count does not add up";
        return -EBADMSG;
    }
    return 0;
}

static bool is_zvmw_ctl(const uint8_t *b)
{
    struct ctl c;
    const char *why;

    /* cheap test first: most blocks are data. A control block of an unknown version is
     * one too: the reader stops there and says so. */
    if (memcmp(b, ctl_magic, 4) != 0)
        return false;
    int rc = ctl_parse(b, &c, &why);
    return rc == 0 || rc == -EPROTONOSUPPORT;
}

/* A control block of ours (either framing): what ends a group cut short. A z/VM control
 * record is not looked for there, its data pages are counted from its entries. */
static bool is_ctl(const uint8_t *b)
{
    return is_zvmw_ctl(b) ||
           (memcmp(b + ZVS_MON_BLOCK - 80, ctl_magic, 4) == 0 && mw_is_ctl(b));
}

/* Where to start again after damage: any control block or record, z/VM's included. */
static bool is_any_ctl(const uint8_t *b)
{
    return is_zvmw_ctl(b) || mw_is_ctl(b);
}

static int grow_data(struct zvs_mon_reader *rd, size_t blocks)
{
    if (blocks <= rd->data_cap)
        return 0;
    size_t cap = rd->data_cap ? rd->data_cap * 2 : 4;
    while (cap < blocks)
        cap *= 2;
    uint8_t *p = realloc(rd->data, cap * ZVS_MON_BLOCK);
    if (!p)
        return -ENOMEM;
    rd->data = p;
    rd->data_cap = cap;
    return 0;
}

static int grow_rec(struct zvs_mon_reader *rd, size_t n)
{
    if (n <= rd->rec_cap)
        return 0;
    struct zvs_mon_record *p = realloc(rd->rec, n * sizeof(*p));
    if (!p)
        return -ENOMEM;
    rd->rec = p;
    rd->rec_cap = n;
    return 0;
}

/* A MONWRITE group: records bounded by the pages actually read, never a count from the
 * file. */
static int mw_group_decode(struct zvs_mon_reader *rd, struct zvs_mon_group *g,
                           struct zvs_mon_read_error *e)
{
    size_t cap = (size_t)rd->mwc.npages * (ZVS_MON_BLOCK / ZVS_MON_HDR_LEN);
    uint64_t tod = 0;
    int n;

    if (grow_rec(rd, cap ? cap : 1) < 0) {
        set_error(e, rd->ctl_off, -1, "out of memory for %zu records", cap);
        return -ENOMEM;
    }
    n = mw_decode(&rd->mwc, rd->data, rd->ctl_off, rd->rec, cap, &tod, e);
    if (n < 0)
        return n;
    g->sample = rd->mwc.sample;
    g->tod = tod;
    g->offset = rd->ctl_off;
    memcpy(g->system, rd->mwc.system, sizeof(g->system));
    g->nrec = (unsigned)n;
    g->rec = rd->rec;
    return 1;
}

/* Walks and decodes the group's records into rd->rec; fills g, or e. */
static int group_decode(struct zvs_mon_reader *rd, struct zvs_mon_group *g,
                        struct zvs_mon_read_error *e)
{
    const struct ctl *c = &rd->ctl;
    unsigned index = 0, out = 0;
    uint16_t domains = 0;

    if (rd->mw)
        return mw_group_decode(rd, g, e);
    if (grow_rec(rd, c->nrec) < 0) {
        set_error(e, rd->ctl_off, -1, "out of memory for %u records", c->nrec);
        return -ENOMEM;
    }
    for (unsigned b = 0; b < c->nblocks; b++) {
        const uint8_t *blk = rd->data + (size_t)b * ZVS_MON_BLOCK;
        uint64_t boff = rd->ctl_off + (uint64_t)(b + 1) * ZVS_MON_BLOCK;
        unsigned off = 0, first = index;

        while (off < c->used[b]) {
            unsigned len;
            int rc;
            if (c->used[b] - off < ZVS_MON_HDR_LEN) {
                set_error(e, boff + off, (int)index, "record header cut by the end of the data");
                return -EBADMSG;
            }
            len = be_get16(blk + off);
            if (len < ZVS_MON_HDR_LEN || len > c->used[b] - off) {
                set_error(e, boff + off, (int)index, "record length %u out of range", len);
                return -EBADMSG;
            }
            if (index - first >= c->nrec_blk[b]) {
                set_error(e, boff + off, (int)index, "more records than the control block says");
                return -EBADMSG;
            }
            rc = zvs_mon_decode_version(blk + off, len, c->version, &rd->rec[out]);
            if (rc == -EBADMSG) {
                set_error(e, boff + off, (int)index, "%s record refused (length %u)",
                          zvs_mon_record_name(blk[off + 4], be_get16(blk + off + 6)), len);
                return -EBADMSG;
            }
            domains |= domain_bit(blk[off + 4]);
            if (rc == 0)
                out++;                  /* -ENOTSUP: a record we do not know, skipped */
            off += len;
            index++;
        }
        if (index - first != c->nrec_blk[b]) {
            set_error(e, boff + off, (int)index, "fewer records than the control block says");
            return -EBADMSG;
        }
        for (unsigned i = c->used[b]; i < ZVS_MON_BLOCK; i++) {
            if (blk[i] != 0) {
                set_error(e, boff + i, (int)index, "data after the last record of the block");
                return -EBADMSG;
            }
        }
        if (zvs_mon_crc32(0, blk, ZVS_MON_BLOCK) != c->crc[b]) {
            set_error(e, boff, (int)first, "data block checksum mismatch (records %u-%u)",
                      first, index - 1);
            return -EBADMSG;
        }
    }
    if (domains != c->domains) {
        set_error(e, rd->ctl_off, -1, "control block domains do not match the records");
        return -EBADMSG;
    }
    g->sample = c->sample;
    g->tod = c->tod;
    g->offset = rd->ctl_off;
    g->system[0] = '\0';               /* our first framing has no place for it */
    g->nrec = out;
    g->rec = rd->rec;
    return 1;
}

static unsigned group_blocks(const struct zvs_mon_reader *rd)
{
    return rd->mw ? rd->mwc.npages : rd->ctl.nblocks;
}

int zvs_mon_reader_next(struct zvs_mon_reader *rd, struct zvs_mon_group *g,
                        struct zvs_mon_read_error *e)
{
    for (;;) {
        const char *why = NULL;
        int rc;

        if (rd->state == RD_END)
            return 0;
        rc = fill_block(rd);
        if (rc == -EAGAIN) {
            set_error(e, rd->pos + rd->stage_len, -1, "no more data yet");
            return rc;
        }
        if (rc == 0 && rd->state != RD_DATA)
            return 0;                   /* clean end: more may come later */
        if (rc <= 0) {
            if (rd->state == RD_DATA)
                set_error(e, rd->pos, -1, "group at offset %llu truncated after %u of %u data blocks",
                          (unsigned long long)rd->ctl_off, rd->have, group_blocks(rd));
            else if (rc == -ENODATA)
                set_error(e, rd->pos, -1, "truncated: %zu bytes of a block at the end",
                          rd->stage_len);
            else
                set_error(e, rd->pos, -1, "read: %s", strerror(-rc));
            rd->state = RD_END;
            return rc == 0 ? -ENODATA : rc;
        }
        switch (rd->state) {
        case RD_RESYNC:
            if (is_any_ctl(rd->stage))
                rd->state = RD_CTL;
            else
                consume_block(rd);
            break;
        case RD_CTL:
            rd->ctl_off = rd->pos;
            rd->mw = memcmp(rd->stage, ctl_magic, 4) != 0;
            rc = rd->mw ? mw_ctl_parse(rd->stage, &rd->mwc, &why)
                        : ctl_parse(rd->stage, &rd->ctl, &why);
            if (rc == -EBADMSG && rd->mw &&
                memcmp(rd->stage + ZVS_MON_BLOCK - 80, ctl_magic, 4) != 0)
                why = "not a control block (magic)";   /* neither ours nor z/VM's */
            consume_block(rd);
            if (rc == -EPROTONOSUPPORT) {
                /* A newer writer's layout: refuse the rest rather than misread it. Each
                 * framing names the versions it carries: 1-2 ours before, 3-4 MONWRITE. */
                set_error(e, rd->ctl_off, -1,
                          "monitor file format version %u, this reader knows versions %u-%u "
                          "(read it with the perfkit of the zvswitch that wrote it)",
                          rd->mw ? rd->mwc.version : rd->ctl.version, ZVS_MON_FORMAT_V1,
                          rd->mw ? ZVS_MON_FORMAT_V4 : ZVS_MON_FORMAT_V2);
                rd->state = RD_END;
                return rc;
            }
            if (rc < 0) {
                set_error(e, rd->ctl_off, -1, "%s", why);
                rd->state = RD_RESYNC;
                return rc;
            }
            rd->have = 0;
            if ((rd->mw ? rd->mwc.npages : rd->ctl.nblocks) == 0)
                return group_decode(rd, g, e);
            rd->state = RD_DATA;
            break;
        case RD_DATA:
            if ((!rd->mw || rd->mwc.ours) && is_ctl(rd->stage)) {
                set_error(e, rd->pos, -1,
                          "group at offset %llu cut short: control block after %u of %u data blocks",
                          (unsigned long long)rd->ctl_off, rd->have, group_blocks(rd));
                rd->state = RD_CTL;
                return -EBADMSG;
            }
            if (grow_data(rd, rd->have + 1) < 0) {
                set_error(e, rd->pos, -1, "out of memory");
                rd->state = RD_RESYNC;
                return -ENOMEM;
            }
            memcpy(rd->data + (size_t)rd->have * ZVS_MON_BLOCK, rd->stage, ZVS_MON_BLOCK);
            consume_block(rd);
            if (++rd->have == group_blocks(rd)) {
                rd->state = RD_CTL;
                return group_decode(rd, g, e);
            }
            break;
        case RD_END:
            return 0;
        }
    }
}
