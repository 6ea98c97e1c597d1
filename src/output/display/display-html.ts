// HTML -> markdown for the model's view of a display: turndown with GFM, plus a table rule that never gives up.
import { createRequire } from "node:module";
import type TurndownService from "turndown";

// turndown (and its DOM parser) costs a noticeable share of start-up: load it on the first HTML display only.
const requireLazily = createRequire(import.meta.url);

// Nodes the DOM implementation gives rules; typed narrowly here because turndown's own type is `any`-ish.
interface DomNode {
  nodeName: string;
  childNodes: ArrayLike<DomNode>;
  textContent: string | null;
  parentNode?: DomNode | null;
  nextSibling?: DomNode | null;
  getAttribute?: (name: string) => string | null;
}

interface GridCell {
  text: string;
  colspan: number;
  rowspan: number;
}

interface GridRow {
  cells: GridCell[];
  inThead: boolean;
  allTh: boolean;
}

let service: TurndownService | undefined;

/** Markdown for an HTML fragment: headings, lists, links, code and GFM tables (pandas' included). */
export function convertHtmlToMarkdown(html: string): string {
  service ??= createService();
  return service
    .turndown(html)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function createService(): TurndownService {
  const Turndown = requireLazily("turndown") as typeof TurndownService;
  const { gfm } = requireLazily("turndown-plugin-gfm") as typeof import("turndown-plugin-gfm");
  const turndown = new Turndown({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
  });
  turndown.use(gfm);
  turndown.remove([
    "script",
    "style",
    "noscript",
    "head",
    "meta",
    "link",
    "template",
  ] as TurndownService.Filter);
  // gfm keeps tables without a heading row as raw HTML and breaks on spans; this rule replaces it.
  turndown.addRule("evalkitTable", {
    filter: "table",
    replacement: (_content, node) => `\n\n${renderTable(node as unknown as DomNode)}\n\n`,
  });
  // turndown indents items by four columns ("-   item"); a marker and one space reads the same and costs less.
  turndown.addRule("evalkitListItem", {
    filter: "li",
    replacement: (content, node) => renderListItem(content, node as unknown as DomNode),
  });
  return turndown;
}

function renderListItem(content: string, node: DomNode): string {
  const parent = node.parentNode;
  let prefix = "- ";
  if (parent?.nodeName === "OL") {
    const items = Array.from(parent.childNodes).filter((c) => c.nodeName === "LI");
    const start = Number.parseInt(parent.getAttribute?.("start") ?? "1", 10);
    prefix = `${(Number.isFinite(start) ? start : 1) + items.indexOf(node)}. `;
  }
  const indent = " ".repeat(prefix.length);
  const body = content
    .replace(/^\n+/, "")
    .replace(/\n+$/, "\n")
    .replace(/\n(?=.)/g, `\n${indent}`);
  return prefix + body + (node.nextSibling && !body.endsWith("\n") ? "\n" : "");
}

function collectRows(table: DomNode): GridRow[] {
  const rows: GridRow[] = [];
  const visit = (node: DomNode, inThead: boolean): void => {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeName === "TR") {
        const cells = Array.from(child.childNodes).filter((c) => c.nodeName === "TD" || c.nodeName === "TH");
        rows.push({
          cells: cells.map((c) => ({
            text: collapse(c.textContent ?? ""),
            colspan: readSpan(c, "colspan"),
            rowspan: readSpan(c, "rowspan"),
          })),
          inThead,
          allTh: cells.length > 0 && cells.every((c) => c.nodeName === "TH"),
        });
      } else if (child.nodeName === "THEAD" || child.nodeName === "TBODY" || child.nodeName === "TFOOT") {
        visit(child, child.nodeName === "THEAD");
      }
    }
  };
  visit(table, false);
  return rows;
}

function readSpan(node: DomNode, name: string): number {
  const value = Number.parseInt(node.getAttribute?.(name) ?? "1", 10);
  return Number.isFinite(value) ? Math.min(Math.max(value, 1), 1000) : 1;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Expands spans so each row has one entry per column; spanned labels repeat so every row stands alone. */
function expandSpans(rows: GridRow[]): string[][] {
  const carried = new Map<number, { text: string; left: number }>();
  return rows.map((row) => {
    const out: string[] = [];
    const cells = [...row.cells];
    let col = 0;
    while (cells.length > 0 || carried.has(col)) {
      const carry = carried.get(col);
      if (carry) {
        out.push(carry.text);
        if (carry.left <= 1) carried.delete(col);
        else carried.set(col, { text: carry.text, left: carry.left - 1 });
        col += 1;
        continue;
      }
      const cell = cells.shift() as GridCell;
      for (let i = 0; i < cell.colspan; i += 1) {
        if (cell.rowspan > 1) carried.set(col, { text: cell.text, left: cell.rowspan - 1 });
        out.push(cell.text);
        col += 1;
      }
    }
    return out;
  });
}

function renderTable(table: DomNode): string {
  const rows = collectRows(table);
  if (rows.length === 0) return "";
  const grid = expandSpans(rows);
  const width = Math.max(...grid.map((r) => r.length));
  const hasThead = rows.some((r) => r.inThead);
  let headCount = 0;
  while (
    headCount < rows.length &&
    (hasThead ? rows[headCount]?.inThead : headCount === 0 && rows[0]?.allTh)
  ) {
    headCount += 1;
  }
  // No header row at all: the first row serves as one, as a reader of a bare HTML table would assume.
  if (headCount === 0) headCount = 1;
  const pad = (r: string[]): string[] => [...r, ...Array<string>(width - r.length).fill("")];
  const headRows = grid.slice(0, headCount).map(pad);
  const header = Array.from({ length: width }, (_, col) => {
    const parts: string[] = [];
    for (const r of headRows) {
      const label = r[col] ?? "";
      if (label && parts[parts.length - 1] !== label) parts.push(label);
    }
    return parts.join(" / ");
  });
  const line = (cells: string[]): string => `| ${cells.map(escapeCell).join(" | ")} |`;
  const lines = [line(header), `|${Array<string>(width).fill("---").join("|")}|`];
  for (const r of grid.slice(headCount)) lines.push(line(pad(r)));
  return lines.join("\n");
}

function escapeCell(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|");
}
