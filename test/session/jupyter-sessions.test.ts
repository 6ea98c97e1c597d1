// Session lifecycle on a real Jupyter server: idle eviction deletes the kernel; a server restart gives a fresh one.
import { createConnection, createServer, type Server, type Socket } from "node:net";
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

/** A TCP proxy in front of the server whose connections the test can cut (a network drop) and whose port can close. */
function startProxy(
  target: number,
  port = 0,
): Promise<{ port: number; cut: () => void; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: "127.0.0.1", port: target });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  const cut = () => {
    for (const s of sockets) s.destroy();
  };
  return new Promise((resolve) =>
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      resolve({
        port: typeof address === "object" && address ? address.port : 0,
        cut,
        close: () =>
          new Promise<void>((done) => {
            cut();
            server.close(() => done());
          }),
      });
    }),
  );
}
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

  it("ends a cell whose WebSocket drops as died, deletes that kernel, and runs the next cell on a fresh one", async () => {
    const server = await startJupyterServer(flavour!);
    servers.push(server);
    const proxy = await startProxy(Number(new URL(server.url).port));
    const manager = new SessionManager({
      jupyter: { url: `http://127.0.0.1:${proxy.port}`, token: server.token },
    });
    managers.push(manager);
    expect((await manager.run({ language: "py", code: "kept = 1" })).status).toBe("ok");
    const running = manager.run({ language: "py", code: "import time\ntime.sleep(20)" });
    await new Promise((r) => setTimeout(r, 700));
    proxy.cut();
    const dropped = await running;
    expect(dropped.status).toBe("died");
    expect(dropped.notices.join("\n")).toContain("WebSocket closed");
    const next = await manager.run({ language: "py", code: "'kept' in globals()" });
    expect(next.outputs).toEqual([{ type: "result", data: { "text/plain": "False" } }]);
    expect(next.notices.join("\n")).toMatch(/previous kernel/);
    // The unreachable kernel was deleted: only the fresh one is left.
    await expect.poll(async () => (await server.listKernels()).length, { timeout: 20_000 }).toBe(1);
    await manager.dispose();
    expect(await server.listKernels()).toEqual([]);
    await proxy.close();
  }, 120_000);

  it("deletes a kernel it could not delete while the server was unreachable once the server answers again", async () => {
    const server = await startJupyterServer(flavour!);
    servers.push(server);
    const proxy = await startProxy(Number(new URL(server.url).port));
    const manager = new SessionManager({
      jupyter: { url: `http://127.0.0.1:${proxy.port}`, token: server.token },
    });
    managers.push(manager);
    expect((await manager.run({ language: "py", code: "1" })).status).toBe("ok");
    await proxy.close();
    // The drop reaches the client a moment later (a cell sent in that moment ends `died`: it may have run).
    await new Promise((r) => setTimeout(r, 500));
    await expect(manager.run({ language: "py", code: "1" })).rejects.toMatchObject({
      code: "JUPYTER_UNREACHABLE",
    });
    expect((await server.listKernels()).length).toBe(1);
    const back = await startProxy(Number(new URL(server.url).port), proxy.port);
    expect((await manager.run({ language: "py", code: "1" })).status).toBe("ok");
    await expect.poll(async () => (await server.listKernels()).length, { timeout: 20_000 }).toBe(1);
    await manager.dispose();
    expect(await server.listKernels()).toEqual([]);
    await back.close();
  }, 120_000);
});
