// There is no Docker engine here, so the compose file and Dockerfile are checked
// by reading them: the service waits for a healthy database, and every variable
// they use is documented.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const composeText = read("docker-compose.yml");
const compose = parse(composeText) as {
  services: Record<string, { image?: string; build?: unknown; depends_on?: Record<string, { condition: string }>; healthcheck?: { test: unknown }; environment?: Record<string, string>; volumes?: string[]; ports?: string[] }>;
  volumes: Record<string, unknown>;
};
const exampleKeys = new Set([...read(".env.example").matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));

describe("docker-compose.yml", () => {
  it("runs Postgres with a health check and a named volume", () => {
    const pg = compose.services.postgres!;
    expect(pg.image).toMatch(/^postgres:\d+/);
    expect(pg.healthcheck?.test).toBeDefined();
    const volume = pg.volumes?.[0]?.split(":")[0];
    expect(volume && compose.volumes).toHaveProperty(volume!);
  });

  it("builds the service from the Dockerfile and starts it only after the database is healthy", () => {
    const svc = compose.services["agent-memory"]!;
    expect(svc.build).toBe(".");
    expect(svc.depends_on?.postgres?.condition).toBe("service_healthy");
    expect(svc.environment?.DATABASE_URL).toMatch(/^postgres:\/\/.+@postgres:5432\//);
    expect(svc.environment?.HOST).toBe("0.0.0.0");
    expect(svc.healthcheck?.test).toBeDefined();
  });

  it("uses only variables documented in .env.example", () => {
    const used = [...composeText.matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!);
    expect(used.length).toBeGreaterThan(3);
    for (const name of used) expect(exampleKeys, `${name} is used by docker-compose.yml`).toContain(name);
    for (const name of Object.keys(compose.services["agent-memory"]!.environment ?? {})) {
      expect(exampleKeys, `${name} is set for the service`).toContain(name);
    }
  });
});

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");
  it("is multi-stage, production, non-root, and runs serve", () => {
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/NODE_ENV=production/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/CMD \["node", "dist\/cli\/main\.js", "serve"\]/);
  });
});
