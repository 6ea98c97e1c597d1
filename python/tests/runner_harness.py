"""Test helper: starts the real runner through the bootstrap, as the host does, and collects frames."""

import json
import os
import subprocess
import sys

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE_DIR = os.path.join(PYTHON_DIR, "evalkit_kernel")


def build_bundle(config=None):
    modules, packages = {}, []
    for root, dirs, files in os.walk(PACKAGE_DIR):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        rel = os.path.relpath(root, PYTHON_DIR).replace(os.sep, ".")
        for name in files:
            if not name.endswith(".py"):
                continue
            with open(os.path.join(root, name), encoding="utf-8") as handle:
                source = handle.read()
            if name == "__init__.py":
                modules[rel] = source
                packages.append(rel)
            else:
                modules[rel + "." + name[:-3]] = source
    payload = json.dumps(
        {"modules": modules, "packages": packages, "entry": "evalkit_kernel.core.main", "config": config or {}}
    ).encode("utf-8")
    return b"EVALKIT %d\n" % len(payload) + payload


def _loader():
    """The host's command-line loader (RUNNER_LOADER in src/kernel/python/runner-bundle.ts), read from there."""
    import re

    path = os.path.join(PYTHON_DIR, "..", "src", "kernel", "python", "runner-bundle.ts")
    with open(path, encoding="utf-8") as handle:
        return re.search(r'RUNNER_LOADER =\s*"([^"]+)"', handle.read()).group(1)


class Runner(object):
    def __init__(self, python=None, env=None, cwd=None, config=None):
        with open(os.path.join(PYTHON_DIR, "bootstrap.py"), "rb") as handle:
            bootstrap = handle.read()
        self.proc = subprocess.Popen(
            [python or sys.executable, "-u", "-c", _loader(), "evalkit-kernel", "python"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        self.proc.stdin.write(b"%08d" % len(bootstrap) + bootstrap + build_bundle(config))
        self.proc.stdin.flush()
        self.ready = self.next_frame()
        self._ids = 0

    def send(self, frame):
        self.proc.stdin.write(json.dumps(frame).encode("utf-8") + b"\n")
        self.proc.stdin.flush()

    def next_frame(self):
        line = self.proc.stdout.readline()
        if not line:
            raise EOFError("runner closed stdout; stderr: %r" % self.proc.stderr.read())
        return json.loads(line)

    def execute(self, code, **extra):
        self._ids += 1
        cell_id = "t%d" % self._ids
        frame = {"id": cell_id, "code": code}
        frame.update(extra)
        self.send(frame)
        frames = []
        while True:
            frame = self.next_frame()
            frames.append(frame)
            if frame.get("type") == "done" and frame.get("id") == cell_id:
                return frames

    def close(self):
        try:
            self.send({"type": "exit"})
            self.proc.wait(5)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            stream.close()


def stream_text(frames, name="stdout"):
    return "".join(f["data"] for f in frames if f.get("type") == name)
