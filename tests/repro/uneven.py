#!/usr/bin/env python3
"""The "uneven inbound" variant of tests/repro/repro.sh (--uneven): the IBM report's second
FCX240, where the physical switch loads one OSA port with inbound and the VSWITCH puts its
outbound on the other (tests/repro/README.md, "The balancing picture").

Reads the variant's two measurements (one JSON line each, point.py; POLICY LOAD TOTAL and
OUTBOUND) and what repro.sh kept in its work directory per policy: the switch model's
`show etherchannel load-balance` (uneven-lb-POL), the client guests' MACs (uneven-macs-POL)
and GDLGPRF1's FCX240 of the last monitor interval in the window (uneven-fcx-POL). Writes
the section "The balancing picture" into repro.md (replacing an earlier one) and the
figures into repro.json under "uneven" (other keys kept), prints the section, and exits 1
when the picture is not there:
  - the switch must put >= 90 % of GDLGPRF1's inbound on one OSA port (else the MAC choice
    does not make the inbound uneven and nothing below means anything);
  - TOTAL must leave <= 10 % of GDLGPRF1's outbound on that port (the pass moved it off);
  - OUTBOUND must leave >= 15 % there (the pass, counting outbound only, has no reason to;
    how much stays depends on how the two clients' flows share the port: 40 % and 63 % in
    the first runs, so the bound only asks that a real share stayed).

  uneven.py --in repro-uneven.jsonl --work DIR --json repro.json --md repro.md
            [--warmup S] [--elapsed S]
"""
import argparse, json, os, re, sys

# GDLGPRF1's OSA ports on the switch model (configs/repro/lab6509-repro-group.conf).
PORTS = {"Gi2/23": "28BA", "Gi2/24": "2902"}
POLICIES = ["TOTAL", "OUTBOUND"]
INBOUND_SKEW_MIN = 0.90
TOTAL_SHARE_MAX = 0.10
OUTBOUND_SHARE_MIN = 0.15
HEADING = "## The balancing picture: uneven inbound (repro.sh --uneven)"


def read(path):
    try:
        return open(path).read()
    except OSError:
        return ""


def hash_ports(lb_text, macs_text):
    """Each client MAC's dst-mac bucket and the Po1 member whose Load mask holds it: the
    model's own hash (low 3 bits of the MAC's last byte; bucket b on member b mod n)."""
    m = re.search(r"^Po1:(.*)$", lb_text, re.M)
    masks = {p: int(x, 16) for p, x in re.findall(r"(\S+) Load (0x[0-9A-Fa-f]+)", m.group(1))} if m else {}
    out = {}
    for line in macs_text.splitlines():
        f = line.split()
        if len(f) != 2:
            continue
        b = int(f[1].split(":")[-1], 16) & 7
        port = next((p for p, k in masks.items() if k >> b & 1), None)
        out[f[0]] = {"mac": f[1], "bucket": b, "port": port, "osa": PORTS.get(port)}
    return out, masks


def num(v):
    """An FCX240 figure: 128163, 116M, 12k."""
    mult = {"k": 1e3, "M": 1e6, "G": 1e9}.get(v[-1:], 1)
    return float(v.rstrip("kMG")) * mult


def fcx_rdevs(text):
    """GDLGPRF1's RDEV lines of an FCX240 screen: OSA -> (outbound bytes/s, inbound bytes/s)."""
    out = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 13 and f[0] in PORTS.values():
            out[f[0]] = {"out_bps": num(f[5]), "in_bps": num(f[8])}
    return out


