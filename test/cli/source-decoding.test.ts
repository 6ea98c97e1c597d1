// Cell files decode as their interpreter would read them: BOM dropped, a Python coding line honoured.
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/args.js";
import { decodeSourceFile, findDeclaredCoding } from "../../src/cli/source-decoding.js";

describe("decodeSourceFile", () => {
  it("drops a UTF-8 byte-order mark", () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('print("ok")\r\n')]);
    expect(decodeSourceFile(bytes, "py", "f.py")).toBe('print("ok")\r\n');
  });

  it("decodes a Python file by the coding line on line 1 or 2, in Python's loose spellings", () => {
    const latin = Buffer.from('# -*- coding: latin-1 -*-\nprint("caf\xe9")\n', "latin1");
    expect(decodeSourceFile(latin, "py", "f.py")).toBe('# -*- coding: latin-1 -*-\nprint("café")\n');
    const second = Buffer.from(
      '#!/usr/bin/env python\n# vim: set fileencoding=iso_8859_15 :\nx = "\xa4"\n',
      "latin1",
    );
    expect(decodeSourceFile(second, "py", "f.py")).toContain('x = "€"');
  });

  it("ignores a coding comment after the first two lines, and in JavaScript files", () => {
    const late = Buffer.from('x = 1\ny = 2\n# coding: latin-1\nz = "é"\n', "utf8");
    expect(findDeclaredCoding(late)).toBeUndefined();
    expect(decodeSourceFile(late, "py", "f.py")).toContain('z = "é"');
    const js = Buffer.from('// coding: latin-1\nconst s = "é"\n', "utf8");
    expect(decodeSourceFile(js, "js", "f.js")).toBe('// coding: latin-1\nconst s = "é"\n');
  });

  it("does not take a coding line that follows code on line 1", () => {
    expect(findDeclaredCoding(Buffer.from("import os\n# coding: latin-1\n"))).toBeUndefined();
  });

  it("refuses a Python file that is not UTF-8 and declares no other encoding, as Python does", () => {
    const latin = Buffer.from('print("caf\xe9")\n', "latin1");
    expect(() => decodeSourceFile(latin, "py", 'FILE "l.py"')).toThrow(/l\.py.*not valid UTF-8/);
    expect(() =>
      decodeSourceFile(Buffer.concat([Buffer.from("# coding: utf-8\n"), latin]), "py", "f"),
    ).toThrow(UsageError);
    expect(decodeSourceFile(latin, "js", "f.js")).toBe('print("caf\ufffd")\n');
  });

  it("refuses an encoding it cannot decode, naming the file", () => {
    expect(() => decodeSourceFile(Buffer.from("# coding: klingon\n"), "py", 'FILE "k.py"')).toThrow(
      UsageError,
    );
    expect(() => decodeSourceFile(Buffer.from("# coding: klingon\n"), "py", 'FILE "k.py"')).toThrow(
      /k\.py.*klingon/,
    );
  });
});
