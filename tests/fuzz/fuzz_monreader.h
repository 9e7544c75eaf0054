/* What the monitor file fuzz targets (fuzz_monfile.c, fuzz_monwrite.c) share: reading a
 * whole input with the reader and checking its invariants, each accepted record handed to
 * the target's own check.
 *
 * Invariants: next() returns 1, 0 or a negative errno; an error names an offset within the
 * input and a non-empty reason; a group's offset is block aligned and inside the input, its
 * record count fits the blocks after it; the reader ends within (blocks + 2) calls and
 * then stays at the end.
 */
#ifndef ZVS_FUZZ_MONREADER_H
#define ZVS_FUZZ_MONREADER_H

#include <errno.h>
#include <string.h>

#include "monitor/monfile.h"
#include "tests/fuzz/fuzz_common.h"

static inline void fuzz_monreader(const uint8_t *data, size_t size,
                                  void (*check)(const struct zvs_mon_record *r))
{
    struct zvs_mon_group g;
    struct zvs_mon_read_error e;
    int err = 0;
    size_t calls = 0, limit = size / ZVS_MON_BLOCK + 3;
    struct zvs_mon_reader *rd = zvs_mon_reader_memopen(data, size, &err);

    if (!rd)
        return;
    for (;;) {
        int rc;
        memset(&e, 0, sizeof(e));
        rc = zvs_mon_reader_next(rd, &g, &e);
        CHECK(++calls <= limit);
        if (rc == 0)
            break;
        if (rc < 0) {
            CHECK(rc == -EBADMSG || rc == -ENODATA || rc == -ENOMEM || rc == -EPROTONOSUPPORT);
            CHECK(e.offset <= size);
            CHECK(e.record >= -1);
            CHECK(e.what[0] != '\0' && memchr(e.what, '\0', sizeof(e.what)) != NULL);
            TRACE("error at %llu record %d: %s\n", (unsigned long long)e.offset, e.record,
                  e.what);
            continue;
        }
        CHECK(rc == 1);
        CHECK(g.offset % ZVS_MON_BLOCK == 0 && g.offset + ZVS_MON_BLOCK <= size);
        CHECK((uint64_t)g.nrec * ZVS_MON_HDR_LEN <= size - g.offset);
        TRACE("group at %llu: %s, %u records\n", (unsigned long long)g.offset,
              g.sample ? "sample" : "event", g.nrec);
        for (unsigned i = 0; i < g.nrec; i++)
            check(&g.rec[i]);
    }
    /* after the end, the end again */
    CHECK(zvs_mon_reader_next(rd, &g, &e) == 0);
    zvs_mon_reader_close(rd);
}

#endif
