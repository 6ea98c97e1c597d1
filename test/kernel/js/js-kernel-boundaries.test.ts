// The JS kernel is its own process: what a cell does to fds, children, memory and its own life stays inside it.
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { KernelOutput } from "../../../src/contracts/outputs.js";
import { isEvalkitError } from "../../../src/errors.js";
import { JsKernel } from "../../../src/kernel/js/js-kernel.js";

const isLinux = process.platform === "linux";

function streamText(outputs: KernelOutput[], name: "stdout" | "stderr"): string {
  return outputs.map((o) => (o.type === "stream" && o.name === name ? o.text : "")).join("");
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (err: unknown) => err,
  );
}

describe("JS kernel streams", () => {
  it("makes the output of a child with inherited stdio part of the cell's streams, in order", async () => {
    const kernel = new JsKernel();
    try {
      const outcome = await kernel.execute(
        "const { spawnSync } = require('node:child_process');\nconsole.log('before');\nspawnSync('sh', ['-c', 'echo from-child; echo child-err >&2'], { stdio: 'inherit' });\nrequire('node:fs').writeSync(1, 'raw fd\\n');\nconsole.log('after')",
      );
      expect(outcome.status).toBe("ok");
      expect(streamText(outcome.outputs, "stdout")).toBe("before\nfrom-child\nraw fd\nafter\n");
      expect(streamText(outcome.outputs, "stderr")).toBe("child-err\n");
    } finally {
      await kernel.shutdown();
    }
  });

  it("keeps stdout and stderr writes in the order the cell made them", async () => {
    const kernel = new JsKernel();
    try {
      const outcome = await kernel.execute(
        "for (let i = 0; i < 50; i++) { console.log('out', i); console.error('err', i) }\ndisplay('shown'); console.log('last')",
      );
      const expected: KernelOutput[] = [];
      for (let i = 0; i < 50; i++) {
        expected.push({ type: "stream", name: "stdout", text: `out ${i}\n` });
        expected.push({ type: "stream", name: "stderr", text: `err ${i}\n` });
      }
      expected.push({ type: "display", data: { "text/plain": "shown" } });
      expected.push({ type: "stream", name: "stdout", text: "last\n" });
      expect(outcome.outputs).toEqual(expected);
    } finally {
      await kernel.shutdown();
    }
  });
});

describe("JS kernel exits", () => {
  it("reports process.exit() with its code and gives the next cell a fresh kernel", async () => {
    const kernel = new JsKernel();
    try {
      await kernel.execute("globalThis.kept = 1");
      const failure = await failureOf(kernel.execute("console.log('bye'); process.exit(7)"));
      expect(isEvalkitError(failure, "KERNEL_DIED")).toBe(true);
      expect(isEvalkitError(failure) && failure.details).toMatchObject({ exitCode: 7, stateLost: true });
      const next = await kernel.execute("typeof kept");
      expect(next.outputs[0]).toMatchObject({ data: { "text/plain": "'undefined'" } });
    } finally {
      await kernel.shutdown();
    }
  });

  it("reports process.abort() as the signal that ended the kernel", async () => {
    const kernel = new JsKernel();
    try {
      const failure = await failureOf(kernel.execute("process.abort()"));
      expect(isEvalkitError(failure, "KERNEL_DIED")).toBe(true);
      expect(isEvalkitError(failure) && failure.details).toMatchObject({ signal: "SIGABRT", killed: false });
      expect((await kernel.execute("1 + 1")).status).toBe("ok");
    } finally {
      await kernel.shutdown();
    }
  });
});

describe("JS kernel memory", () => {
  it.skipIf(!isLinux)(
    "ends only the kernel when Buffers pass its memory limit, with an out-of-memory cause",
    async () => {
      const kernel = new JsKernel({ memoryMb: 512 });
      try {
        // 60 x 100 MB = 6 GB if nothing stopped it; the limit ends the kernel near 512 MB.
        const failure = await failureOf(
          kernel.execute(
            "const keep = [];\nfor (let i = 0; i < 60; i++) { keep.push(Buffer.alloc(100 * 1024 * 1024, 1)); await new Promise((r) => setTimeout(r, 20)) }",
          ),
        );
        expect(isEvalkitError(failure, "KERNEL_DIED")).toBe(true);
        expect(isEvalkitError(failure) && failure.details).toMatchObject({ outOfMemory: true });
        expect(isEvalkitError(failure) && String(failure.details.cause)).toMatch(
          /out of memory: .* over its memory limit 512 MB/,
        );
        expect((await kernel.execute("2 + 2")).outputs[0]).toMatchObject({ data: { "text/plain": "4" } });
      } finally {
        await kernel.shutdown();
      }
    },
    60_000,
  );

  it("ends only the kernel when the V8 heap limit is reached, with an out-of-memory cause", async () => {
    const kernel = new JsKernel({ maxHeapMb: 64 });
    try {
      const failure = await failureOf(
        kernel.execute("const rows = []; for (;;) rows.push({ i: rows.length, s: 'x' + rows.length })"),
      );
      expect(isEvalkitError(failure, "KERNEL_DIED")).toBe(true);
      expect(isEvalkitError(failure) && failure.details).toMatchObject({ outOfMemory: true });
      expect(isEvalkitError(failure) && String(failure.details.cause)).toMatch(/V8 heap limit of 64 MB/);
      expect((await kernel.execute("1")).status).toBe("ok");
    } finally {
      await kernel.shutdown();
    }
  }, 60_000);

  it("gets the heap limit it asked for, with the flag on node's command line or as node's own default", async () => {
    // Another path to the same node always gets the flag (heap-flag.ts); the host's own path gets it only where
    // node's default differs. Either way the kernel's V8 heap limit is the same.
    const dir = mkdtempSync(path.join(tmpdir(), "evalkit-heap-"));
    const viaLink = path.join(dir, "node");
    symlinkSync(process.execPath, viaLink);
    const probe = "[require('node:v8').getHeapStatistics().heap_size_limit, process.execArgv]";
    const ask = async (kernel: JsKernel) => {
      const output = (await kernel.execute(probe)).outputs[0];
      return output?.type === "result" ? (output.data["application/json"] as [number, string[]]) : undefined;
    };
    const plain = new JsKernel();
    const flagged = new JsKernel({ node: viaLink });
    const small = new JsKernel({ maxHeapMb: 100 });
    try {
      const [plainLimit] = (await ask(plain)) ?? [];
      const [flaggedLimit, flaggedArgs] = (await ask(flagged)) ?? [];
      const [smallLimit, smallArgs] = (await ask(small)) ?? [];
      // Node's options besides the title (`--title`, what `ps` shows: js-command.ts).
      const heapArgs = (args: string[] | undefined) => args?.filter((arg) => !arg.startsWith("--title="));
      expect(heapArgs(flaggedArgs)).toEqual([expect.stringMatching(/^--max-old-space-size=\d+$/)]);
      expect(plainLimit).toBe(flaggedLimit);
      expect(heapArgs(smallArgs)).toEqual(["--max-old-space-size=100"]);
      expect(smallLimit).toBeLessThan(200 * 1024 * 1024);
    } finally {
      await Promise.all([plain.shutdown(), flagged.shutdown(), small.shutdown()]);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
