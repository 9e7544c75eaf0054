#!/usr/bin/env bash
# zvswitch benchmarks: the `make bench` driver.
#
#   BUILD=build tests/bench/run.sh
#
# Runs, in order:
#   1. $BUILD/bench/bench_core            frames per second on one core, guest output queue
#                                         -> forwarding -> in-memory uplink (64 B and 1500 B)
#   2. bench_core --callgrind under valgrind --tool=callgrind: instructions per frame, in
#                                         total and split into the switch side and the
#                                         guest side (which functions count as which, and
#                                         why: tests/bench/README.md)
#   3. every tests/bench/bench_*.sh       (e.g. bench_veth.sh: the veth path against OVS
#                                         userspace and the Linux bridge)
# then writes every measurement to $BUILD/bench.json and prints a table with the targets.
#
# ---- Line protocol (what a bench_*.sh script prints on stdout) ------------------------
#   BENCH <name> <value> <unit>
#   BENCH <name> <value> <unit> <peer> <peer_value> <ratio>
#   BENCH <name> <value> <unit> <peer_value> <ratio>        (peer taken from <name>)
#   NOTRUN <name> <reason, words>
# One measurement per line; every other line is a log line and is kept in the log only.
# NOTRUN says a measurement was not taken for a reason that is no failure of this run
# (bench_repro.sh: the gains it takes from the latest `make repro` when there is none):
# its row reads "not run (<reason>)", its target is neither met nor missed, and its JSON
# object has "value":null, "met":null and "not_run":"<reason>".
#   name        [A-Za-z0-9_.-]+, e.g. veth_tcp_gbps_vs_ovs
#   value       a number (our result), e.g. 9.41
#   unit        one token without blanks, e.g. Gbit/s, Mpps, Tx/s, us
#   peer        what we were compared with, one token: a name containing "ovs" means OVS
#               userspace (ovs-userspace), one containing "bridge" the Linux bridge
#               (linux-bridge); without <peer>, the same words are looked for in <name>
#   peer_value  the peer's result in the same unit, measured in the same run
#   ratio       value / peer_value for "higher is better" metrics (peer / value for
#               latencies), so that > 1 always means zvswitch is better
# A script exits 0 when it measured, 77 when it cannot run here (no root, no OVS: it
# prints why on its last line), anything else is a failure. Scripts get BUILD in their
# environment and are stopped after BENCH_TIMEOUT seconds (default 900).
#
# ---- Targets (checked here, printed as met or MISSED; a target nobody measured is
# ---- printed as MISSED (not measured), never left out) --------------------------------
#   core_64b_mpps                 >= 20   Mpps per core, 64-byte frames
#   core_instr_per_frame          <= 300  instructions per 64-byte frame (callgrind), of
#   core_instr_per_frame_switch   <= 150  them the switch side's (issue 23)
#   core_instr_per_frame_guest    <= 144.3 and the guest side's: no higher than before
#   (and the LACP and port-group targets in the table at the top of report(): convergence,
#   silent-partner detection, PDU lateness under load, distribution cost, balance,
#   failover gap, group scaling; the soak's: soak_rss_growth_kb <= 1024,
#   soak_lost_uncounted 0; the report's experiment: repro_str_gain_mtu1492_* >= 1.75,
#   repro_str_gain_mtu8992_* >= 1.8, repro_rr_gain_mtu1492_50 >= 1.4,
#   repro_cp_cpu_per_mb_ratio <= 1; perfkit serve flooded beside a stream:
#   web_flood_iperf_ratio >= 0.9; 1,000 guests (bench_scale.sh): scale_fwd_ratio_1000g_vs_3g
#   >= 0.9, scale_query_details_ratio_1000g_vs_512g <= 2.2; the IVL domain's (bench_ivl.sh):
#   ivl_fraction_outbound <= 0.05, mvlag_str_scaling_4p >= 3.6 with mvlag_str_4p_min_port_busy
#   >= 0.9, mvlag_system_loss_gap_ms_carrier <= 100, mvlag_system_loss_gap_ms_silent <= 3500)
#   ratio of a line vs OVS        >= 1.2  veth path against OVS userspace
#   ratio of a line vs bridge     >= 0.85 veth path against the Linux bridge (issue 23); not
#                                         for a floor's line, *_pump_* or *_floor_*
#                                         (tests/tools/tap_pump, scale_floor: measured
#                                         beside zvswitch, no target)
#   veth_tcp_vswitchd_cpu_per_gbps_mtu1500 <= 2.05, _mtu9000 <= 2.25: vswitchd's CPU per
#                                         Gbit/s, half of 4.1 and 4.5 (issue 23)
#   hercules_* vs bridge          >= 0.98 a Hercules guest's LCS path (issues 13, 23): the switch
#                                         must never be that path's bottleneck
#   hercules_lcs_vswitchd_us_per_frame <= 1.5 vswitchd's CPU per LCS frame (issue 23)
#   vxlan_tcp_gbps_mtu1500, _mtu9000  ratio >= 0.8  guest to guest across two VXLAN VTEPs
#                                         against the kernel's vxlan + bridge (issue 25)
#
# Output: $BUILD/bench.json, a JSON array of objects
#   {"name","value","unit"[,"peer","peer_value","ratio"][,"target","met"]}
# plus, for targets nobody measured, {"name","value":null,...,"met":false}.
# Logs: $BUILD/bench-logs/. Exit status: 0 when every benchmark ran (a missed target is
# reported, not an error), 1 when one failed or printed malformed lines; with
# BENCH_STRICT=1 a missed target is an error too.
# `run.sh --report-only` measures nothing: it writes bench.json and the table again from the
# last run's $BUILD/bench-logs/measurements.txt (after a target was added, say).
# Knobs: CG_FRAMES (frames under callgrind, default 200000), BENCH_CORE_ARGS (extra
# arguments for the timed bench_core run, e.g. "--qs 8"), CG_ARGS (the same for the
# callgrind run, e.g. "--size 1500"), BENCH_TIMEOUT, BENCH_ONLY (a developer's subset:
# names of bench_*.sh without the prefix, and `core` for bench_core and its callgrind
# run, e.g. BENCH_ONLY="core web vxlan"; every target of the rest is then reported as
# not measured, so a subset's report is never taken for a whole run's).
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
export BUILD
LOG=$BUILD/bench-logs
OUT=$BUILD/bench.json
CG_FRAMES=${CG_FRAMES:-200000}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-900}
mkdir -p "$LOG"
LINES=$LOG/measurements.txt     # every BENCH line, in order
NOTES=$LOG/notes.txt            # benchmarks that failed or were skipped
REPORT_ONLY=
[ "${1:-}" = --report-only ] && REPORT_ONLY=1
if [ -z "$REPORT_ONLY" ]; then
  : >"$LINES"
  : >"$NOTES"
