#!/usr/bin/env python3
"""A bounded TCP transfer with exact byte counts, for the labs.

tcp_bytes.py MODE HOST BYTES [PACE_S]
  MODE: recv-server | send-server (listen on HOST:5301) or recv-client | send-client
  (connect to it). The sender writes BYTES (64 KiB at a time, PACE_S seconds between
  writes when given, so a transfer lasts long enough for a lab to act under it), then
  half-closes and waits for the receiver's close; the receiver counts every byte up to
  the sender's close and prints the count.
"""
import socket
import sys
import time

mode, host, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
pace = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
if mode.endswith("server"):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((host, 5301))
    ls.listen(1)
    s, _ = ls.accept()
else:
    s = socket.create_connection((host, 5301), timeout=20)
s.settimeout(20)
if mode.startswith("send"):
    buf = bytes(65536)
    left = n
    while left:
        left -= s.send(buf[:min(left, len(buf))])
        if pace:
            time.sleep(pace)
    s.shutdown(socket.SHUT_WR)
    s.recv(1)
else:
    got = 0
    while True:
        b = s.recv(65536)
        if not b:
            break
        got += len(b)
    print(got)
s.close()
