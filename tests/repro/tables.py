#!/usr/bin/env python3
"""Tables 1 and 2 of the IBM report "z/VM 5.3 Virtual Switch Link Aggregation", from the
measurements tests/repro/repro.sh wrote (one JSON line each), in the report's shape.

Every figure is the median of the repeats, with the spread (min..max) beside it; every
% diff row carries the report's own figure. CP CPU = the two vswitchd cgroups, Emul CPU =
the four guests' cgroups, Total = the sum (the switch model, playing the OSA cards and the
physical switch, is counted apart). MB = 10^6 bytes of STR answers received by the clients.
OSA utilisation: per port, the larger of its busier direction's bits and its frames (both
directions) against the OSA port model's limits, averaged over the ports in use.

  tables.py --in repro.jsonl --json repro.json --md repro.md [--elapsed S]
  tables.py --bench repro.json [--measured KEY,KEY]   BENCH lines (tests/bench/run.sh)
"""
import argparse, json, statistics, sys

GUESTS = ["lnxregc", "lnxvswc", "lnxregs", "lnxvsws"]
THREADS = [1, 10, 50]
# The report's figures: (kind, mtu) -> config -> row -> [1, 10, 50 threads]
REPORT = {
    ("str", 1492): {
        "base": {"rate": [82.4, 112.0, 111.9], "total": [5.54, 6.40, 7.15], "emul": [2.77, 3.36, 3.90],
                 "cp": [2.77, 3.04, 3.25], "osa": [70, 95, 95]},
        "group": {"rate": [94.7, 206.1, 216.9], "total": [5.41, 5.65, 5.57], "emul": [2.62, 3.03, 3.01],
                  "cp": [2.79, 2.62, 2.56], "osa": [40, 85, 90]},
        "diff": {"rate": [15, 84, 94], "total": [-2, -12, -22], "emul": [-5, -10, -23], "cp": [1, -14, -21]},
    },
    ("str", 8992): {
        "base": {"rate": [70.7, 118, 117.8], "total": [3.80, 3.66, 3.91], "emul": [1.70, 1.73, 1.94],
                 "cp": [2.10, 1.93, 1.97], "osa": [60, 100, 100]},
        "group": {"rate": [74.6, 235.9, 235.6], "total": [3.38, 3.22, 3.38], "emul": [1.45, 1.54, 1.66],
                  "cp": [1.93, 1.68, 1.72], "osa": [30, 100, 100]},
        "diff": {"rate": [6, 100, 100], "total": [-11, -12, -14], "emul": [-15, -11, -14], "cp": [-8, -13, -13]},
    },
    ("rr", 1492): {
        "base": {"rate": [4488.5, 23763.0, 42049.8], "total": [.048, .033, .025], "emul": [.025, .020, .016],
                 "cp": [.023, .013, .009]},
        "group": {"rate": [4709.5, 30089.0, 65916.0], "total": [.048, .031, .025], "emul": [.022, .018, .016],
                  "cp": [.026, .013, .009]},
        "diff": {"rate": [5, 27, 57], "total": [0, -6, 0], "emul": [-12, -10, 0], "cp": [13, 0, 0]},
    },
}


def derive(r):
    """The report's rows for one measurement."""
    cpu = r["cpu_usec"]
    cp = (cpu["gdlgprf1"] + cpu["gdlgprf2"]) / 1e3      # msec
    emul = sum(cpu[g] for g in GUESTS) / 1e3
    if r["kind"] == "str":
        units = r["bytes"] / 1e6
        rate = units / r["secs"]
    else:
        units = r["tx"]
        rate = units / r["secs"]
    used = [u for p, u in r["osa_util"].items()
            if r["conf"] == "group" or p in ("Gi2/23", "Gi2/25")]
    d = {"rate": rate, "total": (cp + emul) / units if units else None,
         "emul": emul / units if units else None, "cp": cp / units if units else None,
         "osa": 100 * sum(used) / len(used) if used else None,
         "osa_min_client": 100 * min(u for p, u in r["osa_util"].items()
                                     if p in (("Gi2/23", "Gi2/24") if r["conf"] == "group" else ("Gi2/23",))),
         "idle": r["host_idle_pct"], "drops": r["osa_drops"]}
    return d


