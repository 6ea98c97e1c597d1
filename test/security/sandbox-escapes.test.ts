// The escape suite, from inside a cell: each break a sandboxed cell could try, as root and as nobody (docs/security.md).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectCgroupSupport } from "../../src/runtime/sandbox-cgroup.js";
import { ensureBuilt } from "../helpers/build.js";
import {
  ESCAPE_ROOT,
  type EscapeUser,
  execSandboxed,
  listEscapeUsers,
  USER_PATH,
} from "../helpers/escape-users.js";
import { requireOrExplainSkip } from "../helpers/required.js";
import { sandboxSkipReason } from "../helpers/sandbox.js";

const { users, skipped } = listEscapeUsers();
for (const who of skipped) requireOrExplainSkip(`the escape suite as ${who}`, who);
const abstractName = `evalkit-escape-${process.pid}`;
const marker = `EVALKIT_ESCAPE_MARKER_${process.pid}`;
let server: Server | undefined;
const holders: ChildProcess[] = [];

beforeAll(async () => {
  if (sandboxSkipReason !== "") return;
  ensureBuilt();
  // A host service on an abstract Unix socket: no file to hide, only the network namespace keeps it out of reach.
  server = createServer((socket) => socket.end("hello"));
  await new Promise<void>((resolve) => server?.listen(`\0${abstractName}`, resolve));
}, 180_000);

afterAll(() => {
  server?.close();
  for (const holder of holders) holder.kill("SIGKILL");
  rmSync(ESCAPE_ROOT, { recursive: true, force: true });
});

/** ptrace, namespaces, keyrings, eBPF, perf, userfaultfd, mount, terminal injection: each call's errno. */
const SYSCALL_PROBE = `
import ctypes, errno, json, platform, subprocess
NR = {
  "x86_64": dict(ptrace=101, process_vm_readv=310, keyctl=250, bpf=321, perf_event_open=298, userfaultfd=323,
                 unshare=272, mount=165, ioctl=16, clone3=435, setns=308, open_by_handle_at=304),
  "aarch64": dict(ptrace=117, process_vm_readv=270, keyctl=219, bpf=280, perf_event_open=241, userfaultfd=282,
                  unshare=97, mount=40, ioctl=29, clone3=435, setns=268, open_by_handle_at=265),
}[platform.machine()]
libc = ctypes.CDLL(None, use_errno=True)
def call(name, *args):
    result = libc.syscall(NR[name], *[ctypes.c_long(a) for a in args])
    return "ok" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
sibling = subprocess.Popen(["sleep", "30"])
r = {}
r["ptrace"] = call("ptrace", 16, sibling.pid, 0, 0)  # PTRACE_ATTACH to a process of the same user
if r["ptrace"] == "ok":
    call("ptrace", 17, sibling.pid, 0, 0)
r["process_vm_readv"] = call("process_vm_readv", sibling.pid, 0, 0, 0, 0, 0)
sibling.kill()
r["keyctl"] = call("keyctl", 0, -3, 0)  # KEYCTL_GET_KEYRING_ID of the session keyring
r["bpf"] = call("bpf", 0, 0, 0)
r["perf_event_open"] = call("perf_event_open", 0, 0, -1, -1, 0)
r["userfaultfd"] = call("userfaultfd", 0)
r["unshare"] = call("unshare", 0x10000000)  # CLONE_NEWUSER: full capabilities in a namespace of its own
r["setns"] = call("setns", 0, 0)
r["mount"] = call("mount", 0, 0, 0, 0, 0)
r["open_by_handle_at"] = call("open_by_handle_at", 0, 0, 0)
r["tiocsti"] = call("ioctl", 0, 0x5412, 0)
r["clone3"] = call("clone3", 0, 0)
print(json.dumps(r, sort_keys=True))
`;

