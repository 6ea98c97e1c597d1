"use strict";
// Each cell's CPU time and peak memory for its `done` frame (process.resourceUsage; peak reset per cell on Linux).

const fs = require("node:fs");

const isLinux = process.platform === "linux";

function cpuMicros() {
  const usage = process.resourceUsage();
  return usage.userCPUTime + usage.systemCPUTime;
}

/** Started as a cell begins; `finish()` gives {cpuMs, peakRssBytes}. */
function startMeter() {
  const startCpu = cpuMicros();
  return {
    finish() {
      return {
        cpuMs: Math.max(0, (cpuMicros() - startCpu) / 1000),
        peakRssBytes: peakRssBytes(),
      };
    },
  };
}

function peakRssBytes() {
  if (isLinux) {
    try {
      const status = fs.readFileSync("/proc/self/status", "latin1");
      const match = /^VmHWM:\s*(\d+) kB/m.exec(status);
      if (match) return Number(match[1]) * 1024;
    } catch {
      // fall through to the lifetime figure
    }
  }
  return process.resourceUsage().maxRSS * 1024;
}

/** Linux: the next cell's peak starts from the current size (called after `done`, off the cell's clock). */
function resetPeak() {
  if (!isLinux) return;
  try {
    fs.writeFileSync("/proc/self/clear_refs", "5"); // 5 resets only the peak RSS
  } catch {
    // not allowed here: the peak stays the process's high-water mark
  }
}

module.exports = { startMeter, resetPeak };
