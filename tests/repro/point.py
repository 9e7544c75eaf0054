#!/usr/bin/env python3
"""One measurement of tests/repro/repro.sh as one JSON line (or, with --summary, the line
read back on stdin printed for a person). Derived figures are computed in tables.py; this
keeps the raw counts: window, bytes and transactions, CPU microseconds per cgroup, host
idle, and the switch model's OSA port counters over the window."""
import argparse, json, sys

CGROUPS = ["gdlgprf1", "gdlgprf2", "lnxregc", "lnxvswc", "lnxregs", "lnxvsws", "switch"]
# Switch model port -> (LPAR, OSA device): configs/repro/lab6509-repro-*.conf
PORTS = {"Gi2/23": (1, "28BA"), "Gi2/24": (1, "2902"), "Gi2/25": (2, "28BA"), "Gi2/26": (2, "2902")}


def osa(path):
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) == 7:
            out[f[0]] = [int(x) for x in f[1:]]
    return out


def summary():
    r = json.loads(sys.stdin.readline())
    cpu = r["cpu_usec"]
    cp = cpu["gdlgprf1"] + cpu["gdlgprf2"]
    emul = sum(cpu[g] for g in CGROUPS[2:6])
    mb = r["bytes"] / 1e6
    util = " ".join("%s %.0f%%" % (p, 100 * u) for p, u in sorted(r["osa_util"].items()) if u > 0.005)
    rate = "%.1f MB/s" % (mb / r["secs"]) if r["kind"] == "str" else "%.0f Tx/s" % (r["tx"] / r["secs"])
    per = ("%.2f ms/MB" % (cp / 1e3 / mb) if mb else "-") if r["kind"] == "str" else \
          ("%.4f ms/Tx" % (cp / 1e3 / r["tx"]) if r["tx"] else "-")
    print("POINT %-5s %-3s MTU %4d %2d thr rep %d: %-12s CP %s Emul+CP %.0f%% of a core, "
          "host idle %.0f%%, drops %d, OSA %s" % (
              r["conf"], r["kind"].upper(), r["mtu"], r["threads"], r["rep"], rate, per,
              100 * (cp + emul) / 1e6 / r["secs"], r["host_idle_pct"], r["osa_drops"], util))


def main():
    if "--summary" in sys.argv:
        return summary()
    ap = argparse.ArgumentParser()
    for a in ["conf", "kind", "cpu0", "cpu1", "idle0", "idle1", "osa0", "osa1", "awm", "policy"]:
        ap.add_argument("--" + a, required=True)
    for a in ["mtu", "threads", "rep", "rate-bps", "rate-fps", "interval"]:
        ap.add_argument("--" + a, type=int, required=True)
    ap.add_argument("--secs", type=float, required=True)
    ap.add_argument("--scale", type=float, required=True)
    a = ap.parse_args()
    c0, c1 = [int(x) for x in a.cpu0.split()], [int(x) for x in a.cpu1.split()]
    i0, i1 = [int(x) for x in a.idle0.split()], [int(x) for x in a.idle1.split()]
    o0, o1 = osa(a.osa0), osa(a.osa1)
    nbytes = tx = 0
    for line in a.awm.splitlines():
        kv = dict(w.split("=", 1) for w in line.split()[1:])
        nbytes += int(kv["bytes"])
        tx += int(kv["tx"])
    ports, util, drops = {}, {}, 0
    for p, (lpar, dev) in PORTS.items():
        if p not in o1:
            continue
        d = [y - x for x, y in zip(o0.get(p, [0] * 6), o1[p])]
        in_fr, out_fr, in_b, out_b, in_dr, out_dr = d
        ports[p] = {"lpar": lpar, "osa": dev, "in_frames": in_fr, "out_frames": out_fr,
                    "in_bytes": in_b, "out_bytes": out_b, "in_drops": in_dr, "out_drops": out_dr}
        bits = max(in_b, out_b) * 8 / (a.rate_bps * a.secs)
        frames = (in_fr + out_fr) / (a.rate_fps * a.secs)
        util[p] = max(bits, frames)
        drops += in_dr + out_dr
    idle_d, all_d = i1[0] - i0[0], i1[1] - i0[1]
    rec = {"conf": a.conf, "kind": a.kind, "mtu": a.mtu, "threads": a.threads, "rep": a.rep,
           "secs": a.secs, "bytes": nbytes, "tx": tx,
           "cpu_usec": {g: y - x for g, x, y in zip(CGROUPS, c0, c1)},
           "host_idle_pct": 100.0 * idle_d / all_d if all_d else 0.0,
           "osa": ports, "osa_util": util, "osa_drops": drops,
           "limits": {"bps": a.rate_bps, "fps": a.rate_fps, "scale": a.scale},
           "interval": a.interval, "policy": a.policy}
    print(json.dumps(rec, sort_keys=True))


main()