def picture(r):
    """Per OSA port of GDLGPRF1, bytes/s over the window, from the OSA's side: the switch
    model's out (towards the OSA) is the OSA's inbound, its in is the OSA's outbound."""
    s = r["secs"]
    ports = {}
    for p, dev in PORTS.items():
        c = r["osa"].get(p, {})
        ports[dev] = {"switch_port": p, "in_bps": c.get("out_bytes", 0) / s,
                      "out_bps": c.get("in_bytes", 0) / s, "in_fps": c.get("out_frames", 0) / s,
                      "out_fps": c.get("in_frames", 0) / s}
    tin = sum(v["in_bps"] for v in ports.values())
    tout = sum(v["out_bps"] for v in ports.values())
    loaded = max(ports, key=lambda d: ports[d]["in_bps"])
    for v in ports.values():
        v["in_share"] = v["in_bps"] / tin if tin else 0.0
        v["out_share"] = v["out_bps"] / tout if tout else 0.0
    return {"mb_per_s": r["bytes"] / 1e6 / s, "ports": ports, "inbound_port": loaded,
            "inbound_skew": ports[loaded]["in_share"],
            "outbound_share_on_inbound_port": ports[loaded]["out_share"]}


def check(pol, p, hashed):
    """(ok, sentence) for one policy's picture."""
    lp, other = p["inbound_port"], [d for d in PORTS.values() if d != p["inbound_port"]][0]
    want = {h["osa"] for h in hashed.values()}
    if p["inbound_skew"] < INBOUND_SKEW_MIN:
        return False, ("%s: the switch model spread GDLGPRF1's inbound (%.0f%% on %s): the client "
                       "MACs do not fall on one member of its dst-mac hash, so there is no uneven "
                       "inbound to balance against" % (pol, 100 * p["inbound_skew"], lp))
    if want != {lp}:
        return False, ("%s: the inbound came on %s, but the switch model's hash puts the client MACs "
                       "on %s: they are not both on that member (MACIDs, or the model's hash changed)" %
                       (pol, lp, ", ".join("%s %s" % (g, h["osa"]) for g, h in sorted(hashed.items()))))
    share = p["outbound_share_on_inbound_port"]
    if pol == "TOTAL":
        ok = share <= TOTAL_SHARE_MAX
        verdict = ("moved off it to %s, as in the report's second FCX240" % other if ok else
                   "NOT moved off it: POLICY LOAD TOTAL should put the outbound on %s, the port "
                   "the switch does not use for inbound (at most %.0f%% may stay)" %
                   (other, 100 * TOTAL_SHARE_MAX))
    else:
        ok = share >= OUTBOUND_SHARE_MIN
        verdict = ("left there: OUTBOUND does not count inbound" if ok else
                   "moved off it too: POLICY LOAD OUTBOUND should not see the inbound (at least "
                   "%.0f%% expected), so the two policies show no contrast" % (100 * OUTBOUND_SHARE_MIN))
    return ok, ("%s: %.0f%% of GDLGPRF1's outbound on %s, the port with %.0f%% of its inbound: %s: %s" %
                (pol, 100 * share, lp, 100 * p["inbound_skew"], verdict, "ok" if ok else "FAILED"))


