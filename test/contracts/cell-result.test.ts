// The one place the local languages' names live: what people read and which names mean `py` / `js`.
import { describe, expect, it } from "vitest";
import { describeLanguage, toLocalLanguage } from "../../src/contracts/cell-result.js";

describe("describeLanguage", () => {
  it("names the local languages by their long names", () => {
    expect(describeLanguage("py")).toBe("python");
    expect(describeLanguage("js")).toBe("javascript");
  });

  it("keeps the name of any other language as it is", () => {
    expect(describeLanguage("r")).toBe("r");
    expect(describeLanguage("julia-1.10")).toBe("julia-1.10");
  });
});

describe("toLocalLanguage", () => {
  it("maps the short and the long names of the local languages to their keys", () => {
    expect(["py", "python", "js", "javascript"].map(toLocalLanguage)).toEqual(["py", "py", "js", "js"]);
  });

  it("says undefined for any other name, including other spellings", () => {
    expect(toLocalLanguage("r")).toBeUndefined();
    expect(toLocalLanguage("Python")).toBeUndefined();
    expect(toLocalLanguage("")).toBeUndefined();
  });
});
