// Rewrites a JS cell so top-level declarations land on the context's global (REPL-style) and top-level await works.
import type { Program } from "acorn";
import { type AnyNode, collectPatternNames, FUNCTION_TYPES, parseCell, walk } from "./js-ast.js";
import { applyEdits, type ColumnShift, describeShifts, type Edit } from "./source-edits.js";

/** A cell ready to run as a classic script in the kernel's vm context. */
export interface RewrittenCell {
  /** Source to compile. */
  code: string;
  /** The script evaluates to a promise (async IIFE) whose value is the cell's last expression. */
  isAsync: boolean;
  /** The last top-level statement is an expression: its value is the cell's result. */
  hasResult: boolean;
  /** Pass to `vm.Script` so stack lines point at the user's own line numbers. */
  lineOffset: number;
  /** False when acorn could not parse the cell: the code is passed through untouched so V8 reports the error. */
  isParsed: boolean;
  /** Same-line insertions, so stack columns can be mapped back to the user's source. */
  columnShifts: ColumnShift[];
}

/** Name of the dynamic-import helper the worker defines in the context. */
export const IMPORT_HELPER = "__evalkit_import";

function hasTopLevelAwait(program: Program): boolean {
  let found = false;
  walk(program as unknown as AnyNode, (node) => {
    if (found || FUNCTION_TYPES.has(node.type)) return false;
    if (node.type === "AwaitExpression" || node.type === "ImportDeclaration") found = true;
    if (node.type === "ForOfStatement" && node["await"] === true) found = true;
    return !found;
  });
  return found;
}

/** Keeps later lines where they were when a multi-line span is replaced by one line. */
function keepNewlines(original: string): string {
  return "\n".repeat(original.split("\n").length - 1);
}

function rewriteImportDeclaration(source: string, node: AnyNode, hoisted: string[]): Edit {
  const spec = JSON.stringify((node["source"] as AnyNode)["value"]);
  const load = `await ${IMPORT_HELPER}(${spec})`;
  const specifiers = node["specifiers"] as AnyNode[];
  const namespace = specifiers.find((s) => s.type === "ImportNamespaceSpecifier");
  const parts: string[] = [];
  for (const s of specifiers) {
    const local = (s["local"] as AnyNode)["name"] as string;
    hoisted.push(local);
    if (s.type === "ImportDefaultSpecifier") parts.push(`default: ${local}`);
    else if (s.type === "ImportSpecifier") {
      const imported = s["imported"] as AnyNode;
      const key =
        imported.type === "Literal" ? JSON.stringify(imported["value"]) : (imported["name"] as string);
      parts.push(`${key}: ${local}`);
    }
  }
  let text: string;
  if (namespace) {
    const ns = (namespace["local"] as AnyNode)["name"] as string;
    text = parts.length > 0 ? `;(${ns} = ${load}, {${parts.join(", ")}} = ${ns});` : `;(${ns} = ${load});`;
  } else if (parts.length > 0) text = `;({${parts.join(", ")}} = ${load});`;
  else text = `;${load};`;
  return { start: node.start, end: node.end, text: text + keepNewlines(source.slice(node.start, node.end)) };
}

/** `const {a} = o, b = 1;` becomes `;({a} = o, b = 1);` so the names resolve to hoisted globals. */
function declarationToAssignment(
  source: string,
  decl: AnyNode,
  edits: Edit[],
  hoisted: string[],
  asStatement: boolean,
) {
  const kind = decl["kind"] as string;
  const declarators = decl["declarations"] as AnyNode[];
  const keywordEnd = decl.start + kind.length;
  edits.push({ start: decl.start, end: keywordEnd, text: asStatement ? ";(".padEnd(kind.length) : "" });
  for (const d of declarators) {
    const id = d["id"] as AnyNode;
    const names = collectPatternNames(id);
    hoisted.push(...names);
    if (d["init"] == null && asStatement) {
      // `let x;` resets x like a fresh declaration; `var x;` keeps the current value, as JS does.
      const name = names[0] ?? "undefined";
      edits.push({ start: id.end, end: id.end, text: kind === "var" ? ` = ${name}` : " = undefined" });
    }
  }
  if (asStatement) {
    const hasSemicolon = source[decl.end - 1] === ";";
    const at = hasSemicolon ? decl.end - 1 : decl.end;
    edits.push({ start: at, end: at, text: ")" });
  }
}

