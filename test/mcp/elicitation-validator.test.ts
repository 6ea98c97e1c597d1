// The server's JSON Schema validator (used by elicitInput form responses) checks like the SDK's ajv default.
import { describe, expect, it } from "vitest";
import { createLazyJsonSchemaValidator } from "../../src/mcp/elicitation-validator.js";

describe("createLazyJsonSchemaValidator", () => {
  it("accepts content that matches the requested schema and names what is wrong otherwise", () => {
    const validate = createLazyJsonSchemaValidator().getValidator<{ name: string }>({
      type: "object",
      properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 } },
      required: ["name"],
    });
    expect(validate({ name: "Ada", age: 36 })).toEqual({
      valid: true,
      data: { name: "Ada", age: 36 },
      errorMessage: undefined,
    });
    const missing = validate({ age: 36 });
    expect(missing.valid).toBe(false);
    expect(missing.errorMessage).toMatch(/name/);
    expect(validate({ name: "Ada", age: -1 }).valid).toBe(false);
  });
});
