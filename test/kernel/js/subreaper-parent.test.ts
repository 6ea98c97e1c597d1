// The JS kernel's subreaper parent: which Python runs it, the option that picks or disables it, and that every
// supported CPython runs it (adopting a daemon a cell leaves behind, ending it with the kernel).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { JsKernel } from "../../../src/kernel/js/js-kernel.js";
import { SUBREAPER_PARENT_SCRIPT, subreaperPython } from "../../../src/kernel/js/subreaper-parent.js";
import type { ExecuteOutcome } from "../../../src/kernel/kernel.js";
import { detectShim } from "../../../src/runtime/resolve-shim.js";
import { findSupportedInterpreters } from "../../helpers/interpreters.js";
import { isProcessAlive, waitFor } from "../../helpers/processes.js";

const isLinux = process.platform === "linux";

function resultOf(outcome: ExecuteOutcome): string {
  const result = outcome.outputs.find((o) => o.type === "result");
  return result?.type === "result" ? String(result.data["text/plain"]) : "";
}

function commandLine(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").filter(Boolean);
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

// A daemon in a session of its own whose parent exits at once: adopted by the subreaper parent, if there is one.
// Without the kernel's tag in its environment, so even a root host's tag scan cannot find it: only the tree can.
const ORPHAN =
  "const out = require('node:child_process').execFileSync('sh', ['-c', 'env -u EVALKIT_KERNEL_TAG setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!'], { encoding: 'utf8' });\n" +
  "Number(out.trim())";

describe.skipIf(!isLinux)("the JS kernel's subreaper parent", () => {
  it("runs on a system python3 (never a version manager's shim) unless told otherwise", () => {
    const chosen = subreaperPython(undefined);
    expect(chosen, "a python3 exists on this machine").not.toBeNull();
    expect(detectShim(chosen as string)).toBeUndefined();
    expect(subreaperPython(false)).toBeNull();
    expect(subreaperPython("/opt/python/bin/python3")).toBe("/opt/python/bin/python3");
  });

  it("is the kernel's parent and group leader, and the cell's process.ppid", async () => {
    const kernel = new JsKernel();
    try {
      const node = Number(resultOf(await kernel.execute("process.pid")));
      expect(parentOf(node)).toBe(kernel.pid);
      expect(commandLine(kernel.pid as number).slice(1, 4)).toEqual(["-I", "-S", SUBREAPER_PARENT_SCRIPT]);
      expect(resultOf(await kernel.execute("process.ppid"))).toBe(String(kernel.pid));
      // The host stays out of reach of process.kill even with a process between them.
      const outcome = await kernel.execute(`process.kill(${process.pid}, 0)`);
      expect(outcome.error?.evalue).toMatch(/would signal the evalkit host/);
    } finally {
      await kernel.shutdown();
    }
  });

  it("is left out with subreaperPython: false, and node's parent is the host", async () => {
    const kernel = new JsKernel({ subreaperPython: false });
    try {
      expect(resultOf(await kernel.execute("process.ppid"))).toBe(String(process.pid));
      expect(resultOf(await kernel.execute("process.pid"))).toBe(String(kernel.pid));
    } finally {
      await kernel.shutdown();
    }
  });

  it("outlives a signal a cell sends to its own group, ends the daemon, and reports the kernel's signal", async () => {
    const kernel = new JsKernel();
    const exits: Array<NodeJS.Signals | null> = [];
    kernel.onExit((exit) => exits.push(exit.signal));
    const daemon = Number(resultOf(await kernel.execute(ORPHAN)));
    expect(await waitFor(() => parentOf(daemon) === kernel.pid, 5000)).toBe(true);
    await expect(
      kernel.execute("process.kill(0, 'SIGALRM'); await new Promise(() => {})"),
    ).rejects.toMatchObject({
      code: "KERNEL_DIED",
    });
    expect(await waitFor(() => !isProcessAlive(daemon), 5000), `daemon ${daemon} still runs`).toBe(true);
    expect(exits).toEqual(["SIGALRM"]);
    await kernel.shutdown();
  });

  it("rejects a subreaperPython that is neither a path nor false, naming the option", () => {
    expect(() => new JsKernel({ subreaperPython: true as unknown as false })).toThrow(
      expect.objectContaining({ code: "INVALID_INPUT", details: { field: "subreaperPython" } }),
    );
    expect(() => new JsKernel({ subreaperPython: "" })).toThrow(/subreaperPython/);
  });

  it("fails to start with KERNEL_START_FAILED naming an interpreter that does not exist, and shuts down at once", async () => {
    const kernel = new JsKernel({ subreaperPython: "/nonexistent/python3" });
    await expect(kernel.execute("1")).rejects.toMatchObject({
      code: "KERNEL_START_FAILED",
      message: expect.stringContaining("/nonexistent/python3"),
    });
    await kernel.shutdown();
  });

  const interpreters = [...findSupportedInterpreters()];
  if (interpreters.length === 0)
    console.warn("no pyenv CPython 3.8–3.13 here: only the system python3 was tried");
  it.each(interpreters)(
    "runs on CPython %s: adopts a cell's daemon and ends it with the kernel",
    async (_, python) => {
      const kernel = new JsKernel({ subreaperPython: python });
      const daemon = Number(resultOf(await kernel.execute(ORPHAN)));
      expect(commandLine(kernel.pid as number)[0]).toBe(python);
      expect(await waitFor(() => parentOf(daemon) === kernel.pid, 5000)).toBe(true);
      await kernel.shutdown();
      expect(await waitFor(() => !isProcessAlive(daemon), 5000)).toBe(true);
    },
  );
});
