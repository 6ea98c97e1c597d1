// `npm run protocol:schema`: writes docs/protocol.schema.json from the zod schemas in src/protocol/.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PROTOCOL_SCHEMA_FILE, renderProtocolSchema } from "../src/protocol/json-schema.js";

const target = fileURLToPath(new URL(`../${PROTOCOL_SCHEMA_FILE}`, import.meta.url));
writeFileSync(target, renderProtocolSchema());
// In the repository's own JSON style, so `npm run lint` passes on the generated file.
execFileSync("npx", ["biome", "format", "--write", target], { stdio: "ignore" });
console.log(`wrote ${PROTOCOL_SCHEMA_FILE}`);
