// The protocol's JSON Schema document (docs/protocol.schema.json), generated from the zod schemas.
import * as z from "zod";
import { hostFrame } from "./host-frames.js";
import { runnerFrame } from "./runner-frames.js";

/** Where the generated document is committed, relative to the package root. */
export const PROTOCOL_SCHEMA_FILE = "docs/protocol.schema.json";

/** The JSON Schema of both directions, as the text committed to {@link PROTOCOL_SCHEMA_FILE}. */
export function renderProtocolSchema(): string {
  // Every frame schema carries a `meta({ id })`, so each lands in `$defs` under its name.
  const schema = z.toJSONSchema(z.union([hostFrame, runnerFrame]), { target: "draft-2020-12" });
  const document = {
    $schema: schema.$schema,
    title: "evalkit kernel wire protocol, version 1",
    description:
      "Generated from src/protocol/ by `npm run protocol:schema`; do not edit. One NDJSON line is one frame: " +
      "a host sends a HostFrame, a runner a RunnerFrame (docs/protocol.md).",
    oneOf: [{ $ref: "#/$defs/HostFrame" }, { $ref: "#/$defs/RunnerFrame" }],
    $defs: schema.$defs ?? {},
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
