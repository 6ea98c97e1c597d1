// A real OpenSSH server on 127.0.0.1 for remote-kernel tests: free port, throwaway host and user keys, no PAM.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const SSHD = "/usr/sbin/sshd";

/** Why the sshd tests cannot run here, or undefined when they can (root is needed for a privilege-separated sshd). */
export function sshdUnavailable(): string | undefined {
  if (process.platform !== "linux") return "sshd tests run on Linux only";
  if (!existsSync(SSHD)) return `${SSHD} is missing (apt-get install -y openssh-server; .ci/run installs it)`;
  if (process.getuid?.() !== 0) return "sshd needs root to accept logins (CI runs as root)";
  return undefined;
}

export interface TestSshd {
  port: number;
  /** The launcher prefix that runs a command on this server. */
  launcher: string[];
  /** Pids of the per-connection sshd processes (children of the listener). */
  sessionPids(): number[];
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** ssh options shared by every launcher: keys only, no prompts, no known_hosts file. */
export function sshLauncher(port: number, key: string): string[] {
  return [
    "ssh",
    "-p",
    String(port),
    "-i",
    key,
    "-o",
    "BatchMode=yes",
    "-o",
    "StrictHostKeyChecking=no",
    "-o",
    "UserKnownHostsFile=/dev/null",
    "-o",
    "LogLevel=ERROR",
    "127.0.0.1",
  ];
}

export async function startSshd(): Promise<TestSshd> {
  const dir = mkdtempSync(join(tmpdir(), "evalkit-sshd-"));
  const key = (name: string) => {
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, name)]);
    return join(dir, name);
  };
  const hostKey = key("host_key");
  const userKey = key("user_key");
  writeFileSync(join(dir, "authorized_keys"), readFileSync(`${userKey}.pub`), { mode: 0o600 });
  const port = await freePort();
  const config = join(dir, "sshd_config");
  writeFileSync(
    config,
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      "PubkeyAuthentication yes",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PermitRootLogin prohibit-password",
      "UsePAM no",
      "StrictModes no",
      "LogLevel ERROR",
      "",
    ].join("\n"),
  );
  mkdirSync("/run/sshd", { recursive: true }); // privilege separation directory
  const server: ChildProcess = spawn(SSHD, ["-D", "-e", "-f", config], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  server.stderr?.on("data", (chunk: Buffer) => {
    log += chunk.toString();
  });
  const deadline = Date.now() + 10_000;
  while (!(await canConnect(port))) {
    if (server.exitCode !== null || Date.now() > deadline) {
      server.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`sshd did not start: ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    launcher: sshLauncher(port, userKey),
    sessionPids: () => childrenOf(server.pid ?? -1),
    stop: async () => {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function childrenOf(parent: number): number[] {
  const found: number[] = [];
  for (const task of safeList(`/proc/${parent}/task`)) {
    try {
      for (const pid of readFileSync(`/proc/${parent}/task/${task}/children`, "utf8").split(/\s+/)) {
        if (pid) found.push(Number(pid));
      }
    } catch {
      // gone
    }
  }
  return found;
}

function safeList(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}
