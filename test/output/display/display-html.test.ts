import { describe, expect, it } from "vitest";
import { convertHtmlToMarkdown } from "../../../src/output/display/display-html.js";

const PANDAS_HTML = `<div>
<style scoped>
    .dataframe tbody tr th { vertical-align: top; }
</style>
<table border="1" class="dataframe">
  <thead>
    <tr style="text-align: right;"><th></th><th>city</th><th>temp</th></tr>
    <tr><th>id</th><th></th><th></th></tr>
  </thead>
  <tbody>
    <tr><th>0</th><td>Oslo</td><td>-3.5</td></tr>
    <tr><th>1</th><td>Lima | Peru</td><td>NaN</td></tr>
  </tbody>
</table>
<p>2 rows × 2 columns</p>
</div>`;

describe("convertHtmlToMarkdown", () => {
  it("turns a pandas table into a GFM table with index names merged into the header and no CSS", () => {
    expect(convertHtmlToMarkdown(PANDAS_HTML)).toBe(
      [
        "| id | city | temp |",
        "|---|---|---|",
        "| 0 | Oslo | -3.5 |",
        "| 1 | Lima \\| Peru | NaN |",
        "",
        "2 rows × 2 columns",
      ].join("\n"),
    );
  });

  it("repeats row-spanning MultiIndex labels and joins column-spanning header labels", () => {
    const html = `<table><thead>
      <tr><th></th><th></th><th colspan="2">x</th></tr>
      <tr><th>key</th><th>n</th><th>p</th><th>q</th></tr></thead>
      <tbody><tr><th rowspan="2">k</th><th>1</th><td>0</td><td>1</td></tr>
      <tr><th>2</th><td>4</td><td>5</td></tr></tbody></table>`;
    expect(convertHtmlToMarkdown(html)).toBe(
      ["| key | n | x / p | x / q |", "|---|---|---|---|", "| k | 1 | 0 | 1 |", "| k | 2 | 4 | 5 |"].join(
        "\n",
      ),
    );
  });

  it("converts a table without any header cells instead of leaving raw HTML", () => {
    const markdown = convertHtmlToMarkdown("<table><tr><td>a</td><td>b</td></tr><tr><td>1</td></tr></table>");
    expect(markdown).toBe("| a | b |\n|---|---|\n| 1 |  |");
    expect(markdown).not.toContain("<");
  });

  it("keeps nested lists, ordered numbering and links readable", () => {
    const html = `<ul><li>fruit<ul><li><a href="https://example.org/apple">apple</a></li><li>pear</li></ul></li>
      <li>veg</li></ul><ol start="3"><li>third</li><li>fourth</li></ol>`;
    expect(convertHtmlToMarkdown(html)).toBe(
      "- fruit\n  - [apple](https://example.org/apple)\n  - pear\n- veg\n\n3. third\n4. fourth",
    );
  });

  it("drops scripts and styles and keeps headings, emphasis and code", () => {
    const html = `<script>alert("x")</script><h2>Report</h2><p>It <strong>works</strong> with <code>x=1</code>.</p>
      <pre><code class="language-python">print(1)</code></pre><s>old</s>`;
    expect(convertHtmlToMarkdown(html)).toBe(
      "## Report\n\nIt **works** with `x=1`.\n\n```python\nprint(1)\n```\n\n~old~",
    );
  });
});
