"use strict";
// Keeps result, display and error frames far below the host's 64 MiB line bound, whatever the size of a value's
// text (the same rules as the Python runner's big_values.py): a text value over TEXT_CAP characters is cut around
// a marker after its full text went out as stream output (stdout for values, stderr for errors), which the host
// keeps in the cell's artifact; binary values over FRAME_BUDGET are dropped with a marker; any frame still over
// LINE_GUARD bytes once encoded is replaced by a small one saying so. One oversized frame used to kill the kernel.

const TEXT_CAP = 1 << 20; // characters of one text value kept in a frame: at most ~6 MiB once JSON-escaped
const TAIL_CHARS = 2048; // the end of a value (closing brackets, an error's last words) is worth keeping
const FRAME_BUDGET = 40 << 20; // bytes of binary (base64) values per frame
const LINE_GUARD = 56 << 20; // an encoded frame over this is replaced (the host's bound is 64 MiB)
const BINARY_PREFIXES = ["image/", "audio/", "video/", "application/pdf", "application/octet-stream"];
const HOST_WAITS = new Set(["call", "input_request"]); // someone waits on these: better an error in the caller

function n(number) {
  return number.toLocaleString("en-US");
}

function isBinary(mime) {
  return BINARY_PREFIXES.some((prefix) => mime.startsWith(prefix)) && !mime.startsWith("image/svg");
}

function capText(text, where) {
  const keepHead = TEXT_CAP - TAIL_CHARS;
  const omitted = text.length - keepHead - TAIL_CHARS;
  const marker =
    `\n…[evalkit: ${n(omitted)} of ${n(text.length)} characters left out here (one value keeps at most ` +
    `${n(TEXT_CAP)}); the full text is in this cell's ${where} output and its artifact]…\n`;
  return text.slice(0, keepHead) + marker + text.slice(-TAIL_CHARS);
}

function fitBundle(frame, spill) {
  const bundle = frame.bundle;
  if (bundle === null || typeof bundle !== "object") return;
  let changed = null;
  const binary = [];
  for (const mime of Object.keys(bundle)) {
    const value = bundle[mime];
    if (typeof value !== "string") continue;
    if (isBinary(mime)) binary.push([value.length, mime]);
    else if (value.length > TEXT_CAP) {
      changed ??= { ...bundle };
      const what = frame.type === "result" ? "result" : "display";
      spill(1, `evalkit: full ${mime} of the ${what} (${n(value.length)} characters):\n${value}\n`);
      changed[mime] = capText(value, "stdout");
    }
  }
  let total = binary.reduce((sum, [size]) => sum + size, 0);
  if (total > FRAME_BUDGET) {
    changed ??= { ...bundle };
    // The value goes and its marker joins the text, so no renderer takes the marker for image data.
    const notes = [];
    for (const [size, mime] of binary.sort((a, b) => b[0] - a[0])) {
      if (total <= FRAME_BUDGET) break;
      delete changed[mime];
      notes.push(
        `[evalkit: this ${mime} value of ${n(size)} bytes was dropped: one output carries at most ` +
          `${n(FRAME_BUDGET)} bytes]`,
      );
      total -= size;
    }
    const text = typeof changed["text/plain"] === "string" ? changed["text/plain"] + "\n" : "";
    changed["text/plain"] = text + notes.join("\n");
  }
  if (changed !== null) frame.bundle = changed;
}

// A JS stack starts with the message ("Error: …"), unlike a Python traceback: every line is cut on its own first,
// then the first lines within the budget are kept, a marker, and the last line.
function capLines(lines) {
  const half = TEXT_CAP / 2;
  const cut = lines.map((line) =>
    line.length > half
      ? line.slice(0, half - TAIL_CHARS) + "…[evalkit: cut; full text on stderr]…" + line.slice(-TAIL_CHARS)
      : line,
  );
  const last = cut.length > 0 ? cut[cut.length - 1] : "";
  let budget = TEXT_CAP - last.length;
  const head = [];
  for (const line of cut.slice(0, -1)) {
    if (line.length > budget) break;
    head.push(line);
    budget -= line.length;
  }
  const skipped = cut.length - 1 - head.length;
  const marker = `…[evalkit: ${skipped} stack lines left out here; the full error is in this cell's stderr]…`;
  return [...head, ...(skipped > 0 ? [marker] : []), last];
}

function fitError(frame, spill) {
  const lines = Array.isArray(frame.traceback) ? frame.traceback.map(String) : [];
  const total = lines.reduce((sum, line) => sum + line.length, 0);
  const isLongValue = typeof frame.evalue === "string" && frame.evalue.length > TEXT_CAP;
  if (total <= TEXT_CAP && !isLongValue) return;
  spill(2, `evalkit: full error (${n(total)} characters):\n${lines.join("\n")}\n`);
  if (isLongValue) frame.evalue = capText(frame.evalue, "stderr");
  if (total > TEXT_CAP) frame.traceback = capLines(lines);
}

/** Makes `frame` small enough to send; `spill(fd, text)` writes full texts ahead of it as stream output. */
function fitFrame(frame, spill) {
  if (frame.type === "result" || frame.type === "display") fitBundle(frame, spill);
  else if (frame.type === "error") fitError(frame, spill);
}

/** A small stand-in for a frame whose encoding is `size` bytes, over LINE_GUARD (huge JSON, metadata, ...). */
function replacement(frame, size) {
  if (HOST_WAITS.has(frame.type)) {
    throw new RangeError(
      `this ${frame.type} is ${n(size)} bytes once encoded; the kernel's channel carries at most ${n(LINE_GUARD)}`,
    );
  }
  const note =
    `[evalkit: a ${frame.type} frame of ${n(size)} bytes was dropped: the kernel's channel carries at most ` +
    `${n(LINE_GUARD)} bytes a frame]`;
  const small = {};
  // `nonce` stays: without it the host would take the stand-in for a frame the cell forged.
  for (const key of ["type", "id", "executionCount", "displayId", "update", "nonce"]) {
    if (key in frame) small[key] = frame[key];
  }
  if (frame.type === "error") {
    small.ename = String(frame.ename ?? "Error").slice(0, 200);
    small.evalue = note;
    small.traceback = [note];
  } else if (frame.type === "result" || frame.type === "display") {
    // The plain text is already capped (util.inspect, fitBundle): keep it, drop the rest (huge JSON, ...).
    const text = frame.bundle?.["text/plain"];
    small.bundle = {
      "text/plain": typeof text === "string" && text.length <= TEXT_CAP ? `${text}\n${note}` : note,
    };
  } else return { type: "protocol_error", reason: note };
  return small;
}

module.exports = { fitFrame, replacement, LINE_GUARD, TEXT_CAP };
