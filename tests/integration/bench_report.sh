#!/usr/bin/env bash
# check: hermetic (no root, no namespaces, no timing: the bench report on fixtures)
# `make bench` on a fresh clone reports the gains it takes from the latest `make repro`
# as "not run (make repro has not been run)", not as missed targets; with a repro.json
# it reports them as measured, each against its target. bench_repro.sh --latest-only
# prints those lines (it measures nothing); tests/bench/run.sh --report-only turns a
# measurements file into the table and bench.json. Builds and measures nothing. Under 5 s.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
WORK=$(mktemp -d /tmp/zvs-bench-report.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
trap 'exit 1' INT TERM
LATEST="repro_str_gain_mtu1492_50 repro_str_gain_mtu8992_10 repro_str_gain_mtu8992_50"

# Every other target measured and met, so only the repro gains can be missed or not run.
met_lines() {
  cat <<'LINES'
BENCH core_64b_mpps 25.0 Mpps
BENCH core_instr_per_frame 292.9 instr/frame
BENCH core_instr_per_frame_switch 148.0 instr/frame
BENCH core_instr_per_frame_guest 144.3 instr/frame
BENCH dist_ns_per_frame 1.0 ns
BENCH balance_max_over_mean_skewed_2p_load 1.01 x
BENCH balance_max_over_mean_skewed_4p_load 1.02 x
BENCH lacp_converge_s_switchmodel 1.0 s
BENCH lacp_converge_s_ovs 1.0 s
BENCH lacp_silent_partner_detect_s_fast 3.0 s
BENCH lacp_silent_partner_detect_s_slow 90.0 s
BENCH lacp_pdu_tx_jitter_ms_under_load 4.0 ms
BENCH hercules_lcs_vswitchd_us_per_frame 1.2 us
BENCH failover_gap_ms 2.0 ms
BENCH group_scaling_str_2p 1.95 x
BENCH group_scaling_str_8p 7.8 x
BENCH soak_rss_growth_kb 12 kB
BENCH soak_lost_uncounted 0 frames
BENCH veth_tcp_gbps_vs_ovs 19.0 Gbit/s 6.5 2.92
BENCH veth_tcp_gbps_vs_bridge 24.0 Gbit/s 28.0 0.86
BENCH veth_tcp_vswitchd_cpu_per_gbps_mtu1500 2.0 %cpu/Gbps
BENCH veth_tcp_pump_gbps_mtu1500 34.3 Gbit/s bridge 49.5 0.693
BENCH veth_tcp_gbps_mtu1500_vs_pump 29.2 Gbit/s pump 34.3 0.851
BENCH hercules_lcs_fps_64b_vs_pump 263264 frames/s pump 308395 0.854
BENCH veth_tcp_vswitchd_cpu_per_gbps_mtu9000 2.2 %cpu/Gbps
BENCH repro_str_gain_mtu1492_10 2.19 x
BENCH repro_rr_gain_mtu1492_50 1.52 x
BENCH repro_cp_cpu_per_mb_ratio 0.93 ratio
BENCH web_flood_iperf_ratio 0.95 ratio
BENCH vxlan_tcp_gbps_mtu1500 9.0 Gbit/s linux-vxlan-bridge 10.0 0.900
BENCH vxlan_tcp_gbps_mtu9000 18.0 Gbit/s linux-vxlan-bridge 20.0 0.900
BENCH scale_fwd_ratio_1000g_vs_3g 0.95 ratio
BENCH scale_query_details_ratio_1000g_vs_512g 2.0 ratio
BENCH ivl_fraction_outbound 0.001 fraction
BENCH mvlag_str_scaling_4p 3.8 ratio
BENCH mvlag_str_4p_min_port_busy 0.95 fraction
BENCH mvlag_system_loss_gap_ms_carrier 20 ms
BENCH mvlag_system_loss_gap_ms_silent 3000 ms
LINES
}

# report DIR: run.sh --report-only on DIR's measurements; the table in DIR/table.txt.
report() {
  BUILD=$1 BENCH_STRICT=1 tests/bench/run.sh --report-only >"$1/table.txt" 2>&1
}

# ---- 1. A fresh clone: no repro.json ------------------------------------------------
B=$WORK/fresh
mkdir -p "$B/bench-logs"
BUILD=$B tests/bench/bench_repro.sh --latest-only >"$B/latest.txt" 2>&1 ||
  fail "bench_repro.sh --latest-only: $(cat "$B/latest.txt")"
for k in $LATEST; do
  grep -qx "NOTRUN $k make repro has not been run" "$B/latest.txt" ||
    fail "bench_repro.sh --latest-only does not say $k was not run: $(cat "$B/latest.txt")"
done
grep -q '^BENCH ' "$B/latest.txt" &&
  fail "bench_repro.sh --latest-only measured: $(cat "$B/latest.txt")"
ok "without repro.json, bench_repro.sh says the gains of the latest make repro were not run"

{ met_lines; grep -E '^(BENCH|NOTRUN) ' "$B/latest.txt"; } >"$B/bench-logs/measurements.txt"
report "$B" ||
  fail "run.sh --report-only (strict) failed on a run with nothing missed: $(cat "$B/table.txt")"
for k in $LATEST; do
  grep -E "^$k .*not run \(make repro has not been run\)$" "$B/table.txt" >/dev/null ||
    fail "the table's row of $k: $(grep "^$k " "$B/table.txt")"
  python3 - "$B/bench.json" "$k" <<'PY' || fail "bench.json's object of $k"
import json, sys
o = [x for x in json.load(open(sys.argv[1])) if x["name"] == sys.argv[2]]
assert len(o) == 1 and o[0]["value"] is None and o[0]["met"] is None, o
assert o[0]["not_run"] == "make repro has not been run" and "target" in o[0], o
PY
done
grep -q MISSED "$B/table.txt" && fail "a target reported missed: $(grep MISSED "$B/table.txt")"
grep -q "0 target(s) missed, 4 not run" "$B/table.txt" ||
  fail "summary: $(tail -n 1 "$B/table.txt")"
ok "run.sh reports them as not run, counts none as missed, and exits 0 under BENCH_STRICT"
# The floor measured beside zvswitch (tests/tools/tap_pump) is below 0.85 of the bridge:
# a line of its own, with no target (the summary above counted nothing missed).
python3 - "$B/bench.json" <<'PY' || fail "bench.json's pump lines: $(grep pump "$B/table.txt")"
import json, sys
o = {x["name"]: x for x in json.load(open(sys.argv[1]))}
p = o["veth_tcp_pump_gbps_mtu1500"]
assert p["peer"] == "bridge" and p["ratio"] == 0.693 and "target" not in p, p
v = o["veth_tcp_gbps_mtu1500_vs_pump"]
assert v["peer"] == "pump" and v["ratio"] == 0.851 and "target" not in v, v
h = o["hercules_lcs_fps_64b_vs_pump"]   # not the 0.98 a hercules_ line has against the bridge
assert h["peer"] == "pump" and h["ratio"] == 0.854 and "target" not in h, h
PY
ok "the pump's lines carry no target"

# ---- 2. After a make repro: its gains, against their targets -------------------------
B=$WORK/repro
mkdir -p "$B/bench-logs"
cat >"$B/repro.json" <<'JSON'
{"gains": {"repro_str_gain_mtu1492_10": 2.0, "repro_str_gain_mtu1492_50": 1.9,
           "repro_str_gain_mtu8992_10": 1.85, "repro_str_gain_mtu8992_50": 1.5,
           "repro_rr_gain_mtu1492_10": 1.3, "repro_rr_gain_mtu1492_50": 1.45,
           "repro_cp_cpu_per_mb_ratio": 0.9}}
JSON
BUILD=$B tests/bench/bench_repro.sh --latest-only >"$B/latest.txt" 2>&1 ||
  fail "bench_repro.sh --latest-only with repro.json: $(cat "$B/latest.txt")"
grep -q '^NOTRUN ' "$B/latest.txt" && fail "not run although make repro ran: $(cat "$B/latest.txt")"
grep -qx "BENCH repro_str_gain_mtu8992_50 1.500 x,from-latest-make-repro" "$B/latest.txt" ||
  fail "the latest make repro's gain: $(cat "$B/latest.txt")"
grep -q "^BENCH repro_str_gain_mtu1492_10 " "$B/latest.txt" &&
  fail "a gain the subset measures taken from repro.json: $(cat "$B/latest.txt")"
{ met_lines; grep -E '^(BENCH|NOTRUN) ' "$B/latest.txt"; } >"$B/bench-logs/measurements.txt"
if report "$B"; then
  fail "BENCH_STRICT run.sh passed with a missed target"
fi
grep -E "^repro_str_gain_mtu8992_50 .* MISSED$" "$B/table.txt" >/dev/null ||
  fail "repro_str_gain_mtu8992_50 at 1.5 is not missed: $(grep "^repro_str_gain_mtu8992_50 " "$B/table.txt")"
grep -E "^repro_str_gain_mtu1492_50 .* met$" "$B/table.txt" >/dev/null ||
  fail "repro_str_gain_mtu1492_50 at 1.9 is not met: $(grep "^repro_str_gain_mtu1492_50 " "$B/table.txt")"
grep -q "not run (" "$B/table.txt" && fail "a row not run: $(grep "not run (" "$B/table.txt")"
grep -q "1 target(s) missed, 0 not run" "$B/table.txt" || fail "summary: $(tail -n 1 "$B/table.txt")"
ok "with repro.json, its gains are reported and checked against their targets"
