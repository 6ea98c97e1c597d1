// Stands in, inside dist/'s bundles, for the SDK's validation/ajv-provider.js (see elicitation-validator.ts):
// evalkit always passes its own validator, so the SDK's default is never built and ajv is not bundled.
export class AjvJsonSchemaValidator {
  constructor() {
    throw new Error(
      "evalkit bundles the MCP SDK without ajv: pass a jsonSchemaValidator (src/mcp/elicitation-validator.ts)",
    );
  }
}