def section(res, hashed, meta, verdicts):
    L = [HEADING, "",
         "STR MTU %d, %d threads per client guest, group, one run per policy; INTERVAL %d, warm-up "
         "%d s (the passes act before the window), window %.0f s, %d s in all. The client guests' "
         "MACIDs (configs/repro/USER-GDLGPRF1-UNEVEN.DIRECT) fall on one member of the switch "
         "model's dst-mac hash, so the switch sends all of GDLGPRF1's STR answers through one OSA "
         "port; GDLGPRF1's outbound is the clients' ACKs and requests." %
         (meta["mtu"], meta["threads"], meta["interval"], meta["warmup"], meta["secs"],
          meta["elapsed"]), "",
         "The switch model's hash (`show etherchannel load-balance`: bucket = low 3 bits of the "
         "destination MAC's last byte, Po1 Load masks %s):" %
         ", ".join("%s 0x%02X" % (p, m) for p, m in sorted(meta["masks"].items())), ""]
    for g, h in sorted(hashed.items()):
        L.append("- %s %s: bucket %d -> %s (OSA %s)" % (g.upper(), h["mac"], h["bucket"], h["port"], h["osa"]))
    for pol in POLICIES:
        if pol not in res:
            L += ["", "### POLICY LOAD %s: no measurement" % pol]
            continue
        p = res[pol]
        L += ["", "### POLICY LOAD %s: %.1f MB/s" % (pol, p["mb_per_s"]), "",
              "GDLGPRF1's OSA ports over the window (switch model counters, bytes/s as the OSA "
              "sees them; FCX240 = the VSWITCH's own count in the last monitor interval):", "",
              "| OSA port | inbound bytes/s | outbound bytes/s | share of inbound | share of outbound "
              "| FCX240 R_Byte/s | FCX240 T_Byte/s |",
              "|---|---|---|---|---|---|---|"]
        for dev in PORTS.values():
            v, f = p["ports"][dev], p["fcx240"].get(dev, {})
            L.append("| %s (%s) | %s | %s | %.0f%% | %.0f%% | %s | %s |" % (
                dev, v["switch_port"], "{:,.0f}".format(v["in_bps"]), "{:,.0f}".format(v["out_bps"]),
                100 * v["in_share"], 100 * v["out_share"],
                "{:,.0f}".format(f["in_bps"]) if f else "-", "{:,.0f}".format(f["out_bps"]) if f else "-"))
        L += ["", "FCX240 of GDLGPRF1, the last monitor interval in the window:", "", "```"]
        L += p["fcx240_text"].rstrip("\n").splitlines() + ["```"]
    L += ["", "Check (TOTAL moves the outbound off the inbound port, OUTBOUND does not):", ""]
    L += ["- " + v for v in verdicts]
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser()
    for a in ["in", "work", "json", "md"]:
        ap.add_argument("--" + a, dest=a, required=True)
    ap.add_argument("--warmup", type=int, default=0)
    ap.add_argument("--elapsed", type=int, default=0)
    a = ap.parse_args()
    recs = {r["policy"]: r for r in (json.loads(l) for l in open(a.__dict__["in"]) if l.strip())}
    if not recs:
        sys.exit("uneven.py: no measurements")
    res, hashed, masks, ok_all, verdicts = {}, {}, {}, True, []
    for pol in POLICIES:
        if pol not in recs:
            ok_all = False
            verdicts.append("%s: no measurement: FAILED" % pol)
            continue
        h, m = hash_ports(read(os.path.join(a.work, "uneven-lb-" + pol)),
                          read(os.path.join(a.work, "uneven-macs-" + pol)))
        hashed, masks = hashed or h, masks or m
        p = picture(recs[pol])
        p["fcx240_text"] = read(os.path.join(a.work, "uneven-fcx-" + pol))
        p["fcx240"] = fcx_rdevs(p["fcx240_text"])
        p["hash"] = h
        ok, v = check(pol, p, h)
        p["ok"] = ok
        ok_all &= ok
        verdicts.append(v)
        res[pol] = p
    r0 = next(iter(recs.values()))
    meta = {"mtu": r0["mtu"], "threads": r0["threads"], "interval": r0["interval"], "secs": r0["secs"],
            "warmup": a.warmup, "elapsed": a.elapsed, "masks": masks}
    text = section(res, hashed, meta, verdicts)

    # repro.md: the matrix's text stays, an earlier section of ours is replaced.
    md = read(a.md)
    cut = md.find(HEADING)
    if cut >= 0:
        md = md[:cut]
    if md and not md.endswith("\n\n"):
        md += "\n" if md.endswith("\n") else "\n\n"
    open(a.md, "w").write(md + text)
    try:
        j = json.load(open(a.json))
    except (OSError, ValueError):
        j = {}
    j["uneven"] = {"policies": res, "ok": ok_all, "checks": verdicts, "measurements": list(recs.values()),
                   "thresholds": {"inbound_skew_min": INBOUND_SKEW_MIN, "total_share_max": TOTAL_SHARE_MAX,
                                  "outbound_share_min": OUTBOUND_SHARE_MIN},
                   **{k: v for k, v in meta.items() if k != "masks"}, "load_masks": masks}
    json.dump(j, open(a.json, "w"), indent=1, sort_keys=True)
    print("\n" + text)
    if not ok_all:
        for v in verdicts:
            if not v.endswith("ok"):
                print("uneven.py: " + v, file=sys.stderr)
        sys.exit(1)


main()
