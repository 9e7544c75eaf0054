#!/usr/bin/env python3
"""Sum of iperf3 -J results in Mbit/s: each stream's mean bits/s over its intervals past
the first two (TCP's slow start), added up; one line, one decimal. Used by bench_group.sh
and bench_ivl.sh."""
import json
import sys

total = 0.0
for name in sys.argv[1:]:
    with open(name) as f:
        d = json.load(f)
    iv = d["intervals"][2:]
    total += sum(i["sum"]["bits_per_second"] for i in iv) / len(iv)
print("%.1f" % (total / 1e6))
