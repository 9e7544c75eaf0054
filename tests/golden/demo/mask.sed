# The make demo transcript, masked for comparison (sed -E): what varies from run to run on
# the same code goes, what the code decides stays. Masked: the build's output before the
# story, terminal colours, dates and times of day, durations, rates (per-second figures,
# round trips, the toolkit screens' rates) and the byte and packet volumes of the timed TCP
# and ping runs, which are rates times a fixed time; paths under the build folder; runs of
# blanks (column widths follow the masked numbers' widths). Zeros stay zeros (a discard,
# error or drop that appears is a difference), and everything else stays: commands,
# responses, message ids, return codes, states, MACs, devices, members, bucket joins,
# datagram counts. The few timing-decided exceptions are said where they are masked.
1,/== The physical switch/{/== The physical switch/!d}
s/\x1b\[[0-9;]*m//g
s#/[^ ]*/build/#BUILD/#g
# wall clock
s#[0-9]{4}/[0-9]{2}/[0-9]{2}#YYYY/MM/DD#g
s#(^|[^:0-9a-fA-F])[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([^:]|$)#\1hh:mm:ss\3#g
s#time [0-9]+ms#time Nms#
s#\([0-9]+\.[0-9]+ s\)#(N s)#
s#in about [0-9]+ s#in about N s#
s#answered: [0-9.]+ s \(now [0-9]+ s after#answered: N s (now N s after#
s#received in [0-9.]+ s#received in N s#
s#  [0-9]+s( +0x)#  Ns\1#
# rates, and the volumes of the timed runs
/rtt |round-trip /s#= .*#= N#
/^ +\[(SUM| +[0-9]+)\]/s#[0-9]+(\.[0-9]+)?#N#g
/^ +\[(SUM| +[0-9]+)\]/s#[KMG]Bytes#Bytes#g      # iperf3 picks the unit by the volume
s#( )[0-9]+ Mbit/s#\1N Mbit/s#g
s#((Out|In): )[0-9]*\.?[0-9]*[1-9][0-9.]* Mbit/s#\1N Mbit/s#g
s#[0-9]+ MB( |$)#N MB\1#g
s#((RX|TX) (Packets|Bytes): +)[0-9]+#\1N#g
s#((Moves|Failover moves|Marker flushes|Marker timeouts|Resteered|Buckets): )[1-9][0-9]*#\1N#g
# passes run every 5 s of the clock (--test-interval): how many have run by a query is time
s#(Passes: )[0-9]+#\1N#g
# The mainframe guests' NICs are coupled before XAUTOLOG starts their machines: a broadcast
# that falls in that window (a guest's IPv6 router solicitation, an ARP) finds no machine to
# take it and is discarded and counted (no-input-buffer), or none falls: timing decides.
/Adapter Owner: (LNX1|FP1) /,/RX Bytes:/s#(RX Packets: +N +Discarded: +)[0-9]+#\1N#
/^ +Drops: no-input-buffer [0-9]+$/{
  x
  /LNX1|FP1/{x; d}
  x
}
/(Adapter Owner|RDEV):/h
# tables of rates or volumes (iperf's seconds, the switch model's counters, FCX240, FCX269):
# every nonzero number that stands alone as a column
/^ +[0-9]+ +[0-9.]+ +[0-9.]+ *$|^ +Gi[0-9]\/[0-9]+ |^ +(>>|<<|[0-9A-F]{4} [A-Z])/{
  :a
  s/ [0-9]*[1-9][0-9]*(\.[0-9]+)?[kM]?( |$)/ N\2/
  ta
  :b
  s/ [0-9]*\.[0-9]*[1-9][0-9]*( |$)/ N\1/
  tb
}
# A port fails under load: the surviving member's 1 Gbit/s shaper in the switch model drops
# in its input queue when the TCP windows overshoot its rate, or it does not (the failed
# port's frames in flight are the losses that make the senders back off first): timing
# decides, so the member ports' InQueueDrop (5-column table) and InDrops (9-column table)
# are masked zero or not. Ours are not: vswitchd's discards stay exact above.
/^ +Gi2\/2[34] +[0-9N]+ +[0-9N]+ +[0-9N]+ +[0-9N]+ +[0-9N]+ *$/s#^( +Gi2/2[34] +[0-9N]+ +[0-9N]+ +)[0-9N]+#\1D#
/^ +Gi2\/2[34]( +[0-9N]+){9} *$/s#^( +Gi2/2[34]( +[0-9N]+){7} +)[0-9N]+#\1D#
# PGROUP's rows count what happened in the interval the demo picks (LACPDUs, Markers,
# moves): which interval holds a pass's move varies, so every figure of these rows goes
/^ +CCBGROUP /{
  :c
  s/ [0-9]+(\.[0-9]+)?[kM]?( |$)/ N\2/
  tc
}
s/ +/ /g
