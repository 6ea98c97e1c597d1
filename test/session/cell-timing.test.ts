// Unit tests of a cell's time resolved once: the 1..max clamp, the default, and the grace carried with it.
import { describe, expect, it } from "vitest";
import {
  clampTimeoutSec,
  DEFAULT_INTERRUPT_GRACE_MS,
  resolveCellTiming,
  resolveTimeLimits,
} from "../../src/session/cell-timing.js";

describe("clampTimeoutSec", () => {
  it("defaults to 30 seconds when no timeout is given", () => {
    expect(clampTimeoutSec(undefined)).toBe(30);
    expect(clampTimeoutSec(Number.NaN)).toBe(30);
  });

  it("raises values below one second to one second", () => {
    expect(clampTimeoutSec(0)).toBe(1);
    expect(clampTimeoutSec(-5)).toBe(1);
    expect(clampTimeoutSec(0.2)).toBe(1);
  });

  it("caps values at the maximum, 3600 by default", () => {
    expect(clampTimeoutSec(10_000)).toBe(3600);
    expect(clampTimeoutSec(Number.POSITIVE_INFINITY)).toBe(30);
    expect(clampTimeoutSec(120, 60)).toBe(60);
  });

  it("keeps values inside the range as they are", () => {
    expect(clampTimeoutSec(1)).toBe(1);
    expect(clampTimeoutSec(2.5)).toBe(2.5);
    expect(clampTimeoutSec(3600)).toBe(3600);
  });

  it("clamps the default itself when the maximum is below it", () => {
    expect(clampTimeoutSec(undefined, 10)).toBe(10);
  });
});

describe("resolveTimeLimits", () => {
  it("fills in 30 s and 3600 s when nothing is set, and leaves the grace to each runtime", () => {
    expect(resolveTimeLimits()).toEqual({
      defaultTimeoutSec: 30,
      maxTimeoutSec: 3600,
      interruptGraceMs: undefined,
    });
    expect(DEFAULT_INTERRUPT_GRACE_MS).toBe(5000);
  });

  it("carries a configured grace, zero included", () => {
    expect(resolveTimeLimits({ interruptGraceMs: 0 }).interruptGraceMs).toBe(0);
    expect(resolveTimeLimits({ interruptGraceMs: 200 }).interruptGraceMs).toBe(200);
  });

  it("clamps a default above the ceiling to the ceiling", () => {
    expect(resolveTimeLimits({ defaultTimeoutSec: 120, maxTimeoutSec: 60 }).defaultTimeoutSec).toBe(60);
  });
});

describe("resolveCellTiming", () => {
  const limits = resolveTimeLimits({ defaultTimeoutSec: 10, maxTimeoutSec: 60, interruptGraceMs: 200 });

  it("gives a cell that asks for nothing the default and the grace", () => {
    expect(resolveCellTiming(undefined, limits)).toEqual({ timeoutSec: 10, interruptGraceMs: 200 });
  });

  it("clamps what a cell asks for into 1..max", () => {
    expect(resolveCellTiming(0, limits).timeoutSec).toBe(1);
    expect(resolveCellTiming(600, limits).timeoutSec).toBe(60);
    expect(resolveCellTiming(2.5, limits).timeoutSec).toBe(2.5);
  });
});
