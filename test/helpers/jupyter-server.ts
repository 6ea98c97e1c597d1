// Real Jupyter servers on 127.0.0.1 for the Jupyter backend's tests: Debian's jupyter_server 1.x and pip's 2.x.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "./sshd.js";

/** A server flavour the tests can start. */
export interface JupyterFlavour {
  name: string;
  python: string;
  version: string;
}

const ROOT = resolve(import.meta.dirname, "..", "..");
const CANDIDATES: { name: string; python: string }[] = [
  { name: "Debian jupyter_server", python: "/usr/bin/python3" },
  // .ci/run makes this venv (pip's jupyter_server 2.x + ipykernel); EVALKIT_TEST_JUPYTER_VENV names another.
  {
    name: "pip jupyter_server",
    python: join(process.env.EVALKIT_TEST_JUPYTER_VENV ?? join(ROOT, ".venv-jupyter"), "bin", "python"),
  },
];

/** The flavours installed here (each with ipykernel), and why the others are not. */
export function findJupyterFlavours(): { found: JupyterFlavour[]; missing: string[] } {
  const found: JupyterFlavour[] = [];
  const missing: string[] = [];
  for (const candidate of CANDIDATES) {
    if (!existsSync(candidate.python)) {
      missing.push(`${candidate.name}: ${candidate.python} is missing`);
      continue;
    }
    try {
      const version = execFileSync(
        candidate.python,
        ["-c", "import jupyter_server, ipykernel; print(jupyter_server.__version__)"],
        { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
      ).trim();
      found.push({ ...candidate, version });
    } catch {
      missing.push(`${candidate.name}: jupyter_server or ipykernel is not importable by ${candidate.python}`);
    }
  }
  return { found, missing };
}

/** Why the R kernel cannot be used here (IRkernel's kernelspec `ir`), or undefined. */
export function irkernelUnavailable(): string | undefined {
  if (
    existsSync("/usr/share/jupyter/kernels/ir/kernel.json") ||
    existsSync("/usr/local/share/jupyter/kernels/ir/kernel.json")
  )
    return undefined;
  return "no `ir` kernelspec (apt-get install -y r-cran-irkernel; R -e 'IRkernel::installspec(user=FALSE)')";
}

export interface TestJupyterServer {
  url: string;
  token: string;
  flavour: JupyterFlavour;
  /** Kernels the server runs now (GET /api/kernels). */
  listKernels(): Promise<{ id: string; name: string }[]>;
  stop(): Promise<void>;
}

/** Starts a server with a fresh token on a free port (or the given ones) and waits until /api answers. */
export async function startJupyterServer(
  flavour: JupyterFlavour,
  fixed: { port?: number; token?: string; kernelspecs?: Record<string, object> } = {},
): Promise<TestJupyterServer> {
  const dir = mkdtempSync(join(tmpdir(), "evalkit-jupyter-"));
  const port = fixed.port ?? (await freePort());
  const token = fixed.token ?? `test-token-${Math.random().toString(36).slice(2)}${Date.now()}`;
  const isV2 = Number.parseInt(flavour.version, 10) >= 2;
  const args = [
    "-m",
    "jupyter_server",
    "--no-browser",
    "--allow-root",
    "--ip=127.0.0.1",
    `--port=${port}`,
    "--port-retries=0",
    `--ServerApp.root_dir=${dir}`,
    isV2 ? `--IdentityProvider.token=${token}` : `--ServerApp.token=${token}`,
  ];
  const env: NodeJS.ProcessEnv = { ...process.env, JUPYTER_RUNTIME_DIR: join(dir, "runtime") };
  // Extra kernelspecs (a broken one, for the error tests) beside the installed ones.
  if (fixed.kernelspecs) {
    for (const [name, spec] of Object.entries(fixed.kernelspecs)) {
      mkdirSync(join(dir, "share", "kernels", name), { recursive: true });
      writeFileSync(join(dir, "share", "kernels", name, "kernel.json"), JSON.stringify(spec));
    }
    env.JUPYTER_PATH = join(dir, "share");
  }
  for (const name of Object.keys(env)) if (name.startsWith("EVALKIT_JUPYTER")) delete env[name];
  const child: ChildProcess = spawn(flavour.python, args, {
    cwd: dir,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString("utf8")).slice(-20_000);
  });
  const url = `http://127.0.0.1:${port}`;
  const headers = { Authorization: `token ${token}` };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`jupyter server exited at start:\n${log}`);
    const ok = await fetch(`${url}/api/kernelspecs`, { headers }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`jupyter server did not answer within 60 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  return {
    url,
    token,
    flavour,
    async listKernels() {
      const response = await fetch(`${url}/api/kernels`, { headers });
      return (await response.json()) as { id: string; name: string }[];
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether the Jupyter tests run at all (they start real interpreters, like the other integration tests). */
export const isJupyterIntegration = process.env.EVALKIT_PYTHON_INTEGRATION === "1";
