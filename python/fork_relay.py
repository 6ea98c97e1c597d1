"""The process a forked session's host starts (docs/checkpoints.md, Fork): it hands its stdin/stdout to a checkpoint.

Usage: python -I -S fork_relay.py TOKEN NAME. Reads (and drops) the bootstrap and runner bundle the host sends every
kernel, then connects to checkpoint NAME of the kernel whose checkpoints are named with TOKEN and passes it its fds
0 and 1 (SCM_RIGHTS). The checkpoint starts a copy of itself that speaks the protocol on them: the new session's runner.
The relay stays as the host's child for that runner's lifetime: it forwards SIGINT to the runner's group, ends
the runner on SIGTERM/SIGHUP, and exits when the runner does (the socket the runner keeps open closes).
"""

import array
import hashlib
import json
import os
import signal
import socket
import sys


def main():
    token, name = sys.argv[1], sys.argv[2]
    _drop_bundle()
    address = "\0evalkit-%s-%s" % (token, hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:40])
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(address)
    except OSError as exc:
        sys.stderr.write("evalkit fork: checkpoint %r is gone (%s)\n" % (name, exc))
        return 3
    sock.sendmsg([b"adopt\n"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [0, 1]))])
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(4096)
        if not chunk:
            sys.stderr.write("evalkit fork: the checkpoint started no runner\n")
            return 3
        data += chunk
    runner = int(json.loads(data.decode("utf-8"))["pid"])
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)  # only the runner reads the host's requests and writes frames from now on
    os.dup2(null, 1)

    def forward(signum, frame):
        try:
            os.killpg(runner, signal.SIGINT)
        except OSError:
            pass

    def end(signum, frame):
        try:
            os.killpg(runner, signal.SIGKILL)
        except OSError:
            pass
        os._exit(128 + signum)

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, end)
    signal.signal(signal.SIGHUP, end)
    while True:
        try:
            if not sock.recv(4096):
                return 0
        except InterruptedError:
            continue
        except OSError:
            return 0


def _drop_bundle():
    """Skips what every kernel is sent on stdin: 8 digits and the bootstrap, then `EVALKIT <n>` and the bundle."""
    _skip(int(_read_exact(8)))
    head = b""
    while not head.endswith(b"\n"):
        head += _read_exact(1)
    _skip(int(head.split()[1]))


def _read_exact(size):
    data = b""
    while len(data) < size:
        c = os.read(0, size - len(data))
        if not c:
            raise SystemExit(3)
        data += c
    return data


def _skip(size):
    while size > 0:
        c = os.read(0, min(size, 1 << 20))
        if not c:
            raise SystemExit(3)
        size -= len(c)


if __name__ == "__main__":
    sys.exit(main())
