# Baseline J: drives ipykernel through jupyter_client; reads one JSON command per line, prints timings as JSON.
import json
import os
import signal
import sys
import time

os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
try:
    from jupyter_client import KernelManager
except ImportError as exc:
    print(json.dumps({"ok": False, "missing": str(exc)}), flush=True)
    sys.exit(0)

now = time.perf_counter
km = kc = None


def start():
    global km, kc
    km = KernelManager(kernel_name="python3")
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=120)


def stop():
    global km, kc
    if kc is not None:
        kc.stop_channels()
    if km is not None:
        km.shutdown_kernel(now=True)
    km = kc = None


def execute(code, on_start=None):
    """Run code, wait for the kernel to go idle; returns (seconds, stdout bytes, saw display, saw result)."""
    t0 = now()
    msg_id = kc.execute(code, store_history=True)
    if on_start is not None:
        on_start()
    size, display, result = 0, False, False
    while True:
        msg = kc.get_iopub_msg(timeout=120)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            size += len(content["text"])
        elif kind == "display_data":
            display = True
        elif kind == "execute_result":
            result = True
        elif kind == "status" and content["execution_state"] == "idle":
            break
    return now() - t0, size, display, result


def handle(cmd):
    op = cmd["op"]
    if op == "cold":
        t0 = now()
        start()
        _, _, _, result = execute("1+1")
        seconds = now() - t0
        stop()
        return {"seconds": seconds, "result": result}
    if op == "start":
        start()
        return {}
    if op == "stop":
        stop()
        return {}
    if op == "exec":
        times = []
        size = 0
        for _ in range(cmd.get("n", 1)):
            seconds, size, _, _ = execute(cmd["code"])
            times.append(seconds)
        return {"times": times, "bytes": size}
    if op == "interrupt":
        marks = {}

        def later():
            time.sleep(cmd.get("delay", 0.2))
            marks["t"] = now()
            km.interrupt_kernel()

        seconds, _, _, _ = execute("while True: pass", on_start=later)
        return {"seconds": now() - marks["t"], "total": seconds}
    raise ValueError("unknown op %r" % (op,))


def main():
    print(json.dumps({"ok": True, "python": sys.version.split()[0]}), flush=True)
    for line in sys.stdin:
        cmd = json.loads(line)
        try:
            reply = handle(cmd)
            reply["ok"] = True
        except Exception as exc:
            reply = {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc)}
        print(json.dumps(reply), flush=True)
    stop()


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    main()
