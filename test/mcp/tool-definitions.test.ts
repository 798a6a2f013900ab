// What a model reads of tools/list (each tool's name, description and input
// schema) costs context in every conversation that connects the service, so its
// size has a budget; and the output schemas stay free of `type: [..., "null"]`
// unions, which MCP Inspector's strict mode flags (an absent field says "none").
import { describe, expect } from "vitest";
import { serviceTest } from "../support/service-test.js";

/** Bytes of JSON a model is shown for all the tools together. */
const MODEL_VIEW_BUDGET_BYTES = 20_000;

const test = serviceTest({ agents: { reader: {} } });

/** Every place in a JSON schema where a type list includes "null", by path. */
function nullableTypes(schema: unknown, path: string): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, i) => nullableTypes(item, `${path}[${i}]`));
  if (typeof schema !== "object" || schema === null) return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === "type" && Array.isArray(value) && value.includes("null")) found.push(path);
    if (key === "anyOf" && Array.isArray(value) && value.some((v) => (v as { type?: unknown }).type === "null")) found.push(path);
    found.push(...nullableTypes(value, `${path}.${key}`));
  }
  return found;
}

describe("tools/list as a model sees it", () => {
  test(`keeps names, descriptions and input schemas within ${MODEL_VIEW_BUDGET_BYTES} bytes`, async ({ clients: { reader } }) => {
    const { tools } = await reader.listTools();
    // The dialect stamp ($schema) is the SDK's, the same on every tool: what the budget holds to is ours.
    const modelView = tools.map(({ name, description, inputSchema: { $schema: _dialect, ...inputSchema } }) => ({ name, description, inputSchema }));
    const bytes = Buffer.byteLength(JSON.stringify(modelView));
    const perTool = modelView.map((t) => `${t.name} ${Buffer.byteLength(JSON.stringify(t))}`).join(", ");
    expect(bytes, `model view of ${tools.length} tools is ${bytes} bytes (${perTool})`).toBeLessThanOrEqual(MODEL_VIEW_BUDGET_BYTES);
  });

  test("declares no nullable type unions in output schemas", async ({ clients: { reader } }) => {
    const { tools } = await reader.listTools();
    const nullable = tools.flatMap((t) => nullableTypes(t.outputSchema, t.name));
    expect(nullable).toEqual([]);
  });
});
