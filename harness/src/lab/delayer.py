#!/usr/bin/env python3
"""Adds a fixed delay to the packets of one netfilter queue: the network lab's stand-in for netem.

The kernels the lab runs on have no netem qdisc and no nftables queue expression, but they have
iptables' NFQUEUE target and nfnetlink_queue. The lab sends a link's packets to a queue
(`iptables -A FORWARD -i LINK -j NFQUEUE --queue-num N`); this process, run inside the same network
namespace (netlink is per namespace), reads each queued packet's id over AF_NETLINK and gives it the
verdict NF_ACCEPT DELAY_MS later. Packets leave in the order they came (one delay for all), so
nothing is reordered. Only the standard library: Node cannot speak netlink without a native addon.

Usage: delayer.py QUEUE_NUM DELAY_MS MAX_SECONDS
Prints "ready" once bound, then runs until stdin closes (its parent died or let go), or
MAX_SECONDS passed: bounded either way. Unanswered packets are released by the kernel's unbind
when the socket closes (the queue disappears; its packets are dropped, as a cut link drops them).
"""

import collections
import errno
import os
import select
import socket
import struct
import sys
import time

NETLINK_NETFILTER = 12
SOL_NETLINK = 270
NETLINK_NO_ENOBUFS = 5
SO_RCVBUFFORCE = 33

NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLMSG_ERROR = 0x2

NFNL_SUBSYS_QUEUE = 3
NFQNL_MSG_PACKET = 0
NFQNL_MSG_VERDICT = 1
NFQNL_MSG_CONFIG = 2

NFQA_PACKET_HDR = 1
NFQA_VERDICT_HDR = 2
NFQA_CFG_CMD = 1
NFQA_CFG_PARAMS = 2
NFQA_CFG_QUEUE_MAXLEN = 3
NFQA_CFG_MASK = 4
NFQA_CFG_FLAGS = 5

NFQNL_CFG_CMD_BIND = 1
NFQNL_COPY_META = 1  # the packet id and headers only: a delay needs no payload
NFQA_CFG_F_GSO = 1 << 2  # take GSO packets whole rather than have the kernel split them
NF_ACCEPT = 1

QUEUE_MAXLEN = 20000  # packets held at once: well above rate x delay of any lab condition


def attribute(kind, payload):
    """One netlink attribute (length, type, payload), padded to 4 bytes."""
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * ((4 - length % 4) % 4)


def message(msg_type, queue, attributes, flags=NLM_F_REQUEST, seq=0):
    """An nfnetlink message to the queue subsystem: nlmsghdr, nfgenmsg, attributes."""
    body = struct.pack("=BBH", socket.AF_UNSPEC, 0, socket.htons(queue)) + b"".join(attributes)
    kind = (NFNL_SUBSYS_QUEUE << 8) | msg_type
    return struct.pack("=IHHII", 16 + len(body), kind, flags, seq, 0) + body


def configure(sock, queue):
    """Binds the queue, asks for metadata only and a long queue; each step acknowledged."""
    steps = [
        [attribute(NFQA_CFG_CMD, struct.pack("!BxH", NFQNL_CFG_CMD_BIND, 0))],
        [attribute(NFQA_CFG_PARAMS, struct.pack("!IB", 0, NFQNL_COPY_META))],
        [attribute(NFQA_CFG_QUEUE_MAXLEN, struct.pack("!I", QUEUE_MAXLEN))],
        [
            attribute(NFQA_CFG_FLAGS, struct.pack("!I", NFQA_CFG_F_GSO)),
            attribute(NFQA_CFG_MASK, struct.pack("!I", NFQA_CFG_F_GSO)),
        ],
    ]
    for seq, attributes in enumerate(steps, start=1):
        sock.send(message(NFQNL_MSG_CONFIG, queue, attributes, NLM_F_REQUEST | NLM_F_ACK, seq))
        reply = sock.recv(65536)
        _, kind, _, _, _ = struct.unpack_from("=IHHII", reply)
        code = struct.unpack_from("=i", reply, 16)[0] if kind == NLMSG_ERROR else 0
        if code != 0:
            raise OSError(-code, "nfnetlink_queue config step %d: %s" % (seq, os.strerror(-code)))


def packet_ids(datagram):
    """The ids of the queued packets in one datagram (it may carry several messages)."""
    offset = 0
    while offset + 16 <= len(datagram):
        length, kind, _, _, _ = struct.unpack_from("=IHHII", datagram, offset)
        if length < 16:
            break
        if kind == (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET:
            position = offset + 20  # past nlmsghdr (16) and nfgenmsg (4)
            while position + 4 <= offset + length:
                attr_length, attr_type = struct.unpack_from("=HH", datagram, position)
                if attr_length < 4:
                    break
                if attr_type & 0x3FFF == NFQA_PACKET_HDR:
                    yield struct.unpack_from("!I", datagram, position + 4)[0]
                    break
                position += (attr_length + 3) & ~3
        offset += (length + 3) & ~3


def main():
    queue, delay_ms, max_seconds = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
    sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20)
    sock.setsockopt(SOL_NETLINK, NETLINK_NO_ENOBUFS, 1)
    sock.bind((0, 0))
    configure(sock, queue)
    print("ready", flush=True)

    delay = delay_ms / 1000.0
    stop_at = time.monotonic() + max_seconds
    held = collections.deque()  # (due time, packet id), in arrival order, so due times ascend
    stdin = sys.stdin.fileno()
    while time.monotonic() < stop_at:
        now = time.monotonic()
        while held and held[0][0] <= now:
            _, packet_id = held.popleft()
            verdict = attribute(NFQA_VERDICT_HDR, struct.pack("!II", NF_ACCEPT, packet_id))
            sock.send(message(NFQNL_MSG_VERDICT, queue, [verdict]))
        wait = min(stop_at, held[0][0] if held else stop_at) - now
        readable, _, _ = select.select([sock, stdin], [], [], max(0.0, wait))
        if stdin in readable and not os.read(stdin, 4096):
            return  # the parent closed our stdin: the lab is being torn down
        if sock in readable:
            try:
                datagram = sock.recv(1 << 20)
            except OSError as error:
                if error.errno == errno.ENOBUFS:
                    continue  # messages lost; their packets stay queued, as if dropped
                raise
            arrived = time.monotonic()
            for packet_id in packet_ids(datagram):
                held.append((arrived + delay, packet_id))


if __name__ == "__main__":
    main()
