// The layering of src/, checked by `npm run depcheck` (part of `npm test`).
// Drawn and explained in docs/architecture.md; keep the two in step.
//
//   lower layers   config (and config/), db/, errors, text, limits, import-file, logger, metrics, paging, version, app-deps
//   auth           auth/
//   MCP helpers    mcp/ (defineTool and the one wrapper of every callback)
//   capabilities   facts/, ledger/, graph/, whoami/, snapshots/, prompts/
//   composition    server/ (the capability list and the MCP server factory), http/, cli/, serve.ts, console/, oauth/
//
// Each layer may import only the layers above it in this list.
const LOWER = "^src/(config|errors|text|limits|import-file|logger|metrics|paging|version|app-deps)\\.ts$|^src/(db|config)/";
const AUTH = "^src/auth/";
const MCP_HELPERS = "^src/mcp/";
const CAPABILITIES = "^src/(facts|ledger|graph|whoami|snapshots|prompts)/";
const COMPOSITION = "^src/(serve\\.ts|server/|http/|cli/|console/|oauth/)";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
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
      comment: "config, db, errors, text, limits, import-file, logger and metrics are used by everyone and use none of the layers built on them.",
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
      comment: "A capability never imports the composition layer (server/, http/, cli/, serve.ts, console/, oauth/).",
      from: { path: CAPABILITIES },
      to: { path: COMPOSITION },
    },
    {
      name: "capabilities-independent",
      severity: "error",
      comment: "facts, ledger, graph and whoami never import each other (or snapshots or prompts).",
      from: { path: "^src/(facts|ledger|graph|whoami)/" },
      to: { path: CAPABILITIES, pathNot: "^src/$1/" },
    },
    {
      name: "snapshots-use-public-exports",
      severity: "error",
      comment: "snapshots spans facts and the ledger through their index.ts exports only, never their SQL or internals.",
      from: { path: "^src/snapshots/" },
      to: { path: CAPABILITIES, pathNot: ["^src/snapshots/", "^src/(facts|ledger)/index\\.ts$"] },
    },
    {
      name: "prompts-use-public-exports",
      severity: "error",
      comment: "prompts name the rules of facts and the ledger through their index.ts exports only.",
      from: { path: "^src/prompts/" },
      to: { path: CAPABILITIES, pathNot: ["^src/prompts/", "^src/(facts|ledger)/index\\.ts$"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
