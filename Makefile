# zvswitch: a z/VM-style virtual switch with IEEE 802.3ad link aggregation.
#
# The two commands a user types on a fresh machine:
#   make demo    the lab: vswitchd, namespace guests, a LAN, traffic, what an operator sees
#   make check   every test (unit, integration, fuzz corpora); calls `make deps` first
# and the two halves of `make check`, for a developer:
#   make check-fast   no root, about 2 minutes: layering, unit tests, fuzz corpora (+10 s
#                     runs), the hermetic scripts of tests/integration (tests/run.sh fast)
#   make check-labs   the root namespace labs (tests/run.sh labs)
# `make check` runs both in one tests/run.sh and ends with one line "check: N passed, N
# failed, N skipped" totalled over both (CI reads it).
#
# Layout: each module folder builds one static library from its .c files; files that hold a
# main() are listed in MAINS and become programs. Tests in tests/unit/test_*.c become one
# cmocka binary each, linked against every library, so adding a test, a module source or a
# fuzz target needs no Makefile edit (wildcards).
#
# Parallel by default: a top-level make without -j (on the command line or in MAKEFLAGS in
# the environment) runs -j$(JOBS), JOBS = the number of processors; `make -j1` or
# `make JOBS=1` builds one thing at a time. Dependencies are exact (-MMD headers, libraries
# before links), so any order make picks is right. Only the build is parallel: tests/run.sh
# decides which tests may run side by side.
#
# Fuzz targets are built against ONE instrumented build of the libraries: every library,
# tests/lib and switch-model source is compiled once with clang -fsanitize=fuzzer-no-link,
# address,undefined into $(BUILD)/fuzzobj/ (static libraries, as for the programs), and
# each tests/fuzz/fuzz_*.c is linked against them with -fsanitize=fuzzer.

BUILD    ?= build
CC       ?= cc
SAN      ?=
COV      ?=
OPT      ?= -O2

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wcast-align -Wformat=2 -Wno-unused-parameter
# Libraries we link, found the ecosystem's way (pkg-config; `make deps` installs their -dev
# packages): libpcap for the PCAP uplink backend, zlib for the monitor file's CRC-32,
# libc-ares for the names layer's lookups (names/resolver_ares.c), Corosync's CPG,
# votequorum and cmap clients for the IVL domain (ivl/cluster_corosync.c).
PKGS     := libpcap zlib libcares libcpg libvotequorum libcmap
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
CFLAGS   := -std=c11 -D_GNU_SOURCE -g $(OPT) $(WARN) -I. $(PKG_CFLAGS) -MMD -MP \
            $(EXTRA_CFLAGS)
LDFLAGS  := $(EXTRA_LDFLAGS)
LDLIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)

# Parallel by default (see the top): only in the make the user started (a sub-make shares
# its jobserver), and never for `make clean ...` (clean must not race the build).
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
ifeq ($(MAKELEVEL),0)
ifeq ($(filter clean,$(MAKECMDGOALS)),)
ifeq ($(filter -j% j% --jobs%,$(shell printenv MAKEFLAGS)),)
MAKEFLAGS += -j$(JOBS)
endif
endif
endif

ifeq ($(SAN),1)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS  += -fsanitize=address,undefined
endif
ifeq ($(COV),1)
CFLAGS   += --coverage -O0
LDFLAGS  += --coverage
endif

