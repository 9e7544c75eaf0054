/* libFuzzer target for the IVL data frame header (ivl/frame.c).
 *
 * Input: one frame received on an IVL port, as is. It is parsed from an exactly sized
 * heap copy, so ASan sees any read past its end.
 *
 * Invariants:
 *   - the result is 0 or a -ZVS_IVL_FE_* with a name; a refused frame writes no output;
 *   - an accepted frame has a known kind, an origin 1..3, an inner frame inside the input
 *     of 14..9216 bytes, and a length that is exact or padded up to 60 bytes;
 *   - round trip: the header and inner frame are wrapped again with the same MACs, the
 *     result is the input's first ZVS_IVL_OUTER_LEN + inner bytes, and it decodes to the
 *     same header.
 *
 *   build/fuzz/fuzz_ivl_frame -max_total_time=60 work/ tests/fuzz/corpus/ivl_frame
 * Without libFuzzer: -DZVS_FUZZ_MAIN and the corpus files as arguments (fuzz_replay.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ivl/frame.h"
#include "ivl/state_msg.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *frame = malloc(size ? size : 1);
    struct zvs_ivl_hdr h, h0, g;
    const uint8_t *inner = NULL;
    size_t inner_len = 0;

    CHECK(frame);
    if (size)
        memcpy(frame, data, size);
    memset(&h, 0xA5, sizeof h);
    h0 = h;
    int rc = zvs_ivl_frame_decap(frame, size, &h, &inner, &inner_len);
    TRACE("len %zu -> %d %s\n", size, rc, zvs_ivl_frame_err_name(rc));
    CHECK(rc <= 0 && rc > -ZVS_IVL_FE_COUNT);
    if (rc < 0) {
        CHECK(strcmp(zvs_ivl_frame_err_name(rc), "invalid-code") != 0);
        CHECK(memcmp(&h, &h0, sizeof h) == 0);
        CHECK(inner == NULL && inner_len == 0);
        free(frame);
        return 0;
    }
    CHECK(h.kind == ZVS_IVL_OUTBOUND || h.kind == ZVS_IVL_INBOUND || h.kind == ZVS_IVL_FLOOD);
    CHECK(h.origin >= 1 && h.origin <= ZVS_IVL_MAX_SYSTEMS);
    CHECK(inner == frame + ZVS_IVL_OUTER_LEN);
    CHECK(inner_len >= ZVS_IVL_INNER_MIN && inner_len <= ZVS_IVL_INNER_MAX);
    CHECK(ZVS_IVL_OUTER_LEN + inner_len == size || size <= 60);

    size_t want = ZVS_IVL_OUTER_LEN + inner_len;
    uint8_t *again = malloc(want);
    CHECK(again);
    CHECK(zvs_ivl_frame_encap(&h, frame, frame + 6, inner, inner_len, again, want) ==
          (int)want);
    CHECK(memcmp(again, frame, want) == 0);
    CHECK(zvs_ivl_frame_decap(again, want, &g, &inner, &inner_len) == 0);
    CHECK(memcmp(&g, &h, sizeof g) == 0);
    free(again);
    free(frame);
    return 0;
}

#include "fuzz_replay.h"
