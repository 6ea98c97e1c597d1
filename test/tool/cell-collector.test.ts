// The collector reads a call's secrets only when some output could hold one, and then redacts with them.
import { describe, expect, it } from "vitest";
import { CellCollector } from "../../src/tool/cell-collector.js";

const SECRET = "collector-secret-Hx72pq";

function createCounted() {
  const counter = { reads: 0 };
  const collector = new CellCollector({
    output: {},
    secrets: () => {
      counter.reads += 1;
      return [{ name: "COLLECTOR_TOKEN", value: SECRET }];
    },
    artifactsDir: undefined,
    store: undefined,
  });
  return { collector, counter };
}

describe("CellCollector", () => {
  it("shows a short result without reading the secrets", () => {
    const { collector, counter } = createCounted();
    collector.add({ type: "result", data: { "text/plain": "2" } });
    const collected = collector.finish();
    expect(collected.text).toBe("2\n");
    expect(collected.outputs).toEqual([{ type: "result", data: { "text/plain": "2" } }]);
    expect(counter.reads).toBe(0);
  });

  it("reads the secrets once for a longer result and hides them in the text and the outputs", () => {
    const { collector, counter } = createCounted();
    collector.add({ type: "result", data: { "text/plain": `'${SECRET}'` } });
    collector.add({ type: "stream", name: "stdout", text: `token ${SECRET}\n` });
    const collected = collector.finish();
    expect(collected.text).toBe("'[REDACTED:COLLECTOR_TOKEN]'\ntoken [REDACTED:COLLECTOR_TOKEN]\n");
    expect(JSON.stringify(collected.outputs)).not.toContain(SECRET);
    expect(counter.reads).toBe(1);
  });
});
