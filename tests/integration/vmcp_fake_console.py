#!/usr/bin/env python3
"""A stand-in for vswitchd's operator console (cp-commands/console_protocol.h), for
vmcp_exit.sh: it answers each command line by what the line asks, so the test can make vmcp
meet any response size and return code without a switch.
  ECHO ...        the line as received (shows whether vmcp upper-cased it), rc 0
  RC n            one message line, rc n
  BIG n [r]       n bytes of response in 100-byte lines (the last shorter), rc r (0)
Usage: vmcp_fake_console.py SOCKET   (serves until killed; writes SOCKET.ready when up)"""
import os
import socketserver
import sys


def answer(line):
    words = line.split()
    if words[:1] == ["ECHO"] or words[:1] == ["echo"]:
        return line + "\n", 0
    if words[:1] == ["RC"] and len(words) == 2:
        return "HCPCMD003E Invalid option - FAKE\n", int(words[1])
    if words[:1] == ["BIG"] and len(words) in (2, 3):
        n, rc = int(words[1]), int(words[2]) if len(words) == 3 else 0
        out = []
        while n > 0:
            k = min(100, n)
            out.append("x" * (k - 1) + "\n")
            n -= k
        return "".join(out), rc
    return "HCPCMD003E Invalid option - %s\n" % (words[0] if words else ""), 3


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        for raw in self.rfile:
            line = raw.decode().rstrip("\r\n")
            text, rc = answer(line)
            self.wfile.write(("%s\x1eRC=%d\n" % (text, rc)).encode())
            self.wfile.flush()


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def main():
    path = sys.argv[1]
    if os.path.exists(path):
        os.unlink(path)
    with Server(path, Handler) as srv:
        open(path + ".ready", "w").close()
        srv.serve_forever()


if __name__ == "__main__":
    main()
