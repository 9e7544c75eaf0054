/* The callgrind client requests the benchmarks bracket their measured loops with, or
 * nothing where <valgrind/callgrind.h> is missing (HAVE_CALLGRIND_H 0: the caller then
 * subtracts a run of no frames instead). */
#ifndef ZVS_BENCH_CALLGRIND_H
#define ZVS_BENCH_CALLGRIND_H

#if defined(__has_include) && !defined(ZVS_BENCH_NO_CALLGRIND_H)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND_H 1
#endif
#endif
#ifndef HAVE_CALLGRIND_H
#define HAVE_CALLGRIND_H 0
#define CALLGRIND_START_INSTRUMENTATION do { } while (0)
#define CALLGRIND_STOP_INSTRUMENTATION do { } while (0)
#endif

#endif
