// The layering of src/, checked by `npm run depcheck` (part of `npm test`).
// Drawn and explained in docs/architecture.md; keep the two in step.
//
//   lower layers   config/, db/, secrets/, tracing/, mcp-sdk/, errors, text, scope-name, limits, import-file, logger, metrics (and metrics-workers), paging, version, app-deps
//   auth           auth/
//   MCP helpers    mcp/ (defineTool and the one wrapper of every callback)
//   capabilities   facts/, ledger/, graph/, whoami/, snapshots/, prompts/
//   composition    server/ (the capability list and the MCP server factory), http/, cli/, serve.ts and start/, console/, oauth/
//
// Each layer may import only the layers above it in this list. Inside the
// composition, imports go one way too:
//   serve.ts and start/, cli/  →  http/ (the app)  →  oauth/, console/  →  mcp-endpoint/  →  server/
const LOWER = "^src/(errors|text|scope-name|limits|import-file|logger|metrics|metrics-workers|paging|version|app-deps)\\.ts$|^src/(db|config|secrets|tracing|mcp-sdk)/";
const AUTH = "^src/auth/";
const MCP_HELPERS = "^src/mcp/";
const CAPABILITIES = "^src/(facts|ledger|graph|whoami|snapshots|prompts)/";
const COMPOSITION = "^src/(serve\\.ts|start/|server/|mcp-endpoint/|http/|cli/|console/|oauth/)";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "sdk-in-its-folder",
      severity: "error",
      comment: "Only src/mcp-sdk/ imports the MCP SDK (@modelcontextprotocol/*): the one seam an SDK move changes.",
      from: { path: "^src/", pathNot: "^src/mcp-sdk/" },
      to: { path: "node_modules/@modelcontextprotocol/" },
    },
    {
      name: "sdk-seam-knows-only-the-sdk",
      severity: "error",
      comment: "src/mcp-sdk/ adapts the SDK and imports nothing of the service.",
      from: { path: "^src/mcp-sdk/" },
      to: { path: "^src/", pathNot: "^src/mcp-sdk/" },
    },
    {
      name: "no-circular",
      severity: "error",
      comment: "Modules must not depend on each other in a circle: it hides which one is the lower layer.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "lower-layers-stay-low",
      severity: "error",
      comment: "config, db, errors, text, scope-name, limits, import-file, logger and metrics are used by everyone and use none of the layers built on them.",
      from: { path: LOWER },
      to: { path: [AUTH, MCP_HELPERS, CAPABILITIES, COMPOSITION] },
    },
    {
      name: "auth-below-capabilities",
      severity: "error",
      comment: "auth (agents, tokens, scopes, the caller) knows no capability and no composition.",
      from: { path: AUTH },
      to: { path: [MCP_HELPERS, CAPABILITIES, COMPOSITION] },
    },
    {
      name: "mcp-helpers-know-no-capability",
      severity: "error",
      comment: "defineTool and friends are what capabilities build on; only the composition (server/capabilities.ts) lists capabilities.",
      from: { path: MCP_HELPERS },
      to: { path: [CAPABILITIES, COMPOSITION] },
    },
    {
      name: "capabilities-below-composition",
      severity: "error",
      comment: "A capability never imports the composition layer (server/, mcp-endpoint/, http/, cli/, serve.ts, console/, oauth/).",
      from: { path: CAPABILITIES },
      to: { path: COMPOSITION },
    },
    {
      name: "server-factory-below-http",
      severity: "error",
      comment: "server/ builds the MCP server from the capability list; it serves nothing, so it imports no HTTP surface, CLI or serve.ts.",
      from: { path: "^src/server/" },
      to: { path: "^src/(serve\\.ts|start/|mcp-endpoint/|http/|cli/|console/|oauth/)" },
    },
    {
      name: "mcp-endpoint-below-surfaces",
      severity: "error",
      comment: "mcp-endpoint/ (bearer auth, the failed-attempt limit, the MCP POST handler) is what http/, oauth/ and console/ have in common, so it imports none of them.",
      from: { path: "^src/mcp-endpoint/" },
      to: { path: "^src/(serve\\.ts|start/|http/|cli/|console/|oauth/)" },
    },
    {
      name: "surfaces-below-http-app",
      severity: "error",
      comment: "http/ (the app) mounts oauth/ and console/; they never import it back (their shared pieces are in mcp-endpoint/), nor each other.",
      from: { path: "^src/(oauth|console)/" },
      to: { path: "^src/(serve\\.ts|start/|http/|cli/|console/|oauth/)", pathNot: "^src/$1/" },
    },
    {
      name: "surfaces-use-public-exports",
      severity: "error",
      comment: "The composition (the console, the CLI, the HTTP app, serve.ts and start/) calls a capability through its index.ts only: one public face, so what is meant to be called from outside is written down in one place.",
      from: { path: COMPOSITION, pathNot: "^src/server/" },
      to: { path: CAPABILITIES, pathNot: "^src/(facts|ledger|graph|whoami|snapshots|prompts)/index\\.ts$" },
    },
    {
      name: "capabilities-independent",
      severity: "error",
      comment: "facts, ledger, graph and whoami never import each other (or snapshots or prompts).",
      from: { path: "^src/(facts|ledger|graph|whoami)/" },
      to: { path: CAPABILITIES, pathNot: "^src/$1/" },
    },
    {
      name: "facts-base-below-its-parts",
      severity: "error",
      comment: "What a fact is (src/facts/*.ts: its model, rules, SQL, messages; tools/schemas.ts) is shared by lifecycle, recall, review and trust, and imports none of them; only index.ts assembles them.",
      from: { path: "^src/facts/([^/]+\\.ts|tools/)", pathNot: "^src/facts/index\\.ts$" },
      to: { path: "^src/facts/(lifecycle|recall|review|trust)/" },
    },
    {
      name: "facts-trust-below-lifecycle",
      severity: "error",
      comment: "Trust (supersession, redaction) is what storing, recalling and reviewing rely on; it knows none of them.",
      from: { path: "^src/facts/trust/" },
      to: { path: "^src/facts/(lifecycle|recall|review)/" },
    },
    {
      name: "facts-lifecycle-below-recall-and-review",
      severity: "error",
      comment: "The lifecycle (store, get, list, history, replay) is what recall and review read; it knows neither.",
      from: { path: "^src/facts/lifecycle/" },
      to: { path: "^src/facts/(recall|review)/" },
    },
    {
      name: "facts-recall-and-review-apart",
      severity: "error",
      comment: "Recall (answering keywords) and review (queues, promotion, the review app, health) change for different reasons and never import each other.",
      from: { path: "^src/facts/(recall|review)/" },
      to: { path: "^src/facts/(recall|review)/", pathNot: "^src/facts/$1/" },
    },
    {
      name: "snapshots-use-public-exports",
      severity: "error",
      comment: "snapshots spans facts, the ledger and the graph through their index.ts exports only, never their SQL or internals.",
      from: { path: "^src/snapshots/" },
      to: { path: CAPABILITIES, pathNot: ["^src/snapshots/", "^src/(facts|ledger|graph)/index\\.ts$"] },
    },
    {
      name: "prompts-use-public-exports",
      severity: "error",
      comment: "prompts name the rules of facts and the ledger through their index.ts exports only.",
      from: { path: "^src/prompts/" },
      to: { path: CAPABILITIES, pathNot: ["^src/prompts/", "^src/(facts|ledger)/index\\.ts$"] },
    },
    {
      name: "capabilities-use-the-database-core",
      severity: "error",
      comment: "Capabilities and auth see a database through src/db/core/ (the Database interface, errors, retry) and src/db/sql/ (SQL helpers); which kind it is, the schema's upgrade and the embedded folder are the composition's business.",
      from: { path: [CAPABILITIES, AUTH] },
      to: { path: "^src/db/(postgres|embedded|schema)/" },
    },
    {
      name: "database-kinds-apart",
      severity: "error",
      comment: "Postgres (src/db/postgres/) and the embedded database (src/db/embedded/) share only the core; neither imports the other.",
      from: { path: "^src/db/(postgres|embedded)/" },
      to: { path: "^src/db/(postgres|embedded)/", pathNot: "^src/db/$1/" },
    },
    {
      name: "database-core-knows-no-kind",
      severity: "error",
      comment: "The core is what every kind implements; only open.ts, which picks the kind a URL names, imports one.",
      from: { path: "^src/db/(core|sql)/", pathNot: "^src/db/core/open\\.ts$" },
      to: { path: "^src/db/(postgres|embedded|schema)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js"] },
  },
};
