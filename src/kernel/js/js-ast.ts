// A JS cell's syntax tree: acorn loaded on first use, the cell parsed as a script or else a module, and a loose
// walk over ESTree nodes with the names a declaration pattern binds.
import { createRequire } from "node:module";
import type { Node as AcornNode, Options as AcornOptions, Program } from "acorn";

// acorn (~200 KB of parser) loads with the first JS cell, not with the package: most processes that import
// evalkit never run one. Its CommonJS build is one file, so a synchronous require costs one read.
const requireLazily = createRequire(import.meta.url);
let acornParse: typeof import("acorn").parse | undefined;
function parse(source: string, options: AcornOptions): Program {
  acornParse ??= (requireLazily("acorn") as typeof import("acorn")).parse;
  return acornParse(source, options);
}

// Loose view of ESTree nodes: enough to walk children without one interface per node type.
export type AnyNode = AcornNode & Record<string, unknown>;

export const FUNCTION_TYPES = new Set([
  "FunctionDeclaration",
  "FunctionExpression",
  "ArrowFunctionExpression",
]);
const BASE_OPTIONS: AcornOptions = {
  ecmaVersion: "latest",
  allowAwaitOutsideFunction: true,
  allowHashBang: true,
};

function isNode(value: unknown): value is AnyNode {
  return (
    typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string"
  );
}

function childrenOf(node: AnyNode): AnyNode[] {
  const out: AnyNode[] = [];
  for (const key of Object.keys(node)) {
    if (key === "type" || key === "start" || key === "end" || key === "loc" || key === "range") continue;
    const value = node[key];
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) out.push(item);
    } else if (isNode(value)) out.push(value);
  }
  return out;
}

/** Depth-first walk; `visit` returns false to skip a node's children. */
export function walk(
  node: AnyNode,
  visit: (node: AnyNode, parent: AnyNode | null) => boolean,
  parent: AnyNode | null = null,
) {
  if (!visit(node, parent)) return;
  for (const child of childrenOf(node)) walk(child, visit, node);
}

/** Names bound by a declaration pattern (`a`, `{ b, c: [d] }`, `...rest`, `e = 1`). */
export function collectPatternNames(pattern: AnyNode, into: string[] = []): string[] {
  switch (pattern.type) {
    case "Identifier":
      into.push(pattern["name"] as string);
      break;
    case "ObjectPattern":
      for (const prop of pattern["properties"] as AnyNode[]) {
        collectPatternNames(prop.type === "RestElement" ? prop : (prop["value"] as AnyNode), into);
      }
      break;
    case "ArrayPattern":
      for (const element of pattern["elements"] as (AnyNode | null)[])
        if (element) collectPatternNames(element, into);
      break;
    case "RestElement":
      collectPatternNames(pattern["argument"] as AnyNode, into);
      break;
    case "AssignmentPattern":
      collectPatternNames(pattern["left"] as AnyNode, into);
      break;
  }
  return into;
}

/** The cell's program, or null when acorn cannot parse it either way. */
export function parseCell(source: string): Program | null {
  try {
    return parse(source, { ...BASE_OPTIONS, sourceType: "script" });
  } catch {
    // Static `import x from "y"` only parses as a module; the cell still runs as a script after rewriting.
    try {
      return parse(source, { ...BASE_OPTIONS, sourceType: "module" });
    } catch {
      return null;
    }
  }
}
