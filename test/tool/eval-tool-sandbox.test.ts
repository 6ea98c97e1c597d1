// The tool's sandbox and limits options end to end: memory limits, usage in results, SANDBOX_UNAVAILABLE, JS cells.
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isEvalkitError } from "../../src/errors.js";
import { sandboxSkipReason } from "../helpers/sandbox.js";
import { cleanupTools, makeTempDir, makeTool } from "./tool-helpers.js";

afterEach(cleanupTools);

const noSandbox = sandboxSkipReason;
const HOG = "hog = bytearray(400 * 1024 * 1024)";

describe("resource limits", () => {
  it("turns a memory hog into a MemoryError under memoryMb, and the next call works", async () => {
    const tool = makeTool({ cwd: makeTempDir("limits"), limits: { memoryMb: 200 } });
    const first = await tool.execute({ cells: [{ code: "kept = 3" }, { code: HOG }] });
    expect(first.details.cells[1]).toMatchObject({ status: "error", error: { ename: "MemoryError" } });
    const next = await tool.execute({ cells: [{ code: "small = bytearray(10 * 1024 * 1024)\nkept" }] });
    expect(next.details.cells[0]).toMatchObject({ status: "ok", text: "3\n" });
  });

  it("names the memory limit when a kernel under one dies during a cell", async () => {
    const tool = makeTool({ cwd: makeTempDir("limits-died"), limits: { memoryMb: 300 } });
    // What the OOM killer does to a kernel whose allocation cannot be refused: a SIGKILL from outside.
    const result = await tool.execute({
      cells: [{ code: "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)" }],
    });
    const cell = result.details.cells[0]!;
    expect(cell.status).toBe("died");
    expect(cell.notices?.join("\n")).toContain("memory limit 300 MB");
    const next = await tool.execute({ cells: [{ code: "1 + 1" }] });
    expect(next.details.cells[0]).toMatchObject({ status: "ok", text: "2\n" });
  });
});

describe("CPU limit", () => {
  const cases = [
    { name: "a Python kernel", language: "py" as const, loop: "while True:\n    pass", sandbox: false },
    { name: "a JavaScript kernel", language: "js" as const, loop: "while (true) {}", sandbox: false },
    {
      name: "a sandboxed Python kernel",
      language: "py" as const,
      loop: "while True:\n    pass",
      sandbox: true,
    },
    {
      name: "a sandboxed JavaScript kernel",
      language: "js" as const,
      loop: "while (true) {}",
      sandbox: true,
    },
  ];
  for (const { name, language, loop, sandbox } of cases) {
    it.skipIf(sandbox && noSandbox !== "")(
      `ends ${name} past cpuSeconds naming the limit, and the next call works`,
      async () => {
        const tool = makeTool({ cwd: makeTempDir("limits-cpu"), limits: { cpuSeconds: 1 }, sandbox });
        const result = await tool.execute({ cells: [{ language, code: loop, timeout: 60 }] });
        const cell = result.details.cells[0]!;
        expect(cell.status).toBe("died");
        expect(cell.notices?.join("\n")).toContain("CPU time limit 1 s reached");
        const next = await tool.execute({ cells: [{ language, code: "1 + 1" }] });
        expect(next.details.cells[0]).toMatchObject({ status: "ok", text: "2\n" });
      },
    );
  }
});

describe("usage", () => {
  it("reports each cell's CPU time and peak memory, children included", async () => {
    const tool = makeTool({ cwd: makeTempDir("usage") });
    const result = await tool.execute({
      cells: [
        { code: "1 + 1" },
        { code: "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end:\n    pass" },
        { code: "big = bytearray(120 * 1024 * 1024)\ndel big" },
        {
          code: "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'x = bytearray(150 * 1024 * 1024)'])",
        },
      ],
    });
    const [small, busy, memory, child] = result.details.cells.map((cell) => cell.usage);
    expect(small?.cpuMs).toBeGreaterThanOrEqual(0);
    expect(small?.cpuMs).toBeLessThan(250);
    expect(busy?.cpuMs).toBeGreaterThanOrEqual(280);
    expect(memory?.peakRssBytes).toBeGreaterThan(120 * 1024 * 1024);
    // The peak is the cell's own: the next cell does not inherit the 120 MB high-water mark.
    expect(child?.peakRssBytes).toBeGreaterThan(150 * 1024 * 1024);
    expect(busy?.peakRssBytes).toBeLessThan(120 * 1024 * 1024);
  });
});

