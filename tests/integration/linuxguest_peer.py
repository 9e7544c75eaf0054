#!/usr/bin/env python3
"""LAN-side client of the Linux guest's control server (guests/README.md, "The Linux guest").

  linuxguest_peer.py cmd IP PORT 'COMMAND ...'   the reply, verbatim (exit 1 if it ends in ERR)
  linuxguest_peer.py sink IP PORT NBYTES        sends NBYTES random bytes (SINK), checks the
                                                guest's count and SHA-256: "ok N secs"
  linuxguest_peer.py source IP PORT NBYTES      asks for NBYTES (SOURCE), checks every byte:
                                                "ok N secs"
  linuxguest_peer.py wait IP PORT SECS          retries PING until it answers: "ok secs"
"""
import hashlib
import os
import socket
import sys
import time

TIMEOUT = 60.0


def connect(ip, port):
    return socket.create_connection((ip, int(port)), timeout=TIMEOUT)


def read_all(s):
    chunks = []
    while True:
        b = s.recv(65536)
        if not b:
            return b"".join(chunks)
        chunks.append(b)


def cmd(ip, port, line):
    with connect(ip, port) as s:
        s.sendall(line.encode() + b"\n")
        s.shutdown(socket.SHUT_WR)
        return read_all(s).decode(errors="replace")


def main():
    op, ip, port = sys.argv[1], sys.argv[2], sys.argv[3]
    if op == "cmd":
        reply = cmd(ip, port, sys.argv[4])
        sys.stdout.write(reply)
        last = reply.rstrip("\n").split("\n")[-1] if reply.strip() else ""
        return 0 if last.startswith("OK") else 1
    if op == "wait":
        end = time.monotonic() + float(sys.argv[4])
        t0 = time.monotonic()
        while time.monotonic() < end:
            try:
                if cmd(ip, port, "PING").startswith("OK"):
                    print("ok %.3f" % (time.monotonic() - t0))
                    return 0
            except OSError:
                pass
            time.sleep(0.5)
        print("no answer")
        return 1
    n = int(sys.argv[4])
    if op == "sink":
        data = os.urandom(n)
        t0 = time.monotonic()
        with connect(ip, port) as s:
            s.sendall(b"SINK\n")
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
            reply = read_all(s).decode(errors="replace").strip()
        secs = time.monotonic() - t0
        want = "OK bytes %d sha256 %s" % (n, hashlib.sha256(data).hexdigest())
        if reply != want:
            print("sink: guest said %r, want %r" % (reply, want))
            return 1
        print("ok %d %.3f" % (n, secs))
        return 0
    if op == "source":
        t0 = time.monotonic()
        with connect(ip, port) as s:
            s.sendall(b"SOURCE %d\n" % n)
            s.shutdown(socket.SHUT_WR)
            got = read_all(s)
        secs = time.monotonic() - t0
        pattern = b"zvswitch\n" * (n // 9 + 1)
        if len(got) != n:
            print("source: %d bytes, want %d" % (len(got), n))
            return 1
        if got != pattern[:n]:
            bad = next(i for i in range(n) if got[i] != pattern[i])
            print("source: byte %d differs" % bad)
            return 1
        print("ok %d %.3f" % (n, secs))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