def med(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def aggregate(recs):
    pts = {}
    for r in recs:
        pts.setdefault((r["kind"], r["mtu"], r["threads"], r["conf"]), []).append(derive(r))
    out = {}
    for (kind, mtu, th, conf), ds in pts.items():
        out.setdefault("%s_%d" % (kind, mtu), {}).setdefault(str(th), {})[conf] = \
            {k: med([d[k] for d in ds]) for k in ds[0]}
    return out


def fmt(v, kind, row):
    if v is None:
        return "-"
    if row == "rate":
        return "%.1f" % v if kind == "str" else "%.0f" % v
    if row == "osa":
        return "%.0f%%" % v
    return "%.2f" % v if kind == "str" else "%.4f" % v


def cell(m, kind, row):
    if not m:
        return "-"
    s = fmt(m["median"], kind, row)
    if m["n"] > 1:
        s += " (%s..%s)" % (fmt(m["min"], kind, row), fmt(m["max"], kind, row))
    return s


ROWS = {"str": [("rate", "MB/sec"), ("total", "Total CPU msec/MB"), ("emul", "Emul CPU msec/MB"),
                ("cp", "CP CPU msec/MB"), ("osa", "Approx. OSA card utilization")],
        "rr": [("rate", "Tx/sec"), ("total", "Total CPU msec/Tx"), ("emul", "Emul CPU msec/Tx"),
               ("cp", "CP CPU msec/Tx")]}


def table(agg, kind, mtu, lines):
    key = "%s_%d" % (kind, mtu)
    if key not in agg:
        return
    rep = REPORT[(kind, mtu)]
    ths = [t for t in THREADS if str(t) in agg[key]]
    lines.append("")
    lines.append("MTU %d, %s (threads per client guest; connections in all = 2 x threads)" %
                 (mtu, kind.upper()))
    hdr = "| | " + " | ".join("%d threads (%d conns)" % (t, 2 * t) for t in ths) + " |"
    sep = "|---" * (len(ths) + 1) + "|"
    for conf, title in (("base", "non-group, 1 OSA"), ("group", "group, 2 OSAs")):
        lines += ["", "**zvswitch (%s)**, median (min..max)" % title, "", hdr, sep]
        for row, name in ROWS[kind]:
            vals = [cell(agg[key][str(t)].get(conf, {}).get(row), kind, row) for t in ths]
            lines.append("| %s | %s |" % (name, " | ".join(vals)))
    lines += ["", "**% diff** (ours, the report's in brackets)", "", hdr, sep]
    for row, name in ROWS[kind][:4]:
        vals = []
        for t in ths:
            b = agg[key][str(t)].get("base", {}).get(row)
            g = agg[key][str(t)].get("group", {}).get(row)
            ours = "%+.0f%%" % (100 * (g["median"] / b["median"] - 1)) if b and g and b["median"] else "-"
            vals.append("%s [%+d%%]" % (ours, rep["diff"][row][THREADS.index(t)]))
        lines.append("| %s | %s |" % (name, " | ".join(vals)))


def gains(agg):
    """The bench keys: group / non-group medians."""
    out = {}
    for kind, mtu in (("str", 1492), ("str", 8992), ("rr", 1492)):
        for t in (10, 50):
            p = agg.get("%s_%d" % (kind, mtu), {}).get(str(t), {})
            if "base" in p and "group" in p and p["base"]["rate"]["median"]:
                out["repro_%s_gain_mtu%d_%d" % (kind, mtu, t)] = \
                    p["group"]["rate"]["median"] / p["base"]["rate"]["median"]
    p = agg.get("str_1492", {}).get("10", {})
    if "base" in p and "group" in p and p["base"]["cp"] and p["group"]["cp"]:
        out["repro_cp_cpu_per_mb_ratio"] = p["group"]["cp"]["median"] / p["base"]["cp"]["median"]
    return out


def checks(recs):
    """The bottleneck check: every STR run at 10 and 50 threads has its client LPAR's OSA
    ports at >= 90 % of a limit; host idle reported beside it."""
    out = []
    for r in recs:
        if r["kind"] != "str" or r["threads"] not in (10, 50):
            continue
        d = derive(r)
        out.append({"conf": r["conf"], "mtu": r["mtu"], "threads": r["threads"], "rep": r["rep"],
                    "osa_min_client_pct": d["osa_min_client"], "host_idle_pct": d["idle"],
                    "ok": d["osa_min_client"] >= 90.0})
    return out


def bench(path, measured):
    j = json.load(open(path))
    for k in ("repro_str_gain_mtu1492_10", "repro_str_gain_mtu1492_50", "repro_str_gain_mtu8992_10",
              "repro_str_gain_mtu8992_50", "repro_rr_gain_mtu1492_10", "repro_rr_gain_mtu1492_50",
              "repro_cp_cpu_per_mb_ratio"):
        if k not in j.get("gains", {}):
            continue
        # run.sh reads a 5th token as a peer: the origin goes into the unit token instead.
        unit = "ratio" if k.endswith("ratio") else "x"
        if k not in measured:
            unit += ",from-latest-make-repro"
        print("BENCH %s %.3f %s" % (k, j["gains"][k], unit))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--in", dest="inp")
    ap.add_argument("--json")
    ap.add_argument("--md")
    ap.add_argument("--elapsed", type=int, default=0)
    ap.add_argument("--bench")
    ap.add_argument("--measured", default="")
    a = ap.parse_args()
    if a.bench:
        return bench(a.bench, set(a.measured.split(",")))
    recs = [json.loads(l) for l in open(a.inp) if l.strip()]
    if not recs:
        sys.exit("tables.py: no measurements")
    agg = aggregate(recs)
    chk = checks(recs)
    r0 = recs[0]
    lim = r0["limits"]
    lines = ["# The IBM report's Tables 1 and 2, reproduced by zvswitch", "",
             "OSA port model: %d bit/s each way, %d frames/s both ways (scale %.2f of the report's "
             "1 Gbit/s OSA-Express2 ports), INTERVAL %d, policy %s, window %.0f s, %d measurements, "
             "%d s in all. Two client guests (LNXREGC, LNXVSWC) on GDLGPRF1, two servers on GDLGPRF2." %
             (lim["bps"], lim["fps"], lim["scale"], r0["interval"], r0["policy"], r0["secs"],
              len(recs), a.elapsed)]
    lines += ["", "## Table 1. 2 clients - STR"]
    table(agg, "str", 1492, lines)
    table(agg, "str", 8992, lines)
    lines += ["", "## Table 2. 2 clients - RR"]
    table(agg, "rr", 1492, lines)
    g = gains(agg)
    lines += ["", "## Group over non-group", ""]
    lines += ["- %s = %.3f" % (k, v) for k, v in sorted(g.items())]
    lines += ["", "## Bottleneck check (STR at 10 and 50 threads: GDLGPRF1's OSA ports >= 90 %)", ""]
    for c in chk:
        lines.append("- %s MTU %d %d threads rep %d: lowest client OSA port %.0f%%, host idle %.0f%%: %s" %
                     (c["conf"], c["mtu"], c["threads"], c["rep"], c["osa_min_client_pct"],
                      c["host_idle_pct"], "ok" if c["ok"] else "NOT the OSA ports"))
    text = "\n".join(lines) + "\n"
    open(a.md, "w").write(text)
    json.dump({"points": agg, "gains": g, "checks": chk, "limits": lim, "interval": r0["interval"],
               "policy": r0["policy"], "secs": r0["secs"], "elapsed_s": a.elapsed,
               "measurements": recs, "report": {"%s_%d" % k: v for k, v in REPORT.items()}},
              open(a.json, "w"), indent=1, sort_keys=True)
    print(text)


main()
