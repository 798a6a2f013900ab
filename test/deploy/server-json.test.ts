// server.json (the MCP registry's description of this service) against the
// registry's JSON schema, vendored in test/fixtures (the tests use no network),
// and in step with package.json.
import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";

const read = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), "utf8")) as Record<string, unknown>;

describe("server.json", () => {
  const schema = read("test/fixtures/server.schema.json");
  const serverJson = read("server.json");
  // strict: false: the registry's schema annotates fields with "example", a keyword ajv does not know.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);

  it("is valid for the registry's schema, the version it names", () => {
    expect(validate(serverJson), ajv.errorsText(validate.errors)).toBe(true);
    expect(serverJson.$schema).toBe(schema.$id);
  });

  it("has the name, version and transport of this service", () => {
    const pkg = read("package.json");
    expect(serverJson.version).toBe(pkg.version);
    const remotes = serverJson.remotes as Array<{ type: string; url: string; headers?: Array<{ name: string; isSecret?: boolean }> }>;
    expect(remotes.map((r) => [r.type, new URL(r.url).pathname])).toEqual([
      ["streamable-http", "/mcp"],
      ["streamable-http", "/oauth/mcp"],
    ]);
    expect(remotes[0]!.headers).toMatchObject([{ name: "Authorization", isSecret: true }]);
  });

  it("would catch a broken description", () => {
    expect(validate({ ...serverJson, description: "x".repeat(101) })).toBe(false);
    expect(validate({ ...serverJson, remotes: [{ type: "websocket", url: "wss://x" }] })).toBe(false);
  });
});
