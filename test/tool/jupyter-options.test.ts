// The Jupyter server setting: option over environment, http(s) only, and never a token inside the URL.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readJupyterArgs } from "../../src/cli/jupyter-args.js";
import { resolveJupyterOption } from "../../src/tool/jupyter-options.js";

describe("resolveJupyterOption", () => {
  it("is undefined when neither the option nor EVALKIT_JUPYTER_URL is set", () => {
    expect(resolveJupyterOption(undefined, { EVALKIT_JUPYTER_TOKEN: "abcdefgh" })).toBeUndefined();
  });

  it("reads EVALKIT_JUPYTER_URL and EVALKIT_JUPYTER_TOKEN, and the option wins over both", () => {
    const env = { EVALKIT_JUPYTER_URL: "http://env:8888/hub", EVALKIT_JUPYTER_TOKEN: "env-token" };
    expect(resolveJupyterOption(undefined, env)).toEqual({ url: "http://env:8888/hub", token: "env-token" });
    expect(resolveJupyterOption({ url: "https://opt/", token: "opt-token" }, env)).toEqual({
      url: "https://opt/",
      token: "opt-token",
    });
  });

  it("refuses a URL with a token or password in it, naming the field and where the token goes", () => {
    expect(() => resolveJupyterOption({ url: "http://h:1/?token=secret" }, {})).toThrow(
      /jupyter\.url: the URL carries credentials; give the token through EVALKIT_JUPYTER_TOKEN/,
    );
    expect(() => resolveJupyterOption(undefined, { EVALKIT_JUPYTER_URL: "http://u:pw@h/" })).toThrow(
      /EVALKIT_JUPYTER_URL: the URL carries credentials/,
    );
  });

  it("refuses what is not an http(s) URL", () => {
    expect(() => resolveJupyterOption({ url: "ws://h/" }, {})).toThrow(
      /expected an http:\/\/ or https:\/\/ URL/,
    );
    expect(() => resolveJupyterOption({ url: "not a url" }, {})).toThrow(/is not a URL/);
  });
});

describe("readJupyterArgs", () => {
  it("reads the token from --jupyter-token-file, trimmed", () => {
    const file = join(mkdtempSync(join(tmpdir(), "evalkit-token-")), "token");
    writeFileSync(file, "  file-token\n");
    expect(readJupyterArgs({ jupyter: "http://h/", "jupyter-token-file": file }, {})).toEqual({
      url: "http://h/",
      token: "file-token",
    });
  });

  it("says what is wrong with a missing token file or one without a URL", () => {
    expect(() =>
      readJupyterArgs({ jupyter: "http://h/", "jupyter-token-file": "/nonexistent/t" }, {}),
    ).toThrow(/--jupyter-token-file: cannot read "\/nonexistent\/t" \(ENOENT\)/);
    expect(() => readJupyterArgs({ "jupyter-token-file": "/etc/hostname" }, {})).toThrow(
      /needs --jupyter URL/,
    );
  });
});
