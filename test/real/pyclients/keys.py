#!/usr/bin/python3 -I
"""Stores and reads keys through the memcached clients docs/user-guide.md names, hashing as it says.

    keys.py write --servers LIST --client pylibmc|pymemcache --count N --prefix P
    keys.py check --servers LIST --client pylibmc|pymemcache --count N --prefix P
                  [--old-servers LIST] [--cold LIST]
    keys.py idle

LIST is comma-separated host:port entries, exactly as status.serverList gives them: the clients
hash these names (not the addresses they resolve to), so a server that comes back under the same
name keeps its place. The clients are configured as the user guide shows them:

    pylibmc     pylibmc.Client(servers, behaviors={"ketama": True}): libmemcached's ketama
                (consistent hashing on a continuum of points per server name)
    pymemcache  pymemcache.client.hash.HashClient([(host, port), ...]): rendezvous hashing
                (highest murmur3 score of "host:port-key")

Key i of prefix P is "P-i" with the value "value-of-P-i" (test/real/memcache Key and Value).

write stores the N keys and prints JSON {"client", "servers", "stored", "total", "per_server"}.

check reads the N keys and prints JSON {"client", "servers", "found", "total", "wrong",
"per_server"}: found counts the keys read back with their value, wrong the keys read back with
another value, per_server how many keys the client's own hashing maps to each server. Given
--old-servers (the list the keys were written with), it adds "allowed": the keys that the
client's hashing maps to the same server in both lists, that server not in --cold (the servers of
the old list whose memory was lost: restarted, replaced). That is what the hashing scheme allows
a client to find; a key it maps elsewhere now is a miss however the servers behave.

idle waits for SIGTERM or SIGINT: the main process of the client pod, in which the tests run the
other commands (kubectl exec).

Exit status: 0 when the command ran (whatever check found), 1 on a client error (its message on
stderr) or when write could not store every key, 2 on bad usage.
"""

import argparse
import json
import signal
import sys


def key_of(prefix, i):
    return "%s-%d" % (prefix, i)


def value_of(key):
    return "value-of-" + key


def split_servers(text):
    servers = [s for s in (p.strip() for p in text.split(",")) if s]
    for s in servers:
        host, sep, port = s.rpartition(":")
        if not sep or not host or not port.isdigit():
            raise argparse.ArgumentTypeError("server %r is not host:port" % s)
    return servers


class Pylibmc:
    """libmemcached's ketama through pylibmc, as the user guide configures it."""

    def __init__(self, servers):
        import pylibmc

        self.servers = servers
        self.mc = pylibmc.Client(servers, behaviors={"ketama": True})

    def server_of(self, key):
        # pylibmc's hash() is libmemcached's memcached_generate_hash(): the index, in the order
        # given, of the server the distribution (here the ketama continuum) picks for key.
        return self.servers[self.mc.hash(key)]

    def set_many(self, values):
        failed = self.mc.set_multi(values)
        return len(values) - len(failed or [])

    def get_many(self, keys):
        return {k: v.decode() if isinstance(v, bytes) else v for k, v in self.mc.get_multi(keys).items()}


class Pymemcache:
    """pymemcache's HashClient (rendezvous hashing), as the user guide configures it."""

    def __init__(self, servers):
        from pymemcache.client.hash import HashClient

        self.servers = servers
        pairs = [(h, int(p)) for h, p in (s.rsplit(":", 1) for s in servers)]
        self.mc = HashClient(pairs)

    def server_of(self, key):
        # The node HashClient's hasher picks for key: its "host:port", our serverList entry.
        return self.mc.hasher.get_node(key)

    def set_many(self, values):
        failed = self.mc.set_many(values, noreply=False)
        return len(values) - len(failed or [])

    def get_many(self, keys):
        return {k.decode() if isinstance(k, bytes) else k: v.decode() for k, v in self.mc.get_many(keys).items()}


CLIENTS = {"pylibmc": Pylibmc, "pymemcache": Pymemcache}
BATCH = 100


def per_server(client, keys):
    counts = {s: 0 for s in client.servers}
    for k in keys:
        counts[client.server_of(k)] += 1
    return counts


def cmd_write(args):
    client = CLIENTS[args.client](args.servers)
    keys = [key_of(args.prefix, i) for i in range(args.count)]
    stored = 0
    for i in range(0, len(keys), BATCH):
        stored += client.set_many({k: value_of(k) for k in keys[i:i + BATCH]})
    return {"client": args.client, "servers": args.servers, "stored": stored, "total": args.count,
            "per_server": per_server(client, keys)}


def cmd_check(args):
    client = CLIENTS[args.client](args.servers)
    keys = [key_of(args.prefix, i) for i in range(args.count)]
    got = {}
    for i in range(0, len(keys), BATCH):
        got.update(client.get_many(keys[i:i + BATCH]))
    found = sum(1 for k in keys if got.get(k) == value_of(k))
    wrong = sorted(k for k in keys if k in got and got[k] != value_of(k))
    report = {"client": args.client, "servers": args.servers, "found": found, "total": args.count,
              "wrong": wrong, "per_server": per_server(client, keys)}
    if args.old_servers is not None:
        old = CLIENTS[args.client](args.old_servers)
        cold = set(args.cold or [])
        unknown = cold.difference(args.old_servers)
        if unknown:
            raise ValueError("--cold names servers not in --old-servers: %s" % ", ".join(sorted(unknown)))
        allowed = 0
        for k in keys:
            was = old.server_of(k)
            if was not in cold and was == client.server_of(k):
                allowed += 1
        report.update({"old_servers": args.old_servers, "cold": sorted(cold), "allowed": allowed})
    return report


def cmd_idle(_args):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, lambda *_: sys.exit(0))
    while True:
        signal.pause()


def main(argv):
    parser = argparse.ArgumentParser(prog="keys.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("write", "check"):
        p = sub.add_parser(name)
        p.add_argument("--servers", type=split_servers, required=True)
        p.add_argument("--client", choices=sorted(CLIENTS), required=True)
        p.add_argument("--count", type=int, required=True)
        p.add_argument("--prefix", required=True)
        if name == "check":
            p.add_argument("--old-servers", type=split_servers)
            p.add_argument("--cold", type=split_servers)
    sub.add_parser("idle")
    args = parser.parse_args(argv)
    if args.command == "idle":
        cmd_idle(args)
        return 0
    if args.count < 1:
        parser.error("--count must be at least 1")
    try:
        report = cmd_write(args) if args.command == "write" else cmd_check(args)
    except Exception as e:  # the client's own errors (connection, protocol) end the run
        print("keys.py %s: failed to %s keys with %s: %s: %s" % (args.command, args.command == "write" and "store" or "read",
                                                                 args.client, type(e).__name__, e), file=sys.stderr)
        return 1
    json.dump(report, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")
    if args.command == "write" and report["stored"] != report["total"]:
        print("keys.py write: %s stored %d of %d keys" % (args.client, report["stored"], report["total"]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
