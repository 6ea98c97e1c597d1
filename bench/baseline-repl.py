# Baseline L: the smallest NDJSON REPL of evalkit's design (exec a cell, stream stdout as frames, send done).
import ast
import base64
import json
import os
import sys
import threading

OUT = os.dup(1)
LOCK = threading.Lock()
CHUNK = 32 * 1024
cell_id = None


def send(frame):
    data = (json.dumps(frame) + "\n").encode("utf-8")
    with LOCK:
        while data:
            data = data[os.write(OUT, data):]


class Stream(object):
    def __init__(self, name):
        self.name, self.parts, self.size = name, [], 0

    def write(self, text):
        self.parts.append(text)
        self.size += len(text)
        if self.size >= CHUNK:
            self.flush()
        return len(text)

    def flush(self):
        if self.parts:
            text, self.parts, self.size = "".join(self.parts), [], 0
            for start in range(0, len(text), CHUNK):
                send({"type": self.name, "id": cell_id, "data": text[start:start + CHUNK]})


def display_png(data):
    sys.stdout.flush()
    send({"type": "display", "id": cell_id, "bundle": {"image/png": base64.b64encode(data).decode("ascii")}})


def run(code, ns):
    tree = ast.parse(code)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, "<cell>", "exec"), ns)
    if last is not None:
        value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), ns)
        if value is not None:
            sys.stdout.flush()
            send({"type": "result", "id": cell_id, "bundle": {"text/plain": repr(value)}})


def main():
    global cell_id
    sys.stdout, sys.stderr = Stream("stdout"), Stream("stderr")
    ns = {"__name__": "__main__", "display_png": display_png}
    requests = os.fdopen(os.dup(0), "rb")
    for line in requests:
        request = json.loads(line)
        cell_id, status = request["id"], "ok"
        try:
            run(request["code"], ns)
        except BaseException as exc:  # KeyboardInterrupt included: the cell ends, the REPL stays
            status = "error"
            sys.stdout.flush()
            send({"type": "error", "id": cell_id, "ename": type(exc).__name__, "evalue": str(exc)})
        sys.stdout.flush()
        sys.stderr.flush()
        send({"type": "done", "id": cell_id, "status": status})


main()
