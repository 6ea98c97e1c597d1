// Session lifecycle on a real Jupyter server: idle eviction deletes the kernel; a server restart gives a fresh one.
import { afterAll, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/session/session-manager.js";
import {
  findJupyterFlavours,
  isJupyterIntegration,
  startJupyterServer,
  type TestJupyterServer,
} from "../helpers/jupyter-server.js";

const flavour = isJupyterIntegration ? findJupyterFlavours().found.at(-1) : undefined;
// Missing servers are reported (and fail CI) by test/tool/jupyter-tool.test.ts.
const servers: TestJupyterServer[] = [];
const managers: SessionManager[] = [];

afterAll(async () => {
  await Promise.all(managers.map((m) => m.dispose()));
  await Promise.all(servers.map((s) => s.stop()));
}, 60_000);

describe.runIf(flavour !== undefined)("sessions on a Jupyter server", () => {
  it("deletes an idle session's kernel on the server when it is evicted", async () => {
    const server = await startJupyterServer(flavour!);
    servers.push(server);
    const manager = new SessionManager({
      jupyter: { url: server.url, token: server.token },
      idleEvictMs: 500,
    });
    managers.push(manager);
    const outcome = await manager.run({ language: "py", code: "1+1" });
    expect(outcome.status).toBe("ok");
    expect((await server.listKernels()).length).toBe(1);
    await expect.poll(async () => (await server.listKernels()).length, { timeout: 20_000 }).toBe(0);
    expect(manager.kernelCount).toBe(0);
  }, 90_000);

  it("gives the next cell a fresh kernel, with a notice, after the server restarted", async () => {
    const first = await startJupyterServer(flavour!);
    const manager = new SessionManager({ jupyter: { url: first.url, token: first.token } });
    managers.push(manager);
    expect((await manager.run({ language: "py", code: "state = 1" })).status).toBe("ok");
    const port = Number(new URL(first.url).port);
    await first.stop();
    // The session layer throws what the tool turns into the cell's error: the server is gone, name it.
    await expect(manager.run({ language: "py", code: "1" })).rejects.toMatchObject({
      code: "JUPYTER_UNREACHABLE",
      message: expect.stringContaining(first.url),
    });
    const second = await startJupyterServer(flavour!, { port, token: first.token });
    servers.push(second);
    const after = await manager.run({ language: "py", code: "'state' in globals()" });
    expect(after.status).toBe("ok");
    expect(after.outputs).toEqual([{ type: "result", data: { "text/plain": "False" } }]);
    expect(after.notices.join("\n")).toMatch(/previous kernel/);
  }, 120_000);
});
