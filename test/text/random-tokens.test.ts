// Pooled random tokens: the right length, hex, and never the same bytes twice, across pool refills.
import { describe, expect, it } from "vitest";
import { createRandomToken } from "../../src/text/random-tokens.js";

describe("random tokens", () => {
  it("gives hex tokens of the asked length that never repeat, across many pool refills", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const token = createRandomToken(12);
      expect(token).toMatch(/^[0-9a-f]{24}$/);
      seen.add(token);
    }
    expect(seen.size).toBe(5000);
  });

  it("serves sizes larger than the pool straight from the generator", () => {
    const big = createRandomToken(10_000);
    expect(big).toHaveLength(20_000);
    expect(new Set(big).size).toBeGreaterThan(10);
  });
});
