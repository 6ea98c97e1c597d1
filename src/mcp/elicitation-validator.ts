// The JSON Schema validator the MCP server hands the SDK: ajv, loaded when the first schema is checked.
//
// Why: the SDK's Server builds an ajv instance at construction, and importing it initialises ajv (~3 ms of a
// ~90 ms `evalkit mcp` start). The server only ever needs it for `elicitInput` form responses, which evalkit
// never requests but a user of `createEvalMcpServer().server` may. The bundle replaces the SDK's ajv provider
// module with src/mcp/ajv-provider-unbundled.ts, and this validator requires the SDK's own provider from
// node_modules (its CommonJS build) on first use.
import { createRequire } from "node:module";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";

type Provider = typeof import("@modelcontextprotocol/sdk/validation/ajv");

/** A validator with the SDK's ajv behaviour that loads ajv only when a schema is first checked. */
export function createLazyJsonSchemaValidator(): jsonSchemaValidator {
  let ajv: jsonSchemaValidator | undefined;
  return {
    getValidator(schema) {
      if (!ajv) {
        const { AjvJsonSchemaValidator } = createRequire(import.meta.url)(
          "@modelcontextprotocol/sdk/validation/ajv",
        ) as Provider;
        ajv = new AjvJsonSchemaValidator();
      }
      return ajv.getValidator(schema);
    },
  };
}
