// Drives baseline J (ipykernel + jupyter_client from Debian) through bench/jupyter-driver.py, one JSON command a line.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const DRIVER = fileURLToPath(new URL("../jupyter-driver.py", import.meta.url));

export class JupyterDriver {
  constructor(python) {
    this.python = python;
    this.waiters = [];
    this.buffer = "";
  }

  /** Starts the driver; resolves to null when it runs, or to the reason Jupyter is unavailable. */
  async open() {
    this.child = spawn(this.python, [DRIVER], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: "1" },
    });
    this.stderr = "";
    this.child.stderr.on("data", (c) => {
      this.stderr = (this.stderr + c.toString()).slice(-4000);
    });
    this.child.stdout.on("data", (chunk) => {
      this.buffer += chunk.toString();
      let newline = this.buffer.indexOf("\n");
      while (newline !== -1) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        this.waiters.shift()?.resolve(JSON.parse(line));
        newline = this.buffer.indexOf("\n");
      }
    });
    this.child.on("exit", () => {
      for (const w of this.waiters.splice(0)) w.reject(new Error(`jupyter driver exited: ${this.stderr}`));
    });
    this.child.on("error", (err) => {
      for (const w of this.waiters.splice(0)) w.reject(err);
    });
    const hello = await this.next().catch((err) => ({ ok: false, missing: err.message }));
    if (!hello.ok) return hello.missing ?? "the driver failed to start";
    this.version = hello.python;
    return null;
  }

  next() {
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  async call(cmd) {
    const reply = this.next();
    this.child.stdin.write(`${JSON.stringify(cmd)}\n`);
    const result = await reply;
    if (!result.ok) throw new Error(`jupyter driver: ${result.error}`);
    return result;
  }

  async close() {
    this.child.stdin.end();
    await new Promise((resolve) => {
      if (this.child.exitCode !== null) resolve();
      else this.child.once("exit", resolve);
    });
  }
}