elif [ ! -s "$LINES" ]; then
  echo "bench: no $LINES: run make bench first" >&2
  exit 1
fi
status=0

note() { echo "$*" >>"$NOTES"; echo "bench: $*" >&2; }

# Keep a command's BENCH and NOTRUN lines; the whole output goes to its log.
collect() {
  local log=$1
  grep -E '^(BENCH|NOTRUN) ' "$log" >>"$LINES" || true
}

run_core() {
  local bin=$BUILD/bench/bench_core
  if [ ! -x "$bin" ]; then
    note "bench_core: not built ($bin)"; status=1; return
  fi
  echo "bench: bench_core (best of 3, one core) ..." >&2
  # shellcheck disable=SC2086
  if ! timeout "$BENCH_TIMEOUT" "$bin" ${BENCH_CORE_ARGS:-} >"$LOG/bench_core.log" 2>&1; then
    note "bench_core: failed (log: $LOG/bench_core.log)"; tail -n 5 "$LOG/bench_core.log" >&2
    status=1
  fi
  collect "$LOG/bench_core.log"
}

# Total Ir of a callgrind run of bench_core --callgrind --frames N (runs in a subshell:
# the program's BENCH_CALLGRIND_MACROS line stays in $LOG/callgrind.N.log).
# $2: instrument from the start (yes) or only between the program's START/STOP (no).
callgrind_ir() {
  local frames=$1 out=$LOG/callgrind.$1.out log=$LOG/callgrind.$1.log
  # shellcheck disable=SC2086
  timeout "$BENCH_TIMEOUT" valgrind --tool=callgrind --instr-atstart="$2" \
    --callgrind-out-file="$out" "$BUILD/bench/bench_core" --callgrind ${CG_ARGS:-} \
    --frames "$frames" >"$log" 2>&1 || return 1
  sed -n 's/^totals: *\([0-9][0-9]*\).*/\1/p' "$out" | head -n 1
}

# Inclusive Ir of one function in a callgrind output, or nothing.
callgrind_incl() {
  callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
    awk -v fn=":$2" 'index($0, fn) && $1 ~ /^[0-9,]+$/ { gsub(",", "", $1); print $1; exit }'
}

