// A tool on a shared SessionManager: its sandbox, limits and python are the manager's, or it refuses to be built
// (INVALID_INPUT naming the option), and checkBackends() names the interpreter the manager really runs. The
// manager takes the sandbox option in the tool's forms (`true`, an object).
import { realpathSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EvalkitError } from "../../src/errors.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { createEvalTool, type EvalTool } from "../../src/tool/eval-tool.js";
import { findSupportedInterpreters } from "../helpers/interpreters.js";
import { DEBIAN_PYTHON, TEST_PYTHON } from "../helpers/python.js";
import { sandboxSkipReason } from "../helpers/sandbox.js";
import { makeTempDir } from "./tool-helpers.js";

/** An interpreter the runtime's own resolution would not pick (the oldest pyenv one), to tell the two apart. */
const OTHER_PYTHON = [...findSupportedInterpreters().values()][0];
if (OTHER_PYTHON === undefined)
  console.warn("skipping the checkBackends() interpreter test: no pyenv interpreter found");
const managers: SessionManager[] = [];
const tools: EvalTool[] = [];
let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(async () => {
  await Promise.all(tools.splice(0).map((tool) => tool.dispose()));
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
});

function makeManager(options: ConstructorParameters<typeof SessionManager>[0] = {}): SessionManager {
  const manager = new SessionManager({ python: TEST_PYTHON, ...options });
  managers.push(manager);
  return manager;
}

function refusal(build: () => unknown): EvalkitError {
  try {
    build();
  } catch (err) {
    if (err instanceof EvalkitError) return err;
    throw err;
  }
  throw new Error("the tool was built");
}

const REACH = (p: number) =>
  `import socket\ntry:\n    socket.create_connection(("127.0.0.1", ${p}), timeout=2).close()\n    print("reachable")\nexcept OSError:\n    print("unreachable")`;

describe("a tool on a shared manager", () => {
  it("refuses a sandbox, limits or python the manager does not apply, naming the option", () => {
    const manager = makeManager();
    const cwd = makeTempDir("shared-refuse");
    expect(refusal(() => createEvalTool({ manager, cwd, sandbox: true }))).toMatchObject({
      code: "INVALID_INPUT",
      details: { field: "sandbox" },
    });
    expect(refusal(() => createEvalTool({ manager, cwd, limits: { memoryMb: 256 } }))).toMatchObject({
      code: "INVALID_INPUT",
      details: { field: "limits" },
    });
    expect(refusal(() => createEvalTool({ manager, cwd, python: DEBIAN_PYTHON + "-other" }))).toMatchObject({
      code: "INVALID_INPUT",
      details: { field: "python" },
    });
    expect(refusal(() => createEvalTool({ manager, cwd, sandbox: true, flagsEnv: {} })).message).toContain(
      "without a sandbox",
    );
  });

  it("runs the manager's limits when the tool names none", async () => {
    const manager = makeManager({ limits: { memoryMb: 200 } });
    const tool = createEvalTool({ manager, cwd: makeTempDir("shared-limits"), js: false });
    tools.push(tool);
    const result = await tool.execute({ cells: [{ code: "hog = bytearray(400 * 1024 * 1024)" }] });
    expect(result.details.cells[0]).toMatchObject({ status: "error", error: { ename: "MemoryError" } });
  }, 60_000);

  it.skipIf(OTHER_PYTHON === undefined)(
    "names the manager's interpreter in checkBackends(), the one its cells run",
    async () => {
      const manager = makeManager({ python: OTHER_PYTHON });
      const tool = createEvalTool({ manager, cwd: makeTempDir("shared-python"), js: false });
      tools.push(tool);
      const ran = await tool.execute({ cells: [{ code: "import sys\nprint(sys.executable)" }] });
      const status = await tool.checkBackends();
      expect(realpathSync(status.py.executable ?? "")).toBe(realpathSync(OTHER_PYTHON ?? ""));
      expect(realpathSync(ran.details.cells[0]?.text.trim() ?? "")).toBe(realpathSync(OTHER_PYTHON ?? ""));
    },
    60_000,
  );

  it.skipIf(OTHER_PYTHON === undefined)(
    "names the interpreter a manager's own resolveInterpreter picks in checkBackends()",
    async () => {
      const manager = makeManager({
        python: undefined,
        resolveInterpreter: async () => ({
          executable: OTHER_PYTHON ?? "",
          env: { PATH: process.env.PATH ?? "" },
        }),
      });
      const tool = createEvalTool({ manager, cwd: makeTempDir("shared-resolver"), js: false });
      tools.push(tool);
      const status = await tool.checkBackends();
      expect(status.py.executable).toBe(OTHER_PYTHON);
      const ran = await tool.execute({ cells: [{ code: "import sys\nprint(sys.executable)" }] });
      expect(realpathSync(ran.details.cells[0]?.text.trim() ?? "")).toBe(realpathSync(OTHER_PYTHON ?? ""));
    },
    60_000,
  );

  it("passes its own bridge handlers with each call on a shared manager", async () => {
    const manager = makeManager();
    const tool = createEvalTool({
      manager,
      cwd: makeTempDir("shared-handlers"),
      js: false,
      handlers: { tools: { ping: () => "pong" } },
    });
    tools.push(tool);
    const result = await tool.execute({ cells: [{ code: "print(tool.ping())" }] });
    expect(result.details.cells[0]?.text).toBe("pong\n");
  }, 30_000);

  it.skipIf(sandboxSkipReason !== "")(
    `accepts \`new SessionManager({ sandbox: true })\` and runs the tool's cells in its sandbox ${sandboxSkipReason}`,
    async () => {
      const manager = makeManager({ sandbox: true });
      const tool = createEvalTool({ manager, cwd: makeTempDir("shared-sandbox"), sandbox: true, js: false });
      tools.push(tool);
      const result = await tool.execute({ cells: [{ code: REACH(port) }] });
      expect(result.details.cells[0]?.text).toBe("unreachable\n");
      const plain = createEvalTool({ manager: makeManager(), cwd: makeTempDir("shared-plain"), js: false });
      tools.push(plain);
      expect((await plain.execute({ cells: [{ code: REACH(port) }] })).details.cells[0]?.text).toBe(
        "reachable\n",
      );
    },
    60_000,
  );
});
