// Which kernelspec serves a cell's language: short names, language names, kernelspec names, and the listing error.
import { describe, expect, it } from "vitest";
import { JupyterCatalog } from "../../../src/kernel/jupyter/jupyter-catalog.js";
import { toKernelOutput } from "../../../src/kernel/jupyter/jupyter-messages.js";

const catalog = new JupyterCatalog(
  {
    defaultName: "python3",
    specs: [
      { name: "ir", language: "R", displayName: "R" },
      { name: "julia-1.10", language: "julia", displayName: "Julia 1.10" },
      { name: "py311", language: "python", displayName: "Python 3.11" },
      { name: "python3", language: "python", displayName: "Python 3 (ipykernel)" },
    ],
  },
  "http://jupyter.example:8888/",
);

describe("JupyterCatalog", () => {
  it("offers one key per language, the server's default kernelspec serving Python as py", () => {
    expect(catalog.keys).toEqual(["py", "r", "julia"]);
    expect(catalog.find("py")?.kernelName).toBe("python3");
    expect(catalog.find("python")?.kernelName).toBe("python3");
  });

  it("matches language names and kernelspec names in any case", () => {
    expect(catalog.find("R")).toMatchObject({ key: "r", kernelName: "ir" });
    expect(catalog.find("ir")).toMatchObject({ key: "r", kernelName: "ir" });
    expect(catalog.find("Julia")).toMatchObject({ key: "julia", kernelName: "julia-1.10" });
  });

  it("keeps a second kernelspec of a language reachable under its own name, as its own kernel", () => {
    expect(catalog.find("py311")).toMatchObject({ key: "py311", kernelName: "py311" });
  });

  it("names the server and every language it offers when a language is missing", () => {
    const match = catalog.match("cobol");
    expect(match.ok).toBe(false);
    if (match.ok) return;
    expect(match.message).toContain(
      'the Jupyter server at http://jupyter.example:8888/ has no kernel for language "cobol"',
    );
    expect(match.message).toContain(
      '"py" (python3: Python 3 (ipykernel)), "r" (ir: R), "julia" (julia-1.10: Julia 1.10)',
    );
  });

  it("says so when the server has no kernelspec at all", () => {
    const empty = new JupyterCatalog({ defaultName: undefined, specs: [] }, "http://x/");
    expect(empty.match("py")).toMatchObject({
      ok: false,
      message: expect.stringContaining("it offers no kernelspecs at all"),
    });
  });
});

describe("toKernelOutput", () => {
  const message = (msgType: string, content: Record<string, unknown>) => ({
    channel: "iopub" as const,
    header: { msg_id: "m", msg_type: msgType },
    parent_header: { msg_id: "p" },
    metadata: {},
    content,
  });

  it("joins MIME values some kernels send as lists of lines", () => {
    expect(
      toKernelOutput(message("display_data", { data: { "text/plain": ["a\n", "b"] }, metadata: {} })),
    ).toEqual({
      type: "display",
      data: { "text/plain": "a\nb" },
    });
  });

  it("ignores messages that carry no output (status, execute_input) and empty stream text", () => {
    expect(toKernelOutput(message("status", { execution_state: "busy" }))).toBeUndefined();
    expect(toKernelOutput(message("execute_input", { code: "1" }))).toBeUndefined();
    expect(toKernelOutput(message("stream", { name: "stdout", text: "" }))).toBeUndefined();
  });
});
