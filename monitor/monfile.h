/* A MONWRITE-like monitor file: what vswitchd writes every monitor interval and perfkit
 * reads. Format (monitor/RECORDS.md has the bytes):
 *  - 4096-byte blocks. A group of records (the samples of one interval, or a batch of
 *    events) starts with a control block describing it: sample or event, the TOD of the
 *    group, the number of data blocks and records that follow.
 *  - Records are packed into data blocks and never span a block; unused tail bytes are
 *    zero (a record header of length 0 ends the block).
 * A reader that meets a bad block reports the byte offset and the record and goes on with
 * the next control block, so every other interval stays readable.
 *
 * The writer appends whole groups with one write each (a reader following a live file
 * never sees half a group), rotates at a size bound (name, name.1 ... name.K), and can copy
 * every group to a live subscriber (a pipe or socket fd) as well.
 */
#ifndef ZVS_MONFILE_H
#define ZVS_MONFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "monitor/monrec.h"

#define ZVS_MON_BLOCK 4096

/* ---- writing ---------------------------------------------------------------------- */

struct zvs_mon_writer;

struct zvs_mon_writer_opts {
    uint64_t max_bytes;                 /* rotate when the file would exceed this (0: never) */
    unsigned keep;                      /* rotated files kept: name.1 .. name.keep (0: 1) */
    unsigned format_version;            /* record layout, ZVS_MON_FORMAT_* (0: current, 4:
                                           z/VM's MONWRITE framing; 3 the same without the
                                           discard reasons, for a reader of versions 1-3);
                                           1 and 2 write our earlier framing and layouts
                                           (tests; old tools) */
    const char *producer;               /* who wrote the file, e.g. "zvswitch 0.3.0": kept
                                           in the control record's own area (versions 3-4) */
    const char *system;                 /* the system's name (SYSTEM_IDENTIFIER, up to 8
                                           characters), beside the producer (versions 3-4);
                                           NULL or "": none */
};

/* Opens (appends to) path. NULL and *err = -errno on failure. */
struct zvs_mon_writer *zvs_mon_writer_open(const char *path,
                                           const struct zvs_mon_writer_opts *opts, int *err);
void zvs_mon_writer_close(struct zvs_mon_writer *w);
/* Writes one group: n records, all samples of one interval (sample = true) or events.
 * Returns 0 or -errno (the file is left at a group boundary). */
int zvs_mon_write_group(struct zvs_mon_writer *w, bool sample, uint64_t tod,
                        const struct zvs_mon_record *recs, unsigned n);
/* Also copy every group to fd (a live reader), -1 to stop. A subscriber that does not
 * keep up (EAGAIN) or goes away is dropped, never waited for. */
void zvs_mon_writer_subscribe(struct zvs_mon_writer *w, int fd);
/* (Added by monfile.c's author.) The writer owns a subscribed fd: it sets O_NONBLOCK and
 * closes the fd when it drops it, when another fd (or -1) replaces it, and in close. A
 * subscriber only ever sees whole groups from its start, unless it is dropped mid-group
 * (its reader then reports a truncated group and the end). Returns nothing: whether the
 * subscriber is still there is zvs_mon_writer_subscribed(). */
bool zvs_mon_writer_subscribed(const struct zvs_mon_writer *w);

/* ---- reading ---------------------------------------------------------------------- */

struct zvs_mon_reader;

struct zvs_mon_group {
    bool     sample;                    /* sample group (else events) */
    uint64_t tod;                       /* the group's TOD (interval end for samples) */
    uint64_t offset;                    /* byte offset of its control block */
    char     system[9];                 /* the system's name from the control record, ""
                                           when the writer gave none (or older files) */
    unsigned nrec;
    struct zvs_mon_record *rec;         /* owned by the reader, valid until the next call */
};

/* What went wrong in a group, for a message "offset N, record R: what". */
struct zvs_mon_read_error {
    uint64_t offset;                    /* byte offset in the file */
    int      record;                    /* index in its group, -1 for the control block */
    char     what[160];
};

struct zvs_mon_reader *zvs_mon_reader_open(const char *path, int *err);
/* From an already open fd (a pipe: the live stream). The reader reads from the fd's
 * current position and does not close it (the caller does, after reader_close). */
struct zvs_mon_reader *zvs_mon_reader_fdopen(int fd, int *err);
void zvs_mon_reader_close(struct zvs_mon_reader *rd);
/* (Added.) From memory (tests, fuzzing, a file already read): buf must outlive the reader. */
struct zvs_mon_reader *zvs_mon_reader_memopen(const void *buf, size_t len, int *err);
/* Next group: 1 (filled), 0 end of data, or a negative error with *e filled; after an
 * error the next call resumes at the next group that reads correctly. */
int zvs_mon_reader_next(struct zvs_mon_reader *rd, struct zvs_mon_group *g,
                        struct zvs_mon_read_error *e);

/* (Added.) next() on a non-blocking fd with no whole group yet returns -EAGAIN (e filled,
 * nothing lost: call again when the fd is readable). Other errors: -EBADMSG (a bad control
 * block, data block or record), -ENODATA (the data ends inside a block or a group:
 * truncated; later calls return 0), -EPROTONOSUPPORT (a group of a format version this
 * reader does not know: refused, e says which; later calls return 0), -ENOMEM, or a
 * read() errno. Groups of versions 1 and 2 are read, each with its own layout. A clean end (0) on a file
 * still being written may be followed by more groups on a later call. */

/* CRC-32 (IEEE 802.3, reflected): zlib's crc32(), the control block's checksums. */
uint32_t zvs_mon_crc32(uint32_t crc, const void *buf, size_t len);

#endif
