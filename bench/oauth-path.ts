// The cost of the OAuth path: sequential whoami calls through /mcp (a static
// token: one token lookup) and /oauth/mcp (an OAuth access token: the same
// lookup plus the grant's audience check), interleaved in rounds in one run,
// against one in-process service on a fresh Postgres database:
//   node --no-warnings --import tsx bench/oauth-path.ts [calls-per-round] [rounds]
import { createServer } from "node:net";
import { createAgent, issueToken } from "../src/auth/store.js";
import { loadConfig } from "../src/config.js";
import { openPostgres } from "../src/db/postgres.js";
import { createLogger } from "../src/logger.js";
import { createClientsStore } from "../src/oauth/clients.js";
import { createGrantWithCode, exchangeCode } from "../src/oauth/grants.js";
import { startService } from "../src/serve.js";
import { connectClient } from "../test/support/service.js";
import { createDatabase } from "./lib/service.js";
import { round, summarize } from "./lib/stats.js";

const callsPerRound = Number(process.argv[2] ?? 300);
const rounds = Number(process.argv[3] ?? 4);
const baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

const port = await new Promise<number>((resolve) => {
  const s = createServer().listen(0, "127.0.0.1", () => {
    const p = (s.address() as { port: number }).port;
    s.close(() => resolve(p));
  });
});
const database = await createDatabase(baseUrl, `am_bench_oauth_${process.pid}`);
const config = loadConfig({ DATABASE_URL: database.url, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, OAUTH_MODE: "builtin", LOG_LEVEL: "warn", FIRST_START_OWNER: "false", AUTH_FAILURES_PER_MINUTE: "0" });
const db = openPostgres({ connectionString: database.url, poolMax: 10, connectTimeoutMs: 5000, statementTimeoutMs: 10_000, lockTimeoutMs: 3000 });
const service = await startService(config, { logger: createLogger("warn"), print: () => undefined, db });
try {
  const agent = await createAgent(db, { name: "bench", kind: "agent", writeScopes: ["shared"] });
  const human = await createAgent(db, { name: "boss", kind: "human", writeScopes: ["*"] });
  const staticToken = (await issueToken(db, "bench", null)).token;
  // A grant made directly (the consent page is not what is measured).
  await createClientsStore(db, { allowLoopbackMetadataDocuments: false }).registerClient!({ client_id: "bench-client", redirect_uris: ["http://127.0.0.1/cb"], token_endpoint_auth_method: "none" } as never);
  const code = await db.transaction((tx) =>
    createGrantWithCode(tx, { clientId: "bench-client", agentId: agent.id, approvedBy: human.id, resource: service.oauthMcpUrl!, codeChallenge: "x", redirectUri: "http://127.0.0.1/cb" }),
  );
  const { access_token } = await exchangeCode(db, { clientId: "bench-client", code, redirectUri: undefined, resource: undefined }, { accessTokenTtlSeconds: 3600, refreshTokenTtlSeconds: 86_400 });

  const paths = [
    { label: "/mcp (static token)", client: await connectClient(service.mcpUrl, staticToken), samples: [] as number[] },
    { label: "/oauth/mcp (OAuth access token)", client: await connectClient(service.oauthMcpUrl!, access_token), samples: [] as number[] },
  ];
  for (const p of paths) for (let i = 0; i < 50; i++) await p.client.callTool({ name: "whoami", arguments: {} });
  for (let r = 0; r < rounds; r++) {
    for (const p of paths) {
      for (let i = 0; i < callsPerRound; i++) {
        const t0 = performance.now();
        await p.client.callTool({ name: "whoami", arguments: {} });
        p.samples.push(performance.now() - t0);
      }
    }
  }
  console.log(`whoami, sequential, ${rounds} rounds x ${callsPerRound} calls per path (ms)`);
  console.log(`${"path".padEnd(34)} ${"p50".padStart(7)} ${"p95".padStart(7)} ${"mean".padStart(7)} ${"calls/s".padStart(8)}`);
  for (const p of paths) {
    const s = summarize(p.samples);
    console.log(`${p.label.padEnd(34)} ${String(round(s.p50)).padStart(7)} ${String(round(s.p95)).padStart(7)} ${String(round(s.mean)).padStart(7)} ${String(Math.round(1000 / s.mean)).padStart(8)}`);
  }
  for (const p of paths) await p.client.close();
} finally {
  await service.stop();
  await database.drop();
}