describe.skipIf(noSandbox !== "")(`the sandbox option ${noSandbox}`, () => {
  it("runs Python cells sandboxed and applies memoryMb inside the sandbox too", async () => {
    const tool = makeTool({ cwd: makeTempDir("sbx"), sandbox: true, limits: { memoryMb: 200 } });
    const result = await tool.execute({
      cells: [
        { code: "import os\nprint(os.getpid() < 10, os.path.exists('/root/.bash_history'))" },
        { code: HOG },
      ],
    });
    expect(result.details.cells[0]).toMatchObject({ status: "ok", text: "True False\n" });
    expect(result.details.cells[1]?.error?.ename).toBe("MemoryError");
    expect(result.details.cells[0]?.usage?.peakRssBytes).toBeGreaterThan(0);
    const next = await tool.execute({ cells: [{ code: "'still' + ' here'" }] });
    expect(next.details.cells[0]).toMatchObject({ status: "ok", text: "'still here'\n" });
  });

  it("turns on with EVALKIT_SANDBOX=1", async () => {
    const tool = makeTool({ cwd: makeTempDir("sbx-env"), flagsEnv: { EVALKIT_SANDBOX: "1" } });
    const result = await tool.execute({
      cells: [{ code: "import os\nsorted(os.listdir('/proc'))[:1], os.getpid()" }],
    });
    expect(result.details.cells[0]?.text).toMatch(/, [0-9]\)\n$/); // a pid from the sandbox's own namespace
  });

  it("runs JavaScript cells sandboxed the same way, interrupts included", async () => {
    const cwd = makeTempDir("sbx-js");
    const tool = makeTool({ cwd, sandbox: true });
    const result = await tool.execute({
      cells: [
        {
          language: "js",
          code: "let kept = 5;\nconst fs = require('fs');\nlet wrote = true;\ntry { fs.writeFileSync('/usr/escaped.txt', 'x') } catch { wrote = false }\n[process.pid < 10, wrote, fs.existsSync('/root/.bash_history')]",
        },
      ],
    });
    expect(result.details.cells[0]).toMatchObject({ status: "ok", text: "[ true, false, false ]\n" });
    expect(result.details.cells[0]?.usage?.peakRssBytes).toBeGreaterThan(0);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const spun = await tool.execute(
      { cells: [{ language: "js", code: "while (true) {}" }] },
      {
        signal: controller.signal,
      },
    );
    expect(spun.details.cells[0]?.status).toBe("cancelled");
    const next = await tool.execute({ cells: [{ language: "js", code: "kept" }] });
    expect(next.details.cells[0]).toMatchObject({ status: "ok", text: "5\n" });
  });
});

describe.skipIf(noSandbox !== "")(`JavaScript cells at the sandbox's boundaries ${noSandbox}`, () => {
  it("cannot reach a loopback server, read a secret under HOME or find a host process's environment", async () => {
    const server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const marker = `EVALKIT_JS_MARKER_${process.pid}_${Date.now()}`;
    const holder = spawn("sleep", ["60"], { env: { ...process.env, SANDBOX_TEST_MARKER: marker } });
    const home = makeTempDir("js-home");
    writeFileSync(path.join(home, ".netrc"), "machine example.com password SECRET");
    const code = [
      "const fs = require('fs'), net = require('net');",
      "const connected = await new Promise((resolve) => {",
      `  const s = net.connect(${port}, '127.0.0.1', () => { s.destroy(); resolve(true) });`,
      "  s.on('error', () => resolve(false));",
      "});",
      `const secret = fs.existsSync(${JSON.stringify(path.join(home, ".netrc"))});`,
      "const found = fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p)).some((p) => {",
      `  try { return fs.readFileSync('/proc/' + p + '/environ', 'latin1').includes(${JSON.stringify(marker)}) } catch { return false }`,
      "});",
      "[connected, secret, found]",
    ].join("\n");
    try {
      const plain = makeTool({ cwd: makeTempDir("js-plain"), env: { HOME: home } });
      const open = await plain.execute({ cells: [{ language: "js", code }] });
      expect(open.details.cells[0]).toMatchObject({ status: "ok", text: "[ true, true, true ]\n" });
      const boxed = makeTool({ cwd: makeTempDir("js-boxed"), env: { HOME: home }, sandbox: true });
      const shut = await boxed.execute({ cells: [{ language: "js", code }] });
      expect(shut.details.cells[0]).toMatchObject({ status: "ok", text: "[ false, false, false ]\n" });
    } finally {
      holder.kill("SIGKILL");
      server.close();
    }
  });
});

describe.skipIf(noSandbox !== "")(`a layout that would undo the sandbox ${noSandbox}`, () => {
  it("fails the call naming the cwd when the cwd is the home, before any cell runs", async () => {
    const home = makeTempDir("home-as-cwd");
    const tool = makeTool({ cwd: home, env: { HOME: home }, sandbox: true });
    const error = await tool
      .execute({ cells: [{ code: "open('ran', 'w')" }, { language: "js", code: "1" }] })
      .catch((e) => e);
    expect(isEvalkitError(error, "INVALID_INPUT")).toBe(true);
    expect(error.details.field).toBe("cwd");
    expect(error.message).toContain("is the home directory");
    expect(existsSync(path.join(home, "ran"))).toBe(false);
  });
});

describe("a sandbox that cannot be had", () => {
  it("fails the call with SANDBOX_UNAVAILABLE naming what to install, never running unsandboxed", async () => {
    const saved = process.env.PATH;
    process.env.PATH = makeTempDir("empty-path"); // a PATH without bwrap
    try {
      const tool = makeTool({ cwd: makeTempDir("no-bwrap"), sandbox: { network: true } });
      const error = await tool.execute({ cells: [{ code: "open('ran-unsandboxed', 'w')" }] }).catch((e) => e);
      expect(isEvalkitError(error, "SANDBOX_UNAVAILABLE")).toBe(true);
      expect(error.message).toContain("apt-get install bubblewrap");
    } finally {
      process.env.PATH = saved;
    }
  });

  it("rejects bad sandbox and limit options naming the field", () => {
    const cwd = makeTempDir("bad-options");
    const attempt = (options: Parameters<typeof makeTool>[0]) => {
      try {
        makeTool({ cwd, ...options });
        return undefined;
      } catch (err) {
        return isEvalkitError(err) ? err.details.field : err;
      }
    };
    expect(attempt({ sandbox: { writable: ["does-not-exist"] } })).toBe("sandbox.writable.0");
    expect(attempt({ sandbox: { network: "yes" as unknown as boolean } })).toBe("sandbox");
    expect(attempt({ limits: { memoryMb: -5 } })).toBe("limits.memoryMb");
    expect(attempt({ limits: { cpuSecs: 3 } as never })).toBe("limits.cpuSecs");
    expect(attempt({ sandbox: true, launcher: "ssh host" })).toBe("sandbox");
    expect(attempt({ flagsEnv: { EVALKIT_SANDBOX: "maybe" } })).toBe("EVALKIT_SANDBOX");
  });
});