run_callgrind() {
  if ! command -v valgrind >/dev/null 2>&1; then
    note "callgrind: valgrind not installed, core_instr_per_frame not measured"; return
  fi
  [ -x "$BUILD/bench/bench_core" ] || return
  echo "bench: callgrind, $CG_FRAMES frames ..." >&2
  local total base=0 macros
  total=$(callgrind_ir "$CG_FRAMES" no)
  if [ -z "$total" ]; then
    note "callgrind: run failed (log: $LOG/callgrind.$CG_FRAMES.log)"; status=1; return
  fi
  macros=$(sed -n 's/^BENCH_CALLGRIND_MACROS \([01]\)$/\1/p' "$LOG/callgrind.$CG_FRAMES.log")
  if [ "$macros" != 1 ]; then
    # Built without <valgrind/callgrind.h>: nothing was counted. Count the whole program
    # and subtract a run of 0 frames (set-up, warm-up and tear-down).
    total=$(callgrind_ir "$CG_FRAMES" yes)
    base=$(callgrind_ir 0 yes)
    if [ -z "$total" ] || [ -z "$base" ]; then
      note "callgrind: whole-program runs failed"; status=1; return
    fi
  fi
  if [ "$CG_FRAMES" -le 0 ] || [ "$total" -le "$base" ]; then
    note "callgrind: no instructions counted ($total - $base)"; status=1; return
  fi
  awk -v t="$total" -v b="$base" -v n="$CG_FRAMES" \
    'BEGIN { printf "BENCH core_instr_per_frame %.1f instr/frame\n", (t - b) / n }' >>"$LINES"
  if [ "$macros" = 1 ]; then
    local out=$LOG/callgrind.$CG_FRAMES.out sw guest
    sw=$(callgrind_incl "$out" zvs_switch_poll)
    guest=$(callgrind_incl "$out" zvs_workload_run)
    [ -n "$sw" ] && awk -v v="$sw" -v n="$CG_FRAMES" \
      'BEGIN { printf "BENCH core_instr_per_frame_switch %.1f instr/frame\n", v / n }' >>"$LINES"
    [ -n "$guest" ] && awk -v v="$guest" -v n="$CG_FRAMES" \
      'BEGIN { printf "BENCH core_instr_per_frame_guest %.1f instr/frame\n", v / n }' >>"$LINES"
  fi
}

chosen() {  # chosen NAME: in BENCH_ONLY's list, or no list
  [ -z "${BENCH_ONLY:-}" ] && return 0
  case " $BENCH_ONLY " in *" $1 "*) return 0 ;; esac
  return 1
}

run_scripts() {
  local s name rc
  for s in tests/bench/bench_*.sh; do
    [ -f "$s" ] || continue
    name=$(basename "$s" .sh)
    chosen "${name#bench_}" || continue
    echo "bench: $name ..." >&2
    timeout "$BENCH_TIMEOUT" bash "$s" >"$LOG/$name.log" 2>&1
    rc=$?
    collect "$LOG/$name.log"
    if [ $rc -eq 77 ]; then
      note "$name: skipped: $(tail -n 1 "$LOG/$name.log")"
    elif [ $rc -ne 0 ]; then
      note "$name: failed, rc $rc (log: $LOG/$name.log)"; tail -n 10 "$LOG/$name.log" >&2
      status=1
    fi
  done
}

