/* What the libFuzzer targets in tests/fuzz share: the entry point's prototype, CHECK for
 * invariants (it names the broken expression and its line, then aborts, so libFuzzer
 * keeps the input), and TRACE, which prints only in a build with -DFUZZ_TRACE (to check
 * that seeds do what they say).
 *
 * Header only, functions static inline: each target is its own .c linked against the
 * instrumented libraries (the Makefile's $(BUILD)/fuzzobj/), with no object of shared
 * test code to link.
 */
#ifndef ZVS_FUZZ_COMMON_H
#define ZVS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Report a broken invariant and abort. */
__attribute__((noreturn)) static inline void fuzz_invariant_failed(int line, const char *expr)
{
    fprintf(stderr, "invariant (line %d): %s\n", line, expr);
    abort();
}

#define CHECK(x) do { if (!(x)) fuzz_invariant_failed(__LINE__, #x); } while (0)

#ifdef FUZZ_TRACE
#define TRACE(...) fprintf(stderr, __VA_ARGS__)
#else
#define TRACE(...) do { } while (0)
#endif

#endif
