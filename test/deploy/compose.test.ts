// There is no Docker engine here, so the compose file and Dockerfile are checked
// by reading them: the service waits for a healthy database, and every variable
// they use is documented.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const composeText = read("docker-compose.yml");
const compose = parse(composeText) as {
  services: Record<
    string,
    {
      image?: string;
      build?: unknown;
      command?: string[];
      depends_on?: Record<string, { condition: string }>;
      healthcheck?: { test: unknown };
      environment?: Record<string, string>;
      volumes?: string[];
      ports?: string[];
      read_only?: boolean;
      tmpfs?: string[];
      cap_drop?: string[];
      cap_add?: string[];
      security_opt?: string[];
    }
  >;
  volumes: Record<string, unknown>;
};
const exampleKeys = new Set([...read(".env.example").matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));

describe("docker-compose.yml", () => {
  it("runs Postgres with a health check and a named volume", () => {
    const pg = compose.services.postgres!;
    expect(pg.image).toMatch(/^pgvector\/pgvector:pg\d+$/);
    expect(pg.healthcheck?.test).toBeDefined();
    const volume = pg.volumes?.[0]?.split(":")[0];
    expect(volume && compose.volumes).toHaveProperty(volume!);
  });

  it("builds the service from the Dockerfile and starts it only after the database is healthy and migrated", () => {
    const svc = compose.services["agent-memory"]!;
    expect(svc.build).toBe(".");
    expect(svc.depends_on?.postgres?.condition).toBe("service_healthy");
    expect(svc.depends_on?.migrate?.condition).toBe("service_completed_successfully");
    expect(svc.environment?.DATABASE_URL).toMatch(/^postgres:\/\/.+@postgres:5432\//);
    expect(svc.environment?.HOST).toBe("0.0.0.0");
    expect(svc.healthcheck?.test).toBeDefined();
  });

  it("publishes PORT and points PUBLIC_URL at it unless .env names another", () => {
    const svc = compose.services["agent-memory"]!;
    expect(svc.ports).toContain("127.0.0.1:${PORT:-8080}:8080");
    expect(svc.environment?.PUBLIC_URL).toBe("${PUBLIC_URL:-http://localhost:${PORT:-8080}}");
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

describe("docker-compose.yml hardening", () => {
  it("has no default database password: compose refuses to start without one", () => {
    expect(composeText).not.toMatch(/PASSWORD:-/);
    expect(composeText).not.toMatch(/agent-memory-dev/);
    const pg = compose.services.postgres!.environment!;
    expect(pg.POSTGRES_PASSWORD).toBe("${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD in .env}");
    expect(pg.AGENT_MEMORY_DB_PASSWORD).toBe("${AGENT_MEMORY_DB_PASSWORD:?set AGENT_MEMORY_DB_PASSWORD in .env}");
    expect(read(".env.example")).toMatch(/^POSTGRES_PASSWORD=$/m);
    expect(read(".env.example")).toMatch(/^AGENT_MEMORY_DB_PASSWORD=$/m);
  });

  it("runs the service as the non-superuser role agent_memory, and migrations as the schema's owner", () => {
    const svc = compose.services["agent-memory"]!;
    expect(svc.environment?.DATABASE_URL).toBe("postgres://agent_memory:${AGENT_MEMORY_DB_PASSWORD:?set AGENT_MEMORY_DB_PASSWORD in .env}@postgres:5432/agent_memory");
    const migrate = compose.services.migrate!;
    expect(migrate.command).toEqual(["node", "dist/cli/main.js", "migrate"]);
    expect(migrate.environment?.DATABASE_URL).toMatch(/@postgres:5432\/agent_memory\?options=-c%20role%3Dagent_memory_owner$/);
    // The init script creating the roles is mounted where the image runs it, once.
    expect(compose.services.postgres!.volumes).toContain("./docker/postgres-init:/docker-entrypoint-initdb.d:ro");
    const roles = read("docker/postgres-init/sql/roles.sql").replace(/^--.*$/gm, "");
    expect(roles).toMatch(/create role :"app_role" login password :'app_password' nosuperuser nocreatedb nocreaterole/);
    expect(roles).toMatch(/alter schema public owner to :"owner_role"/);
    expect(roles).toMatch(/grant select, insert, update, delete on tables to :"app_role"/);
    expect(roles).not.toMatch(/truncate|grant all|\bsuperuser/i);
    expect(read("docker/postgres-init/10-agent-memory-roles.sh")).toMatch(/-v app_role=agent_memory /);
  });

  it("drops capabilities and privilege escalation, with read-only root file systems", () => {
    for (const name of ["agent-memory", "migrate", "postgres"]) {
      const svc = compose.services[name]!;
      expect(svc.read_only, name).toBe(true);
      expect(svc.cap_drop, name).toEqual(["ALL"]);
      expect(svc.security_opt, name).toContain("no-new-privileges:true");
    }
    // Only what the postgres entrypoint needs to chown its volume and drop to the postgres user.
    expect(compose.services.postgres!.cap_add).toEqual(["CHOWN", "DAC_OVERRIDE", "FOWNER", "SETGID", "SETUID"]);
    expect(compose.services["agent-memory"]!.cap_add).toBeUndefined();
    expect(compose.services["agent-memory"]!.tmpfs).toContain("/data:uid=1000,gid=1000,mode=0700");
  });

  it("tells how to get the first token without reading logs", () => {
    expect(composeText).toMatch(/docker compose exec agent-memory agent-memory token issue owner/);
    expect(composeText).not.toMatch(/docker compose logs/);
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