# BENCH lines -> JSON array and table. Malformed lines are reported (exit 2 of awk).
report() {
  awk -v json="$OUT" '
    function num(s) { return s ~ /^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
    function tok(s) { return s ~ /^[A-Za-z0-9_.-]+$/ }
    function peer_kind(s,   l) {
      l = tolower(s)
      if (l ~ /ovs/) return "ovs"
      if (l ~ /bridge/) return "bridge"
      return ""
    }
    function peer_default(s) {
      k = peer_kind(s)
      return k == "ovs" ? "ovs-userspace" : k == "bridge" ? "linux-bridge" : ""
    }
    function jstr(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
    function add(name, value, unit, peer, pv, ratio, target, met,   o) {
      o = "{\"name\":" jstr(name) ",\"value\":" value ",\"unit\":" jstr(unit)
      if (ratio != "")
        o = o ",\"peer\":" (peer == "" ? "null" : jstr(peer)) ",\"peer_value\":" pv ",\"ratio\":" ratio
      if (target != "")
        o = o ",\"target\":" target ",\"met\":" met
      objs[++nobj] = o "}"
    }
    function row(name, value, unit, peer, ratio, target, state) {
      printf "%-34s %12s %-12s %-15s %8s %8s  %s\n", name, value, unit, peer, ratio, target, state
    }
    BEGIN {
      # Targets of named measurements: "op value"; every one must be measured (a missing
      # one is reported as MISSED (not measured)). Issue 2: core; issue 3: LACP; issue 4:
      # port groups; issue 23: instructions per frame (the sides: tests/bench/README.md);
      # issue 16: the soak (bench_soak.sh; "==": lost_uncounted below 0 would
      # mean a discard counted that lost nothing, as wrong as a loss nobody counted);
      # issue 14: the IBM report experiment, group over non-group (bench_repro.sh: the
      # subset measured, the rest from the latest make repro); issue 26: a flood of
      # perfkit serve beside iperf3 through vswitchd (bench_web.sh); issue 23: 1,000
      # guests (bench_scale.sh); issue 24: the IVL domain (bench_ivl.sh).
      split("core_64b_mpps >= 20|" \
            "core_instr_per_frame <= 300|" \
            "core_instr_per_frame_switch <= 150|" \
            "core_instr_per_frame_guest <= 144.3|" \
            "dist_ns_per_frame <= 10|" \
            "balance_max_over_mean_skewed_2p_load <= 1.10|" \
            "balance_max_over_mean_skewed_4p_load <= 1.10|" \
            "lacp_converge_s_switchmodel <= 3|" \
            "lacp_converge_s_ovs <= 3|" \
            "lacp_silent_partner_detect_s_fast <= 3.05|" \
            "lacp_silent_partner_detect_s_slow <= 90.05|" \
            "lacp_pdu_tx_jitter_ms_under_load <= 50|" \
            "hercules_lcs_vswitchd_us_per_frame <= 1.5|" \
            "veth_tcp_vswitchd_cpu_per_gbps_mtu1500 <= 2.05|" \
            "veth_tcp_vswitchd_cpu_per_gbps_mtu9000 <= 2.25|" \
            "failover_gap_ms <= 10|" \
            "group_scaling_str_2p >= 1.9|" \
            "group_scaling_str_8p >= 7.5|" \
            "soak_rss_growth_kb <= 1024|" \
            "soak_lost_uncounted == 0|" \
            "repro_str_gain_mtu1492_10 >= 1.75|" \
            "repro_str_gain_mtu1492_50 >= 1.75|" \
            "repro_str_gain_mtu8992_10 >= 1.8|" \
            "repro_str_gain_mtu8992_50 >= 1.8|" \
            "repro_rr_gain_mtu1492_50 >= 1.4|" \
            "repro_cp_cpu_per_mb_ratio <= 1|" \
            "web_flood_iperf_ratio >= 0.9|" \
            "scale_fwd_ratio_1000g_vs_3g >= 0.9|" \
            "scale_query_details_ratio_1000g_vs_512g <= 2.2|" \
            "ivl_fraction_outbound <= 0.05|mvlag_str_scaling_4p >= 3.6|" \
            "mvlag_str_4p_min_port_busy >= 0.9|mvlag_system_loss_gap_ms_carrier <= 100|" \
            "mvlag_system_loss_gap_ms_silent <= 3500", tl, "|")
      for (i in tl) {
        split(tl[i], parts, " ")
        top[parts[1]] = parts[2]; tval[parts[1]] = parts[3]; order[++ntgt] = parts[1]
      }
      # Targets on the ratio of named lines against their peer (each must be measured):
      # issue 25, guest to guest across two VXLAN VTEPs against the kernel vxlan + bridge.
      split("vxlan_tcp_gbps_mtu1500 0.8|vxlan_tcp_gbps_mtu9000 0.8", rl, "|")
      for (i in rl) {
        split(rl[i], parts, " ")
        rtgt[parts[1]] = parts[2]; rorder[++nrtgt] = parts[1]
      }
      print ""
      row("measurement", "value", "unit", "peer", "ratio", "target", "status")
      row("-----------", "-----", "----", "----", "-----", "------", "------")
    }
    $1 == "NOTRUN" {
      if (NF < 3 || !tok($2)) { bad[++nbad] = $0; next }
      name = $2; reason = $3
      for (i = 4; i <= NF; i++) reason = reason " " $i
      target = ""; state = "not run (" reason ")"
      if (name in top) { target = tval[name]; seen[name] = 1 }
      o = "{\"name\":" jstr(name) ",\"value\":null"
      if (target != "") o = o ",\"target\":" target ",\"met\":null"
      objs[++nobj] = o ",\"not_run\":" jstr(reason) "}"
      notrun++
      row(name, "-", "", "", "", target != "" ? top[name] " " target : "", state)
      next
    }
    {
      n = NF; name = $2; value = $3; unit = $4; peer = ""; pv = ""; ratio = ""
      if (n == 7) { peer = $5; pv = $6; ratio = $7 }
      else if (n == 6) { pv = $5; ratio = $6; peer = peer_default(name) }
      else if (n != 4) { bad[++nbad] = $0; next }
      if (!tok(name) || !num(value) || unit !~ /^[^ \t"\\]+$/ ||
          (ratio != "" && (!num(pv) || !num(ratio) || (peer != "" && !tok(peer))))) {
        bad[++nbad] = $0; next
      }
      target = ""; met = ""; state = ""
      if (name in top) {
        target = tval[name]; op = top[name]; seen[name] = 1
        met = (op == ">=" ? value + 0 >= target + 0 : op == "==" ? value + 0 == target + 0 : value + 0 <= target + 0) ? "true" : "false"
      } else if (ratio != "" && name in rtgt) {
        target = rtgt[name]; seen[name] = 1
        met = (ratio + 0 >= target) ? "true" : "false"
      } else if (ratio != "" && name !~ /_(pump|floor)_/) {
        # (a line of a floor, *_pump_* or *_floor_*, measures a program beside vswitchd that
        # does the least a switch does: the targets are for zvswitch, not for the floor)
        k = peer_kind(peer != "" ? peer : name)
        if (k == "ovs") target = 1.2
        if (k == "bridge") target = name ~ /^hercules_/ ? 0.98 : 0.85
        if (target != "") { met = (ratio + 0 >= target) ? "true" : "false"; seen[k] = 1 }
      }
      if (target != "") state = met == "true" ? "met" : "MISSED"
      if (target != "" && met == "false") missed++
      add(name, value, unit, peer, pv, ratio, target, met)
      row(name, value, unit, peer, ratio, target != "" ? (name in top ? top[name] : ">=") " " target : "", state)
    }
    END {
      for (i = 1; i <= ntgt; i++) {
        t = order[i]
        if (t in seen) continue
        objs[++nobj] = "{\"name\":" jstr(t) ",\"value\":null,\"target\":" tval[t] ",\"met\":false}"
        row(t, "-", "", "", "", top[t] " " tval[t], "MISSED (not measured)"); missed++
      }
      for (i = 1; i <= nrtgt; i++) {
        t = rorder[i]
        if (t in seen) continue
        objs[++nobj] = "{\"name\":" jstr(t) ",\"value\":null,\"target\":" rtgt[t] ",\"met\":false}"
        row(t, "-", "", "", "", ">= " rtgt[t], "MISSED (not measured)"); missed++
      }
      if (!("ovs" in seen)) {
        objs[++nobj] = "{\"name\":\"veth_vs_ovs_ratio\",\"value\":null,\"unit\":\"ratio\",\"peer\":\"ovs-userspace\",\"target\":1.2,\"met\":false}"
        row("veth_vs_ovs_ratio", "-", "ratio", "ovs-userspace", "-", ">= 1.2", "MISSED (not measured)"); missed++
      }
      if (!("bridge" in seen)) {
        objs[++nobj] = "{\"name\":\"veth_vs_bridge_ratio\",\"value\":null,\"unit\":\"ratio\",\"peer\":\"linux-bridge\",\"target\":0.85,\"met\":false}"
        row("veth_vs_bridge_ratio", "-", "ratio", "linux-bridge", "-", ">= 0.85", "MISSED (not measured)"); missed++
      }
      printf "[" > json
      for (i = 1; i <= nobj; i++)
        printf "%s\n  %s", (i > 1 ? "," : ""), objs[i] > json
      printf "\n]\n" > json
      close(json)
      for (i = 1; i <= nbad; i++)
        printf "bench: malformed line ignored: %s\n", bad[i]
      printf "\nbench: %d measurements, %d target(s) missed, %d not run; written to %s\n", \
             nobj, missed + 0, notrun + 0, json
      exit (nbad > 0 ? 2 : (missed > 0 ? 3 : 0))
    }' "$LINES"
}

if [ -z "$REPORT_ONLY" ]; then
  if chosen core; then
    run_core
    run_callgrind
  fi
  run_scripts
fi
report
rc=$?
if [ -s "$NOTES" ]; then
  echo ""
  sed 's/^/bench: note: /' "$NOTES"
fi
[ $rc -eq 2 ] && status=1
[ $rc -eq 3 ] && [ "${BENCH_STRICT:-0}" = 1 ] && status=1
exit $status