function rewriteAsync(source: string, program: Program, edits: Edit[]): { prefix: string } {
  const hoisted: string[] = [];
  const functions: string[] = [];
  for (const statement of program.body as unknown as AnyNode[]) {
    if (statement.type === "FunctionDeclaration") {
      functions.push((statement["id"] as AnyNode)["name"] as string);
      continue;
    }
    if (statement.type === "ClassDeclaration") {
      const name = (statement["id"] as AnyNode)["name"] as string;
      hoisted.push(name);
      edits.push({ start: statement.start, end: statement.start, text: `;(${name} = ` });
      edits.push({ start: statement.end, end: statement.end, text: ");" });
      continue;
    }
    if (statement.type === "ImportDeclaration") {
      edits.push(rewriteImportDeclaration(source, statement, hoisted));
      continue;
    }
    if (statement.type === "VariableDeclaration") {
      declarationToAssignment(source, statement, edits, hoisted, true);
      continue;
    }
    // `var` anywhere outside functions is function-scoped: it must escape the IIFE too.
    walk(statement, (node, parent) => {
      if (FUNCTION_TYPES.has(node.type) || node.type === "ClassBody") return false;
      if (node.type === "VariableDeclaration" && node["kind"] === "var") {
        const inLoopHead =
          parent !== null &&
          ((parent.type === "ForStatement" && parent["init"] === node) ||
            ((parent.type === "ForInStatement" || parent.type === "ForOfStatement") &&
              parent["left"] === node));
        declarationToAssignment(source, node, edits, hoisted, !inLoopHead);
      }
      return true;
    });
  }
  const unique = [...new Set(hoisted)];
  const declare = unique.length > 0 ? `var ${unique.join(", ")}; ` : "";
  const exportFunctions = functions.map((f) => `globalThis[${JSON.stringify(f)}] = ${f}; `).join("");
  return { prefix: `${declare}(async () => { ${exportFunctions}` };
}

function rewriteSync(program: Program, edits: Edit[]) {
  for (const statement of program.body as unknown as AnyNode[]) {
    if (statement.type === "VariableDeclaration" && statement["kind"] !== "var") {
      const kind = statement["kind"] as string;
      edits.push({
        start: statement.start,
        end: statement.start + kind.length,
        text: "var".padEnd(kind.length),
      });
      for (const d of statement["declarations"] as AnyNode[]) {
        if (d["init"] == null)
          edits.push({
            start: (d["id"] as AnyNode).end,
            end: (d["id"] as AnyNode).end,
            text: " = undefined",
          });
      }
    } else if (statement.type === "ClassDeclaration") {
      const name = (statement["id"] as AnyNode)["name"] as string;
      edits.push({ start: statement.start, end: statement.start, text: `var ${name} = ` });
      edits.push({ start: statement.end, end: statement.end, text: ";" });
    }
  }
}

/** Rewrites one cell; never throws (unparseable code comes back untouched for V8 to report). */
export function rewriteJsCell(source: string): RewrittenCell {
  const program = parseCell(source);
  if (program === null) {
    return {
      code: source,
      isAsync: false,
      hasResult: true,
      lineOffset: 0,
      isParsed: false,
      columnShifts: [],
    };
  }
  const edits: Edit[] = [];
  walk(program as unknown as AnyNode, (node) => {
    if (node.type === "ImportExpression")
      edits.push({ start: node.start, end: node.start + 6, text: IMPORT_HELPER });
    return true;
  });
  const body = program.body as unknown as AnyNode[];
  const last = body[body.length - 1];
  const hasResult = last?.type === "ExpressionStatement";
  const isAsync = hasTopLevelAwait(program);
  // A hashbang line is only legal at the very start of a script; it is a comment for our purposes.
  if (source.startsWith("#!")) edits.push({ start: 0, end: 2, text: "//" });
  if (!isAsync) {
    rewriteSync(program, edits);
    const columnShifts = describeShifts(source, edits);
    return {
      code: applyEdits(source, edits),
      isAsync: false,
      hasResult,
      lineOffset: 0,
      isParsed: true,
      columnShifts,
    };
  }
  const { prefix } = rewriteAsync(source, program, edits);
  if (hasResult && last) {
    // Wrap the whole statement, parentheses included: `({a: 1})` must not become `return ({a: 1)})`.
    const end = source[last.end - 1] === ";" ? last.end - 1 : last.end;
    edits.push({ start: last.start, end: last.start, text: "return (" });
    edits.push({ start: end, end, text: ")" });
  }
  const code = `${prefix}\n${applyEdits(source, edits)}\n})()`;
  const columnShifts = describeShifts(source, edits);
  return { code, isAsync: true, hasResult, lineOffset: -1, isParsed: true, columnShifts };
}
