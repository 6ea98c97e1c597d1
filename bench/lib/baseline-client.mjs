// Drives baseline L (bench/baseline-repl.py) from Node the way evalkit drives its runner: spawn, write a line, read lines.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const BASELINE_SCRIPT = fileURLToPath(new URL("../baseline-repl.py", import.meta.url));

export class BaselineRepl {
  constructor(python) {
    this.python = python;
    this.serial = 0;
    this.pending = undefined;
    this.buffered = [];
  }

  /** Spawns the REPL; resolves once the child is spawned (the REPL sends no greeting). */
  start() {
    this.child = spawn(this.python, ["-u", BASELINE_SCRIPT], { stdio: ["pipe", "pipe", "inherit"] });
    this.child.stdout.on("data", (chunk) => this.onData(chunk));
    this.exited = new Promise((resolve) => this.child.once("exit", resolve));
    return new Promise((resolve, reject) => {
      this.child.once("spawn", resolve);
      this.child.once("error", reject);
    });
  }

  onData(chunk) {
    let start = 0;
    let newline = chunk.indexOf(10);
    while (newline !== -1) {
      this.buffered.push(chunk.subarray(start, newline));
      const line = this.buffered.length === 1 ? this.buffered[0] : Buffer.concat(this.buffered);
      this.buffered = [];
      this.onFrame(JSON.parse(line.toString("utf8")));
      start = newline + 1;
      newline = chunk.indexOf(10, start);
    }
    if (start < chunk.length) this.buffered.push(chunk.subarray(start));
  }

  onFrame(frame) {
    const cell = this.pending;
    if (!cell || frame.id !== cell.id) return;
    if (frame.type === "stdout" || frame.type === "stderr") cell.streamChars += frame.data.length;
    else if (frame.type === "done") {
      this.pending = undefined;
      cell.resolve({ status: frame.status, streamChars: cell.streamChars, outputs: cell.outputs });
    } else cell.outputs.push(frame);
  }

  /** Runs one cell; resolves at its `done` frame. */
  execute(code) {
    const id = `b${++this.serial}`;
    return new Promise((resolve) => {
      this.pending = { id, resolve, streamChars: 0, outputs: [] };
      this.child.stdin.write(`${JSON.stringify({ id, code })}\n`);
    });
  }

  interrupt() {
    this.child.kill("SIGINT");
  }

  async stop() {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 2000);
    await this.exited;
    clearTimeout(timer);
  }
}
