// `npm run protocol:schema`: writes docs/protocol.schema.json from the zod schemas in src/protocol/.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PROTOCOL_SCHEMA_FILE, renderProtocolSchema } from "../src/protocol/json-schema.js";

const target = fileURLToPath(new URL(`../${PROTOCOL_SCHEMA_FILE}`, import.meta.url));
writeFileSync(target, renderProtocolSchema());
console.log(`wrote ${PROTOCOL_SCHEMA_FILE}`);