# Libraries, top layer first: a library may use only those after it (`make layering` checks
# the includes against layers.conf), so they link in this order with no link group.
MODULES  := daemon guests overlay lag backends qdio dataplane cp-commands monitor lacp names ivl
MAINS    := daemon/vswitchd.c $(wildcard tools/*.c)

lib_srcs  = $(filter-out $(MAINS),$(wildcard $(1)/*.c))
lib_objs  = $(patsubst %.c,$(BUILD)/obj/%.o,$(call lib_srcs,$(1)))
fuzz_objs = $(patsubst %.c,$(BUILD)/fuzzobj/%.o,$(call lib_srcs,$(1)))
LIBS     := $(foreach m,$(MODULES),$(BUILD)/lib$(m).a)
# perfkit serve (tools/web/): a library of its own linked into perfkit and the unit tests
# only, and libmicrohttpd on perfkit's link only: vswitchd, the tests and the other tools
# never serve HTTP, so they neither link it nor need its -dev package to build. (A unit
# test that calls the server itself would need WEB_LDLIBS too; none does: they test the
# pages, the exposition and the request checks, which do not call libmicrohttpd.)
WEB_SRCS := $(wildcard tools/web/*.c)
WEB_LIB  := $(if $(WEB_SRCS),$(BUILD)/libperfkitweb.a)
WEB_CFLAGS := $(shell pkg-config --cflags libmicrohttpd 2>/dev/null)
WEB_LDLIBS := $(shell pkg-config --libs libmicrohttpd 2>/dev/null) -lpthread
LINKLIBS := $(LIBS)
# Code only tests, tools and benchmarks use (workload generators, test harnesses).
TESTLIB_SRCS := $(wildcard tests/lib/*.c)
TESTLIB  := $(BUILD)/libtestlib.a

PROGRAMS := $(foreach f,$(wildcard $(MAINS)),$(BUILD)/bin/$(basename $(notdir $(f))))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
TEST_HELPER_SRCS := $(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c))
TEST_HELPER_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(TEST_HELPER_SRCS))
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(TOOL_SRCS))
BENCH_SRCS := $(wildcard tests/bench/bench_*.c)
BENCH_BINS := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(BENCH_SRCS))
# The LACP-capable switch model (tests/switchmodel/): main.c is the program, the rest a
# library that unit tests link too.
SM_MAIN  := tests/switchmodel/main.c
SM_SRCS  := $(filter-out $(SM_MAIN),$(wildcard tests/switchmodel/*.c))
SM_LIB   := $(if $(SM_SRCS),$(BUILD)/libswitchmodel.a)
SM_BIN   := $(if $(wildcard $(SM_MAIN)),$(BUILD)/tools/switchmodel)
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_CC  ?= clang
# The one instrumented build the fuzz targets link (same order as the unit tests).
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -I. $(PKG_CFLAGS) -MMD -MP -fsanitize=fuzzer-no-link,address,undefined
FUZZ_LIBS := $(foreach m,$(MODULES),$(BUILD)/fuzzobj/lib$(m).a)
FUZZ_TESTLIB := $(BUILD)/fuzzobj/libtestlib.a
FUZZ_SM_LIB := $(if $(SM_SRCS),$(BUILD)/fuzzobj/libswitchmodel.a)
FUZZ_WEB_LIB := $(if $(WEB_SRCS),$(BUILD)/fuzzobj/libperfkitweb.a)

.PHONY: FORCE install deb layering all deps check check-fast check-labs check-guests unit integration fuzz fuzzers sanitize coverage bench demo demo-compare repro clean programs tests

all: $(PROGRAMS) $(UNIT_BINS) $(TOOL_BINS) $(BENCH_BINS) $(SM_BIN)
programs: $(PROGRAMS)
tests: $(UNIT_BINS) $(TOOL_BINS)

deps:
	@scripts/deps.sh

# The version (VERSION, and +gitN.gHASH in a git tree: scripts/version.sh) is compiled into one
# object, cp-commands/version.o. Its stamp is rewritten only when the string changes, so a new
# commit rebuilds that object and relinks, nothing else. `make ZVS_VERSION=...` sets it (a
# build outside git, such as a package's).
ZVS_VERSION ?= $(shell scripts/version.sh 2>/dev/null || cat VERSION)
VERSION_OBJS := $(BUILD)/obj/cp-commands/version.o $(BUILD)/fuzzobj/cp-commands/version.o
$(BUILD)/gen/version.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(ZVS_VERSION)' >$@.tmp; if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(VERSION_OBJS): $(BUILD)/gen/version.stamp
$(VERSION_OBJS): EXTRA_VERSION := -DZVS_VERSION='"$(ZVS_VERSION)"'
FORCE:

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EXTRA_VERSION) -c $< -o $@

define lib_rule
$(BUILD)/lib$(1).a: $(call lib_objs,$(1))
	@mkdir -p $$(dir $$@)
	rm -f $$@; ar rcs $$@ $$^
$(BUILD)/fuzzobj/lib$(1).a: $(call fuzz_objs,$(1))
	@mkdir -p $$(dir $$@)
	rm -f $$@; ar rcs $$@ $$^
endef
$(foreach m,$(MODULES),$(eval $(call lib_rule,$(m))))

$(BUILD)/bin/%: $(BUILD)/obj/daemon/%.o $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(LINKLIBS) $(LDLIBS) -o $@
$(BUILD)/bin/%: $(BUILD)/obj/tools/%.o $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(LINKLIBS) $(LDLIBS) -o $@
$(BUILD)/bin/perfkit: $(BUILD)/obj/tools/perfkit.o $(WEB_LIB) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(WEB_LIB) $(LINKLIBS) $(LDLIBS) $(WEB_LDLIBS) -o $@

$(BUILD)/obj/tools/web/%.o: CFLAGS += $(WEB_CFLAGS)
$(WEB_LIB): $(patsubst %.c,$(BUILD)/obj/%.o,$(WEB_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^

$(TESTLIB): $(patsubst %.c,$(BUILD)/obj/%.o,$(TESTLIB_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(TEST_HELPER_OBJS) $(TESTLIB) $(LIBS) $(SM_LIB) $(WEB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(TEST_HELPER_OBJS) $(SM_LIB) $(TESTLIB) $(WEB_LIB) $(LINKLIBS) $(LDLIBS) $(CMOCKA_LIBS) -lpthread -o $@

$(BUILD)/libswitchmodel.a: $(patsubst %.c,$(BUILD)/obj/%.o,$(SM_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^

$(BUILD)/tools/switchmodel: $(BUILD)/obj/$(SM_MAIN:.c=.o) $(SM_LIB) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(SM_LIB) $(LINKLIBS) $(LDLIBS) -o $@

$(BUILD)/tools/%: $(BUILD)/obj/tests/tools/%.o $(TESTLIB) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(TESTLIB) $(LINKLIBS) $(LDLIBS) -o $@

$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.o $(TESTLIB) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(TESTLIB) $(LINKLIBS) $(LDLIBS) -o $@

# libFuzzer targets: each is its own source linked against the instrumented libraries
# (tests/switchmodel/ without main.c, tests/lib/, every module), built once with clang.
fuzzers: $(FUZZ_BINS)
$(BUILD)/fuzzobj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(EXTRA_VERSION) -c $< -o $@
$(FUZZ_TESTLIB): $(patsubst %.c,$(BUILD)/fuzzobj/%.o,$(TESTLIB_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^
$(BUILD)/fuzzobj/libswitchmodel.a: $(patsubst %.c,$(BUILD)/fuzzobj/%.o,$(SM_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^
$(BUILD)/fuzzobj/tools/web/%.o: FUZZ_CFLAGS += $(WEB_CFLAGS)
$(FUZZ_WEB_LIB): $(patsubst %.c,$(BUILD)/fuzzobj/%.o,$(WEB_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^
# perfkit serve's pages (tools/web/) are linked too; none of the targets calls the server
# itself, so libmicrohttpd is not.
$(BUILD)/fuzz/%: $(BUILD)/fuzzobj/tests/fuzz/%.o $(FUZZ_SM_LIB) $(FUZZ_TESTLIB) $(FUZZ_WEB_LIB) $(FUZZ_LIBS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined $< $(FUZZ_SM_LIB) $(FUZZ_TESTLIB) $(FUZZ_WEB_LIB) $(FUZZ_LIBS) $(LDLIBS) -lpthread -o $@

# ---- tests ---------------------------------------------------------------------------
# tests/run.sh runs the tests (which side by side: see its top) and ends with one line
# "check: N passed, N failed, N skipped". `make check` = check-fast + check-labs in ONE
# run.sh, so that line totals both.
# The guest images are built with the rest (in parallel, and once: the Hercules labs run
# side by side and must not both build them). The fuzz targets are built by tests/run.sh
# (FUZZ_BUILD=1) at the idle scheduling class beside the first labs, which need only `all`.
check: deps
	@$(MAKE) --no-print-directory all guests
	@BUILD=$(BUILD) FUZZ_BUILD=1 tests/run.sh fast labs

# No root needed: without root, missing packages are named and the run goes on (what needs
# them skips or fails on its own).
check-fast:
	@scripts/deps.sh || [ "$$(id -u)" -ne 0 ]
	@$(MAKE) --no-print-directory all fuzzers
	@BUILD=$(BUILD) tests/run.sh fast

check-labs: deps
	@$(MAKE) --no-print-directory all guests
	@BUILD=$(BUILD) tests/run.sh labs

# The guest images' own labs under bare Hercules (the frame program's is in make check too;
# the Linux image's boots Linux a second time, so make check leaves it to this target).
check-guests: deps
	@$(MAKE) --no-print-directory all guests
	@BUILD=$(BUILD) TEST_ONLY='hercules_frameprog hercules_linux' tests/run.sh labs guests

# The includes follow the layers in layers.conf (and the check rejects its fixture).
layering:
	@BUILD=$(BUILD) tests/run.sh layering

# A fuzz campaign (tests/fuzz/campaign.sh): every target FUZZ_SECONDS (60) each, two at a
# time (FUZZ_JOBS), the finds merged into tests/fuzz/corpus/ (only inputs that add
# coverage), one line per target appended to tests/fuzz/CAMPAIGNS.tsv; commit both.
fuzz: fuzzers
	@BUILD=$(BUILD) FUZZ_SECONDS=$${FUZZ_SECONDS:-60} tests/fuzz/campaign.sh

unit: all
	@BUILD=$(BUILD) tests/run.sh unit

integration: all guests
	@BUILD=$(BUILD) tests/run.sh integration

sanitize: deps
	@$(MAKE) --no-print-directory BUILD=build/san SAN=1 OPT=-O1 all guests
	@BUILD=build/san ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 tests/run.sh unit integration

coverage: deps
	@$(MAKE) --no-print-directory BUILD=build/cov COV=1 all
	@find build/cov -name '*.gcda' -delete
	@BUILD=build/cov tests/run.sh unit integration >/dev/null || true
	@lcov -q --capture --directory build/cov --output-file build/cov/coverage.info --rc lcov_branch_coverage=0 >/dev/null 2>&1
	@lcov -q --remove build/cov/coverage.info '*/tests/*' '/usr/*' -o build/cov/coverage.info >/dev/null 2>&1
	@genhtml -q build/cov/coverage.info -o build/cov/html >/dev/null 2>&1
	@lcov --summary build/cov/coverage.info 2>&1 | awk '/lines\.|functions\./ {sub(/\.+:/, "", $$1); out = out sprintf("%s %s %s %s %s %s, ", $$1, $$2, $$3, $$4, $$5, $$6)} END {print "coverage: " out "report build/cov/html/index.html"}'

bench: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) tests/bench/run.sh

demo: deps
	@$(MAKE) --no-print-directory all guests
	@BUILD=$(BUILD) configs/lab/demo.sh

# make demo again, its transcript masked (timestamps, durations, rates, volumes of timed runs,
# paths) and compared with tests/golden/demo/transcript.txt: a restructuring that changes
# nothing an operator sees shows no difference.
demo-compare: deps
	@BUILD=$(BUILD) tests/golden/demo/compare.sh

# The IBM report's experiment, Tables 1 and 2 (tests/repro/README.md); under 35 minutes.
# Then the uneven-inbound variant, the report's second FCX240 (about 1.5 minutes): the
# matrix's MACIDs keep the switch's inbound even, so only this shows where POLICY LOAD
# TOTAL puts the outbound.
repro: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) tests/repro/repro.sh
	@BUILD=$(BUILD) tests/repro/repro.sh --uneven

# ---- installing ----------------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=staging] [SYSCONFDIR=/etc] [CONSOLE_GROUP=group]:
# the programs, their man pages, the systemd unit (written with these paths; with
# --console-group when CONSOLE_GROUP names one), a logrotate file, and the sample
# configurations (under share/doc/zvswitch/examples: an installed /etc/zvswitch is never
# overwritten).
PREFIX     ?= /usr/local
SYSCONFDIR ?= /etc
SBINDIR    := $(PREFIX)/sbin
BINDIR     := $(PREFIX)/bin
MANDIR     := $(PREFIX)/share/man
UNITDIR    ?= $(PREFIX)/lib/systemd/system
DOCDIR     := $(PREFIX)/share/doc/zvswitch
CONSOLE_GROUP ?=

install: $(BUILD)/bin/vswitchd $(BUILD)/bin/vmcp $(BUILD)/bin/perfkit
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	  $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/logrotate.d \
	  $(DESTDIR)$(DOCDIR)/examples
	install -m 0755 $(BUILD)/bin/vswitchd $(DESTDIR)$(SBINDIR)/vswitchd
	install -m 0755 $(BUILD)/bin/vmcp $(BUILD)/bin/perfkit $(DESTDIR)$(BINDIR)/
	install -m 0644 man/vswitchd.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 man/vmcp.1 man/perfkit.1 $(DESTDIR)$(MANDIR)/man1/
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	  -e 's|@CONSOLE_GROUP_OPT@|$(if $(CONSOLE_GROUP), --console-group $(CONSOLE_GROUP))|g' \
	  configs/service/zvswitch.service.in > $(DESTDIR)$(UNITDIR)/zvswitch.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/zvswitch.service
	install -m 0644 configs/service/zvswitch.logrotate $(DESTDIR)$(SYSCONFDIR)/logrotate.d/zvswitch
	install -m 0644 configs/SYSTEM.CONFIG configs/USER.DIRECT $(DESTDIR)$(DOCDIR)/examples/
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/

# make deb: the Debian package build/zvswitch_VERSION_ARCH.deb (VERSION as ZVS_VERSION),
# built by dpkg-buildpackage from debian/ on a copy of the tree under build/deb/, so that
# everything it writes beside that copy stays in build/ (scripts/deb.sh, debian/README.md).
deb:
	@BUILD=$(BUILD) JOBS=$(JOBS) scripts/deb.sh '$(ZVS_VERSION)'

clean:
	rm -rf build

# Keep every object, also those only a pattern rule chain names (test and fuzz mains):
# a deleted intermediate would be compiled again by the next link that needs it.
.SECONDARY:

-include $(shell find $(BUILD)/obj $(BUILD)/fuzzobj -name '*.d' 2>/dev/null)
include guests/guests.mk
