"""Notebook replay: runs stored notebooks with evalkit and with a real Jupyter kernel, compares text outputs.

Usage: python3 bench/notebook-replay.py [--allow-errors] [NOTEBOOK...] (default: bench/notebooks/*.ipynb); needs
jupyter_client and ipykernel for the interpreter it runs on (Debian: python3-ipykernel python3-jupyter-client). A
cell counts when Jupyter reproduces its stored text here; the figure is the fraction of those evalkit reproduces
too. Writes bench/notebook-replay.json (with --allow-errors, where a failing cell no longer ends a notebook on
either side: bench/notebook-replay-allow-errors.json) and prints a summary.
"""

import glob
import json
import os
import queue
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CELL_TIMEOUT = 120
# --allow-errors: both sides run every cell after an error (nbconvert --allow-errors; evalkit exec --allow-errors)
ALLOW_ERRORS = False
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_IMAGES = ("image/png", "image/jpeg", "image/svg+xml")


def _text(value):
    return "".join(value) if isinstance(value, list) else (value or "")


def normalise(outputs):
    """(text, has_image) of a cell's outputs: streams and text/plain, ANSI and addresses removed."""
    parts, image = [], False
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(_text(out.get("text")))
        elif kind in ("execute_result", "display_data"):
            data = out.get("data", {})
            image = image or any(m in data for m in _IMAGES)
            if not any(m in data for m in _IMAGES):
                parts.append(_text(data.get("text/plain")) + "\n")
        elif kind == "error":
            parts.append("%s: %s\n" % (out.get("ename"), out.get("evalue")))
    text = _ADDRESS.sub("0x", _ANSI.sub("", "".join(parts)))
    return "\n".join(line.rstrip() for line in text.strip().splitlines()), image


def run_jupyter(cells, cwd):
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3", cwd=cwd)
    results = []
    try:
        for source in cells:
            outputs = []
            # input() fails at once, as under evalkit exec; with --allow-errors ipykernel must not abort the
            # requests that arrive while it still handles an error (stop_on_error=False, as nbclient's allow_errors)
            msg_id = kc.execute(source, allow_stdin=False, stop_on_error=not ALLOW_ERRORS)
            deadline = time.time() + CELL_TIMEOUT
            while True:
                try:
                    msg = kc.get_iopub_msg(timeout=max(1, deadline - time.time()))
                except queue.Empty:  # the cell ran past CELL_TIMEOUT: it counts as failed, as under evalkit
                    outputs.append({"output_type": "error", "ename": "Timeout", "evalue": "cell timed out"})
                    break
                if time.time() > deadline:  # a cell that never stops printing times out too
                    outputs.append({"output_type": "error", "ename": "Timeout", "evalue": "cell timed out"})
                    break
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                kind, content = msg["msg_type"], msg["content"]
                if kind == "status" and content["execution_state"] == "idle":
                    break
                if kind == "stream":
                    outputs.append({"output_type": "stream", "text": content["text"]})
                elif kind in ("execute_result", "display_data", "error"):
                    outputs.append(dict(content, output_type=kind))
            results.append(outputs)
            timed_out = any(o.get("ename") == "Timeout" for o in outputs)
            if timed_out or (any(o["output_type"] == "error" for o in outputs) and not ALLOW_ERRORS):
                break  # as evalkit exec: the first failing cell (with --allow-errors, a timeout) ends the notebook
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return results


def run_evalkit(path, cwd):
    out = os.path.join(cwd, "out.ipynb")
    cmd = ["node", os.path.join(ROOT, "bin", "evalkit.js"), "exec", "--python", sys.executable, "--timeout",
           str(CELL_TIMEOUT), path, "--output-notebook", out] + (["--allow-errors"] if ALLOW_ERRORS else [])
    started = time.time()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=CELL_TIMEOUT * 10)
    with open(out) as handle:
        nb = json.load(handle)
    return [c.get("outputs", []) for c in nb["cells"] if c["cell_type"] == "code"], time.time() - started


def replay(path):
    with open(path) as handle:
        nb = json.load(handle)
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    # Each side gets its own empty directory: files one writes (%%writefile, savefig) must not change the other.
    jupyter = run_jupyter([_text(c["source"]) for c in code], tempfile.mkdtemp(prefix="evalkit-replay-jupyter-"))
    evalkit, seconds = run_evalkit(os.path.abspath(path), tempfile.mkdtemp(prefix="evalkit-replay-evalkit-"))
    rows = []
    for index, cell in enumerate(code):
        stored = normalise(cell.get("outputs", []))
        ran_j = normalise(jupyter[index]) if index < len(jupyter) else None
        ran_e = normalise(evalkit[index]) if index < len(evalkit) else None
        rows.append({
            "cell": index + 1,
            "image": stored[1],
            "jupyter": ran_j is not None and (ran_j[1] if stored[1] else ran_j[0] == stored[0]),
            "evalkit": ran_e is not None and (ran_e[1] if stored[1] else ran_e[0] == stored[0]),
            "evalkitText": None if ran_e is None else ran_e[0][:400],
            "storedText": stored[0][:400],
        })
    return {"notebook": os.path.basename(path), "cells": rows, "evalkitSeconds": round(seconds, 1)}


def main(paths):
    global ALLOW_ERRORS
    ALLOW_ERRORS = "--allow-errors" in paths
    paths = [p for p in paths if p != "--allow-errors"]
    paths = paths or sorted(glob.glob(os.path.join(HERE, "notebooks", "*.ipynb")))
    reports = [replay(p) for p in paths]
    text = [r for rep in reports for r in rep["cells"] if not r["image"] and r["jupyter"]]
    images = [r for rep in reports for r in rep["cells"] if r["image"] and r["jupyter"]]
    matched = sum(1 for r in text if r["evalkit"])
    summary = {
        "notebooks": len(reports),
        "textCellsJupyterReproduces": len(text),
        "textCellsEvalkitAlsoReproduces": matched,
        "textFraction": round(matched / len(text), 4) if text else None,
        "imageCells": len(images),
        "imageCellsEvalkitReproduces": sum(1 for r in images if r["evalkit"]),
        "python": sys.executable,
    }
    summary["allowErrors"] = ALLOW_ERRORS
    name = "notebook-replay-allow-errors.json" if ALLOW_ERRORS else "notebook-replay.json"
    with open(os.path.join(HERE, name), "w") as handle:
        json.dump({"summary": summary, "reports": reports}, handle, indent=1)
    print(json.dumps(summary, indent=1))
    for rep in reports:
        for r in rep["cells"]:
            if r["jupyter"] and not r["evalkit"]:
                print("MISS %s [%d]\n  stored:  %r\n  evalkit: %r" % (rep["notebook"], r["cell"], r["storedText"][:200],
                                                                      (r["evalkitText"] or "")[:200]))


if __name__ == "__main__":
    main(sys.argv[1:])