/** Kernel tunables: may the cell open kernel.core_pattern for writing, and how are /proc/sys and /sys shown? */
const PROC_PROBE = `
import json, os, errno
r = {}
try:
    os.close(os.open("/proc/sys/kernel/core_pattern", os.O_WRONLY))  # opened only: nothing is written
    r["core_pattern"] = "writable"
except OSError as e:
    r["core_pattern"] = errno.errorcode[e.errno]
r["proc_sys_read_only"] = any(l.split()[4] == "/proc/sys" and "ro" in l.split()[5].split(",") for l in open("/proc/self/mountinfo"))
r["sys"] = os.path.exists("/sys/kernel")
print(json.dumps(r, sort_keys=True))
`;

/** 600 MB in a memfd and 300 MB of shared anonymous memory: none of it is the heap an rlimit counts. */
const MEMORY_HOG = `
import mmap, os
fd = os.memfd_create("hog")
chunk = b"x" * (4 << 20)
for _ in range(150):
    os.write(fd, chunk)
shared = mmap.mmap(-1, 300 << 20)
for offset in range(0, 300 << 20, 4096):
    shared[offset] = 1
print("held", (os.fstat(fd).st_size + len(shared)) >> 20, "MB")
`;

describe.skipIf(sandboxSkipReason !== "")(`escapes from a sandboxed cell ${sandboxSkipReason}`, () => {
  describe.each(users)("as $name", (user: EscapeUser) => {
    const dirs = () => ({
      cwd: user.makeDir(`project-${Math.random().toString(36).slice(2)}`),
      home: user.makeDir("home"),
    });

    it("cannot open kernel tunables for writing: /proc/sys is read-only and /sys absent (core_pattern runs code as root on the host)", async () => {
      const { cells } = await execSandboxed(user, [PROC_PROBE], dirs());
      const r = JSON.parse(cells[0]?.text ?? "{}");
      expect(["EROFS", "EACCES"]).toContain(r.core_pattern);
      expect(r).toMatchObject({ proc_sys_read_only: true, sys: false });
      // The JS kernel runs in the same sandbox: r+ opens for writing without truncating anything.
      const js =
        "const fs = await import('node:fs');\n(() => { try { fs.closeSync(fs.openSync('/proc/sys/kernel/core_pattern', 'r+')); return 'writable'; } catch (e) { return e.code; } })()";
      const jsRun = await execSandboxed(user, [js], { ...dirs(), flags: ["--lang", "js"] });
      expect(["'EROFS'", "'EACCES'"]).toContain(jsRun.cells[0]?.text.trim());
    }, 60_000);

    it("is refused tracing, namespaces, keyrings, eBPF, perf, userfaultfd, mounts and terminal injection by the seccomp filter", async () => {
      const { cells } = await execSandboxed(user, [SYSCALL_PROBE], dirs());
      expect(cells[0]?.status, cells[0]?.text).toBe("ok");
      expect(JSON.parse(cells[0]?.text ?? "{}")).toEqual({
        bpf: "EPERM",
        clone3: "ENOSYS",
        keyctl: "EPERM",
        mount: "EPERM",
        open_by_handle_at: "EPERM",
        perf_event_open: "EPERM",
        process_vm_readv: "EPERM",
        ptrace: "EPERM",
        setns: "EPERM",
        tiocsti: "EPERM",
        unshare: "EPERM",
        userfaultfd: "EPERM",
      });
    }, 60_000);

    it("cannot hold memory past --memory-mb through memfd or shared mappings, or the call says the limit is an rlimit only", async () => {
      const { cells } = await execSandboxed(user, [MEMORY_HOG], { ...dirs(), flags: ["--memory-mb", "256"] });
      const cell = cells[0];
      const notices = (cell?.notices ?? []).join("\n");
      // Root here can make cgroups (CI: v1 or v2): the limit must hold there.
      const mustHold = user.name === "root" && detectCgroupSupport().kind !== "none";
      if (mustHold || cell?.status !== "ok") {
        expect(cell?.status).toBe("died");
        expect(notices).toMatch(/cgroup reached its memory limit 256 MB/);
      } else {
        expect(notices).toMatch(/memory limit 256 MB is an rlimit only/);
      }
    }, 90_000);

    it("reaches no host abstract Unix socket and no host process's environment when the network is off", async () => {
      const holder = spawn(user.wrap(["sleep", "120"])[0] as string, user.wrap(["sleep", "120"]).slice(1), {
        env: { PATH: USER_PATH, MARKER: marker },
      });
      holders.push(holder);
      const probe = [
        "import json, os, socket",
        "r = {}",
        "s = socket.socket(socket.AF_UNIX)",
        "try:",
        `    s.connect("\\0${abstractName}")`,
        "    r['socket'] = s.recv(5).decode()",
        "except OSError as e:",
        "    r['socket'] = type(e).__name__",
        "r['marker'] = False",
        "for pid in os.listdir('/proc'):",
        "    try:",
        `        r['marker'] = r['marker'] or b'${marker}' in open('/proc/%s/environ' % pid, 'rb').read()`,
        "    except OSError:",
        "        pass",
        "print(json.dumps(r))",
      ].join("\n");
      const { cells } = await execSandboxed(user, [probe], dirs());
      const r = JSON.parse(cells[0]?.text ?? "{}");
      expect(r.marker).toBe(false);
      expect(r.socket).not.toBe("hello");
    }, 60_000);

    it("cannot write evalkit's home, even when it lies inside the writable cwd", async () => {
      const { cwd, home } = dirs();
      const evalkitHome = path.join(cwd, ".evalkit");
      mkdirSync(path.join(evalkitHome, "cache"), { recursive: true });
      writeFileSync(path.join(evalkitHome, "cache", "keep"), "");
      for (const p of [evalkitHome, path.join(evalkitHome, "cache"), path.join(evalkitHome, "cache", "keep")])
        user.own(p);
      const plant = `open(${JSON.stringify(path.join(evalkitHome, "cache", "planted.py"))}, "w").write("x")`;
      const { cells } = await execSandboxed(user, [plant], { cwd, home, env: { EVALKIT_HOME: evalkitHome } });
      expect(cells[0]?.error?.ename).toBe("OSError");
      expect(readdirSync(path.join(evalkitHome, "cache"))).not.toContain("planted.py");
    }, 60_000);

    it("still runs ordinary cells under the filter: numpy and pandas, subprocesses, threads, fork, and JavaScript with child processes and workers", async () => {
      const py = [
        "import os, subprocess, threading",
        "try:\n    import numpy, pandas\n    libs = str(pandas.DataFrame({'a': numpy.arange(3)}).a.sum())\nexcept ImportError:\n    libs = 'absent'",
        "t = threading.Thread(target=lambda: None); t.start(); t.join()",
        "pid = os.fork()\nif pid == 0:\n    os._exit(7)",
        "print(libs, subprocess.run(['echo', 'sub'], capture_output=True, text=True).stdout.strip(), os.waitpid(pid, 0)[1] >> 8)",
      ].join("\n");
      const { cells } = await execSandboxed(user, [py], dirs());
      expect(cells[0]?.text).toMatch(/^(3|absent) sub 7\n$/);
      const js = [
        "const { execFileSync } = await import('node:child_process');",
        "const { Worker } = await import('node:worker_threads');",
        "const fromWorker = await new Promise((r) => new Worker('require(\"worker_threads\").parentPort.postMessage(6*7)', { eval: true }).on('message', r));",
        "execFileSync('echo', ['child']).toString().trim() + ' ' + fromWorker",
      ].join("\n");
      const jsRun = await execSandboxed(user, [js], { ...dirs(), flags: ["--lang", "js"] });
      expect(jsRun.cells[0]?.text.trim()).toBe("'child 42'");
    }, 90_000);
  });
});
