/* libFuzzer target for the IVL domain's SYSTEM STATE message (ivl/state_msg.c).
 *
 * Input: one message as the cluster delivers it. It is parsed from an exactly sized heap
 * copy, so ASan sees any read past its end.
 *
 * Invariants:
 *   - the result is 0 or a -ZVS_IVL_SE_* with a name; a refused message writes nothing;
 *   - an accepted message holds names CP allows, an index 1..3, at most 8 members whose
 *     port numbers are distinct and in the sender's index byte;
 *   - round trip: encoding the decoded state gives the input byte for byte (one encoding
 *     per state: the decoder accepts nothing the encoder would not write).
 *
 *   build/fuzz/fuzz_ivl_state -max_total_time=60 work/ tests/fuzz/corpus/ivl_state
 * Without libFuzzer: -DZVS_FUZZ_MAIN and the corpus files as arguments (fuzz_replay.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ivl/port_number.h"
#include "ivl/state_msg.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *msg = malloc(size ? size : 1);
    struct zvs_ivl_state s, s0;
    uint8_t out[ZVS_IVL_STATE_MAX];

    CHECK(msg);
    if (size)
        memcpy(msg, data, size);
    memset(&s, 0xA5, sizeof s);
    s0 = s;
    int rc = zvs_ivl_state_decode(msg, size, &s);
    TRACE("len %zu -> %d %s\n", size, rc, zvs_ivl_state_err_name(rc));
    CHECK(rc <= 0 && rc > -ZVS_IVL_SE_COUNT);
    if (rc < 0) {
        CHECK(strcmp(zvs_ivl_state_err_name(rc), "invalid-code") != 0);
        CHECK(memcmp(&s, &s0, sizeof s) == 0);
        free(msg);
        return 0;
    }
    CHECK(s.index >= 1 && s.index <= ZVS_IVL_MAX_SYSTEMS);
    CHECK(s.nmembers <= ZVS_IVL_MAX_MEMBERS);
    CHECK(strlen(s.system) >= 1 && strlen(s.system) <= ZVS_IVL_NAME_LEN);
    for (unsigned i = 0; i < s.nmembers; i++) {
        CHECK(zvs_ivl_port_system(s.member[i].port) == s.index);
        for (unsigned j = 0; j < i; j++)
            CHECK(s.member[i].port != s.member[j].port);
    }
    CHECK(zvs_ivl_state_encode(&s, out, sizeof out) == (int)size);
    CHECK(memcmp(out, msg, size) == 0);
    free(msg);
    return 0;
}

#include "fuzz_replay.h"
