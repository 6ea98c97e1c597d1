// The layers a sandboxed kernel gets besides bwrap's namespaces (seccomp, a cgroup), and what is active here in words.
import { arch } from "node:os";
import {
  createKernelCgroup,
  describeCgroupSupport,
  detectCgroupSupport,
  type KernelCgroup,
} from "./sandbox-cgroup.js";
import { seccompProgramFile, syscallTable } from "./sandbox-seccomp.js";
import type { ResourceLimits } from "./sandbox-types.js";

/** What one kernel's launch adds to bwrap: the filter's file and the cgroup its launcher joins. */
export interface KernelLayers {
  seccompFile: string | undefined;
  cgroup: KernelCgroup | undefined;
}

/** The seccomp program (built once per process) and, when limits are asked for, a fresh cgroup holding them. */
export function prepareKernelLayers(limits: ResourceLimits | undefined, evalkitHome: string): KernelLayers {
  const seccompFile = seccompProgramFile(evalkitHome);
  const cgroup =
    limits === undefined
      ? undefined
      : createKernelCgroup({ memoryMb: limits.memoryMb, processes: limits.processes });
  return { seccompFile, cgroup };
}

/**
 * The notice of a sandboxed call whose memory limit is only an rlimit here (no cgroup could be made): memory
 * from memfd_create, shared mappings and tmpfs files is then not counted. Undefined when a cgroup holds it.
 */
export function describeWeakMemoryLimit(limits: ResourceLimits | undefined): string | undefined {
  if (limits?.memoryMb === undefined) return undefined;
  const found = detectCgroupSupport();
  if (found.kind !== "none") return undefined;
  return `memory limit ${limits.memoryMb} MB is an rlimit only (no cgroup here: ${found.reason}): memory from memfd_create, shared mappings and tmpfs files is not counted`;
}

/** One sandbox layer and whether (and how) it is active on this machine. */
export interface SandboxLayer {
  name: string;
  state: string;
}

/** One line per layer, for `evalkit doctor`. */
export function describeSandboxLayers(): SandboxLayer[] {
  const table = syscallTable();
  const found = detectCgroupSupport();
  return [
    { name: "user namespace", state: "on (every sandbox; uid 0 inside owns nothing of the host)" },
    { name: "kernel tunables", state: "/proc/sys and /proc/sysrq-trigger read-only, /sys absent" },
    {
      name: "seccomp",
      state:
        table === undefined
          ? `off: no system-call table for ${arch()} (x64 and arm64 have one)`
          : `on (${arch()})`,
    },
    {
      name: "memory limit",
      state:
        found.kind === "none"
          ? `rlimits only (${found.reason}): memfd, shared memory and tmpfs are not counted`
          : `cgroup: ${describeCgroupSupport(found)}`,
    },
    {
      name: "network",
      state: "none unless --sandbox-network (an empty network namespace, not even loopback)",
    },
  ];
}
