// Property: random valid Python without magics comes back from the magic transformer unchanged, and the
// scanner alone (without the compile safety net) finds no magic in it. Checked in one batch by real Python.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TEST_PYTHON } from "../helpers/python.js";

const PYTHON_DIR = fileURLToPath(new URL("../../python", import.meta.url));

// Lines that start with %, !, ? or end with ? are the transformer's triggers: put them where Python allows.
const name = fc.constantFrom("x", "y", "ls", "cd", "pip", "time", "timeit", "env", "who", "a_b");
const number = fc.constantFrom("0", "1", "42", "3.5", "1e3", "0x1f", "2j");
const stringLit = fc.constantFrom(
  "'%ls'",
  '"!ls -la"',
  "'?'",
  '"a?"',
  "'''\\n%timeit x\\n!echo hi\\n'''",
  '"""\\n%%bash\\n  ?x\\n"""',
  "r'\\!\\%'",
  "b'%d' % 3",
  "f'{x!r:>10} %pwd'",
  "f\"{'!'} {x:{y}}\"",
  "'#not a comment'",
  "'\\\\'",
);
const comment = fc.constantFrom("# %matplotlib inline", "# !pip install x", "# what?", "#%%", "");

const expr: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    name,
    number,
    stringLit,
    fc
      .tuple(tie("expr"), fc.constantFrom(" % ", " != ", "!= ", " if x else ", " * ", " - "), tie("expr"))
      .map(([a, op, b]) => `(${a}${op}${b})`),
    // A bracket spanning lines: continuation lines may begin with %, != or ? (inside a string).
    fc
      .tuple(tie("expr"), fc.constantFrom("\n% ", "\n!= ", "\n  % ", "\n    , ", ",\n'?',\n"), tie("expr"))
      .map(([a, sep, b]) => `(${a}${sep}${b})`),
    fc.array(tie("expr"), { maxLength: 3 }).map((items) => `[${items.join(",\n")}]`),
    fc.tuple(stringLit, tie("expr")).map(([k, v]) => `{${k}: ${v}}`),
    tie("expr").map((e) => `(lambda x=None: ${e})`),
    tie("expr").map((e) => `x[${e}:]`),
  ),
})).expr;

const simpleStatement = fc.oneof(
  fc.tuple(name, expr).map(([n, e]) => `${n} = ${e}`),
  expr,
  fc.tuple(name, expr).map(([n, e]) => `${n} %= ${e}`),
  expr.map((e) => `x = 1 + \\\n  ${e}`),
  expr.map((e) => `x = 2 \\\n% ${e}`),
  fc.constantFrom(
    "pass",
    "del x",
    "import os",
    "from os import path as p",
    "assert x != y, '?'",
    "y = x ! = 1",
  ),
);

const statement: fc.Arbitrary<string> = fc.letrec<{ stmt: string }>((tie) => ({
  stmt: fc.oneof(
    { depthSize: "small" },
    simpleStatement,
    fc.tuple(expr, tie("stmt")).map(([c, body]) => `if ${c}:\n${indent(body)}`),
    fc.tuple(name, tie("stmt")).map(([n, body]) => `def ${n}(a, b='%s'):\n${indent(body)}\n    return a`),
    fc.tuple(tie("stmt"), tie("stmt")).map(([a, b]) => `try:\n${indent(a)}\nexcept Exception:\n${indent(b)}`),
    fc.tuple(name, tie("stmt")).map(([n, body]) => `class ${n.toUpperCase()}:\n${indent(body)}`),
    fc.tuple(tie("stmt"), comment).map(([s, c]) => (c ? `${s}  ${c}` : s)),
  ),
})).stmt;

function indent(block: string): string {
  // Indent only logical lines' starts would need a parser; indenting every line keeps strings valid
  // except for triple-quoted ones, which the validity filter in Python drops.
  return block
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}

const program = fc
  .tuple(
    fc.array(fc.oneof(statement, comment), { minLength: 1, maxLength: 6 }),
    fc.constantFrom("\n", "\r\n"),
  )
  .map(([lines, eol]) => lines.join("\n").replace(/\n/g, eol));

const CHECKER = `
import ast, json, sys, warnings
from evalkit_kernel.magics.transform import _MAYBE_MAGIC, find_magics, transform
cases = json.load(open(sys.argv[1], encoding="utf-8"))
valid, suspicious, problems = 0, 0, []
for source in cases:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<fuzz>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError):
        continue
    valid += 1
    if _MAYBE_MAGIC.search(source):
        suspicious += 1
    if transform(source) is not source:
        problems.append({"source": source, "why": "transform rewrote valid Python"})
    else:
        found = find_magics(source)
        if found:
            problems.append({"source": source, "why": "scanner found %r" % (found,)})
print(json.dumps({"valid": valid, "suspicious": suspicious, "problems": problems[:5], "count": len(problems)}))
`;

describe("magic transformer fuzz", () => {
  it("leaves random valid Python without magics unchanged, and its scanner finds nothing there", () => {
    const cases = fc.sample(program, {
      numRuns: 1500,
      seed: Number(process.env.EVALKIT_FUZZ_SEED ?? 20240611),
    });
    const dir = mkdtempSync(path.join(tmpdir(), "evalkit-fuzz-"));
    try {
      const file = path.join(dir, "cases.json");
      writeFileSync(file, JSON.stringify(cases));
      const out = execFileSync(TEST_PYTHON, ["-c", CHECKER, file], {
        encoding: "utf8",
        env: { ...process.env, PYTHONPATH: PYTHON_DIR },
      });
      const report = JSON.parse(out) as { valid: number; suspicious: number; problems: unknown[] };
      // The generator must mostly produce valid Python, or the property says little.
      expect(report.valid).toBeGreaterThan(cases.length / 3);
      // ...and many valid cases must look like magics to the quick pre-check, so the scanner really runs.
      expect(report.suspicious).toBeGreaterThan(report.valid / 4);
      expect(report.problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
