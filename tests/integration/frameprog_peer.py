#!/usr/bin/env python3
"""The LAN side of the frame-program lab (tests/integration/hercules_frameprog.sh).

  frameprog_peer.py arp DEV IP SECONDS      ARP requests every 20 ms until one is answered:
                                            prints "<epoch seconds> <mac>", 1 on timeout
  frameprog_peer.py ctl IP PORT TEXT        one control command, prints the reply
  frameprog_peer.py echo IP PORT SIZE...    one datagram per SIZE, random bytes; checks each
                                            reply byte for byte; prints "ok N"
  frameprog_peer.py raw DEV DSTMAC KIND     one deliberately bad frame (badudpsum, badicmpsum, tcp)
  frameprog_peer.py sink PORT SECONDS N     counts datagrams to PORT until N arrive or the
                                            time is up: prints "<count> <bytes> <seconds>"
  frameprog_peer.py blast IP PORT SIZE SECONDS WINDOW   UDP echo with WINDOW datagrams in
                                            flight: prints "<sent> <received> <seconds>"
"""
import os
import socket
import struct
import sys
import time


def mac_bytes(mac):
    return bytes(int(x, 16) for x in mac.split(':'))


def arp(dev, ip, seconds):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0806))
    s.bind((dev, 0))
    mymac = s.getsockname()[4]
    with open(f'/sys/class/net/{dev}/address') as f:
        mymac = mac_bytes(f.read().strip())
    # The sender address: the interface's first IPv4 address.
    myip = socket.inet_aton(os.popen(f"ip -4 -o addr show dev {dev}").read().split()[3].split('/')[0])
    target = socket.inet_aton(ip)
    req = (b'\xff' * 6 + mymac + b'\x08\x06' + struct.pack('!HHBBH', 1, 0x0800, 6, 4, 1) +
           mymac + myip + b'\x00' * 6 + target)
    t0 = time.monotonic()
    s.settimeout(0.02)
    while time.monotonic() - t0 < seconds:
        s.send(req)
        end = time.monotonic() + 0.02
        while time.monotonic() < end:
            try:
                f = s.recv(2000)
            except socket.timeout:
                break
            if len(f) >= 42 and f[12:14] == b'\x08\x06' and f[20:22] == b'\x00\x02' and f[28:32] == target:
                print(f'{time.time():.3f} {":".join("%02x" % b for b in f[22:28])}')
                return 0
    return 1


def ctl(ip, port, text):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(2)
    s.sendto(text.encode(), (ip, int(port)))
    sys.stdout.write(s.recvfrom(2000)[0].decode())
    return 0


def echo(ip, port, sizes):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(2)
    for n in sizes:
        data = os.urandom(int(n))
        s.sendto(data, (ip, int(port)))
        got = s.recvfrom(2000)[0]
        if got != data:
            print(f'mismatch at size {n}: sent {len(data)} got {len(got)}')
            return 1
    print(f'ok {len(sizes)}')
    return 0


def inet_sum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def raw(dev, dstmac, kind):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((dev, 0))
    with open(f'/sys/class/net/{dev}/address') as f:
        src = mac_bytes(f.read().strip())
    eth = mac_bytes(dstmac) + src
    src_ip, dst_ip = socket.inet_aton('10.77.0.100'), socket.inet_aton('10.77.0.50')

    def ipv4(proto, payload):
        hdr = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(payload), 1, 0, 64, proto, 0,
                          src_ip, dst_ip)
        return hdr[:10] + struct.pack('!H', inet_sum(hdr)) + hdr[12:] + payload
    # Valid up to IP (a bridge with netfilter drops bad IP headers), wrong above it.
    if kind == 'badudpsum':
        frame = eth + b'\x08\x00' + ipv4(17, struct.pack('!HHHH', 1000, 7, 12, 0xdead) + b'oops')
    elif kind == 'badicmpsum':
        frame = eth + b'\x08\x00' + ipv4(1, struct.pack('!BBHHH', 8, 0, 0xdead, 1, 1) + b'oops')
    elif kind == 'tcp':
        frame = eth + b'\x08\x00' + ipv4(6, struct.pack('!HHIIHHHH', 1000, 80, 1, 0, 0x5002, 512, 0, 0))
    else:
        return 2
    s.send(frame)
    return 0


def sink(port, seconds, n):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(('0.0.0.0', int(port)))
    s.settimeout(0.5)
    count = nbytes = 0
    first = last = None
    end = time.monotonic() + float(seconds)
    print('ready', flush=True)
    while count < int(n) and time.monotonic() < end:
        try:
            d = s.recv(2000)
        except socket.timeout:
            if count:
                break
            continue
        last = time.monotonic()
        if first is None:
            first = last
        count += 1
        nbytes += len(d)
    span = (last - first) if count > 1 else 0.0
    print(f'{count} {nbytes} {span:.3f}')
    return 0


def blast(ip, port, size, seconds, window):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.connect((ip, int(port)))
    s.settimeout(0.2)
    data = b'x' * int(size)
    sent = got = 0
    t0 = time.monotonic()
    end = t0 + float(seconds)
    while time.monotonic() < end:
        while sent - got < int(window):
            s.send(data)
            sent += 1
        try:
            s.recv(2000)
            got += 1
        except socket.timeout:
            got = sent              # lost ones: refill the window
    print(f'{sent} {got} {time.monotonic() - t0:.3f}')
    return 0


def main(argv):
    cmd = argv[1]
    if cmd == 'arp':
        return arp(argv[2], argv[3], float(argv[4]))
    if cmd == 'ctl':
        return ctl(argv[2], argv[3], argv[4])
    if cmd == 'echo':
        return echo(argv[2], argv[3], argv[4:])
    if cmd == 'raw':
        return raw(argv[2], argv[3], argv[4])
    if cmd == 'sink':
        return sink(argv[2], argv[3], argv[4])
    if cmd == 'blast':
        return blast(argv[2], argv[3], argv[4], argv[5], argv[6])
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
