#!/usr/bin/env python3
"""Replays captured write_history.lua calls against a redis-server and reports its CPU per heartbeat.

Measures what redis-server spends on the write path's script alone, apart from the node, and compares
variants of the script (or of its arguments) on the same calls. Capture calls from a running node
with `timeout 3 redis-cli -p PORT MONITOR > calls.txt` while a benchmark writes, then start a
redis-server of your own configured as the node's (the embedded one runs `--appendonly yes
--appendfsync everysec --save ''`) and run, for example:

  tools/replay-write-history.py --calls calls.txt --port 7777 \
      shipped=history-core/src/main/resources/io/playline/core/store/write_history.lua:classic

Each variant is NAME=SCRIPT:ARGS, ARGS being `classic` (the shipped arguments) or `packed` (per user
one string of events: 2-byte member length, member, view time as a big-endian double, 4-byte record
length, record; a script must unpack it with struct.unpack('>Hc0dIc0', ...)). Variants alternate,
4 rounds each; each round flushes the database, writes every call once (so items exist, as in a
steady state), then replays the calls --passes times with view times moved forward, either
pipelined (4 calls in flight: the script's own work) or, with --rate, one call at a time paced to
that many heartbeats per second (each call then wakes redis-server, as at a node's batch rate).
Prints redis-server's CPU (INFO cpu, user + sys) per replayed heartbeat for every round.
"""
import argparse
import re
import socket
import struct
import time


def parse_monitor_line(line):
    """The arguments of one MONITOR line, unescaped, as bytes."""
    s = line[line.index('] ') + 2:]
    args, j, n = [], 0, len(s)
    escapes = {'n': 10, 'r': 13, 't': 9, 'a': 7, 'b': 8, '"': 34, '\\': 92}
    while j < n:
        if s[j] != '"':
            j += 1
            continue
        j += 1
        buf = bytearray()
        while s[j] != '"':
            if s[j] == '\\':
                if s[j + 1] == 'x':
                    buf.append(int(s[j + 2:j + 4], 16))
                    j += 4
                else:
                    buf.append(escapes[s[j + 1]])
                    j += 2
            else:
                buf += s[j].encode('latin-1')
                j += 1
        args.append(bytes(buf))
        j += 1
    return args


def resp(args):
    out = [b'*%d\r\n' % len(args)]
    for a in args:
        out += [b'$%d\r\n' % len(a), a, b'\r\n']
    return b''.join(out)


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(('127.0.0.1', port))
        self.buf = b''

    def send(self, data):
        self.s.sendall(data)

    def _line(self):
        while b'\r\n' not in self.buf:
            self.buf += self.s.recv(1 << 20)
        i = self.buf.index(b'\r\n')
        line, self.buf = self.buf[:i], self.buf[i + 2:]
        return line

    def reply(self):
        line = self._line()
        kind = line[:1]
        if kind == b'-':
            raise RuntimeError(line.decode())
        if kind in (b'+', b':'):
            return line[1:]
        if kind == b'$':
            n = int(line[1:])
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.s.recv(1 << 20)
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data
        return [self.reply() for _ in range(int(line[1:]))]

    def cmd(self, *args):
        self.send(resp([a if isinstance(a, bytes) else str(a).encode() for a in args]))
        return self.reply()

    def cpu(self):
        info = self.cmd('INFO', 'cpu').decode()
        return sum(float(re.search(r'used_cpu_%s:([\d.]+)' % k, info).group(1)) for k in ('user', 'sys'))


def load_calls(path):
    """write_history calls (recognised by their shape) as (max items, ttl, users, log key)."""
    calls = []
    for line in open(path, encoding='latin-1'):
        if '"EVALSHA"' not in line or '[0 lua]' in line:
            continue
        a = parse_monitor_line(line)
        nkeys = int(a[2])
        keys, argv = a[3:3 + nkeys], a[3 + nkeys:]
        if len(argv) < 3 or argv[2] not in (b'0', b'1') or not keys or not keys[0].endswith(b':z'):
            continue
        logging = int(argv[2])
        users, i = [], 3
        for u in range((nkeys - logging) // 4):
            n, uid = int(argv[i]), argv[i + 1]
            events = [(argv[i + 2 + 3 * e], int(argv[i + 3 + 3 * e]), argv[i + 4 + 3 * e]) for e in range(n)]
            users.append((keys[4 * u:4 * u + 4], uid, events))
            i += 2 + 3 * n
        calls.append((argv[0], argv[1], users, keys[-1] if logging else None))
    return calls


def build(call, shift, packed):
    max_items, ttl, users, log = call
    keys, argv = [], [max_items, ttl, b'1' if log else b'0']
    for (four, uid, events) in users:
        keys += four
        argv += [str(len(events)).encode(), uid]
        if packed:
            blob = b''.join(struct.pack('>H', len(m)) + m + struct.pack('>d', float(vt + shift))
                            + struct.pack('>I', len(r)) + r for (m, vt, r) in events)
            argv.append(blob)
        else:
            for (m, vt, r) in events:
                argv += [m, str(vt + shift).encode(), r]
    if log:
        keys.append(log)
    return keys, argv


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--calls', required=True, help='MONITOR output holding write_history calls')
    p.add_argument('--port', type=int, required=True, help="the redis-server to replay against (it is flushed!)")
    p.add_argument('--passes', type=int, default=5)
    p.add_argument('--rate', type=float, help='heartbeats per second, one call at a time (default: pipelined)')
    p.add_argument('variants', nargs='+', metavar='NAME=SCRIPT:ARGS')
    a = p.parse_args()
    calls = load_calls(a.calls)
    heartbeats = sum(len(e) for c in calls for (_, _, e) in c[2])
    print('%d calls, %d heartbeats, %d users per call at most' % (len(calls), heartbeats,
          max(len(c[2]) for c in calls)))
    conn = Conn(a.port)
    variants = []
    for spec in a.variants:
        name, rest = spec.split('=', 1)
        path, kind = rest.rsplit(':', 1)
        variants.append((name, conn.cmd('SCRIPT', 'LOAD', open(path, 'rb').read()), kind == 'packed'))
    results = {name: [] for (name, _, _) in variants}
    shift = 0
    for _ in range(4):
        for (name, sha, packed) in variants:
            conn.cmd('FLUSHALL')
            shift += 100_000
            for call in calls:
                k, v = build(call, shift, packed)
                conn.cmd('EVALSHA', sha, str(len(k)), *k, *v)
            before, due = conn.cpu(), time.time()
            for _ in range(a.passes):
                shift += 1_000
                pending = 0
                for call in calls:
                    k, v = build(call, shift, packed)
                    conn.send(resp([b'EVALSHA', sha, str(len(k)).encode()] + k + v))
                    pending += 1
                    if a.rate:
                        conn.reply()
                        pending -= 1
                        due += len(call[2]) / a.rate
                        time.sleep(max(0.0, due - time.time()))
                    elif pending == 4:
                        conn.reply()
                        pending -= 1
                for _ in range(pending):
                    conn.reply()
            results[name].append((conn.cpu() - before) * 1e6 / (heartbeats * a.passes))
    for (name, _, _) in variants:
        print('%-10s %s  µs of redis-server CPU per heartbeat' % (name, ' '.join('%6.2f' % x for x in results[name])))


if __name__ == '__main__':
    main()
