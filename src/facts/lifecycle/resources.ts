// Facts as MCP resources, memory://facts/{scope}/{name}, for clients that
// browse resources rather than call tools. Same scope rules as the tools: a
// fact the caller cannot read does not exist for it. Errors are mapped by the
// MCP layer (src/mcp/guard.ts), as for tools.
import { defineResource } from "../../mcp/tool.js";
import { fullFactText } from "./format.js";
import { factUri } from "../model.js";
import { listFacts } from "./list.js";
import { getFact } from "./get.js";
import { completeFactName, completeReadableScope } from "./complete.js";

// resources/list has no paging through McpServer's template callback, so the
// listing is bounded: the most recently changed facts. memory_list pages through all.
const RESOURCE_LIST_LIMIT = 100;

export const factResource = defineResource({
  name: "fact",
  uriTemplate: "memory://facts/{scope}/{name}",
  title: "Fact",
  description: `A fact of the shared memory with its status and history. Listing shows the ${RESOURCE_LIST_LIMIT} most recently changed facts you can read; use memory_list to page through all.`,
  mimeType: "text/plain",
  // Only scopes the caller may read, and names in the scope already given (none in a scope it may not read).
  complete: {
    scope: (prefix, { deps, caller }) => completeReadableScope(deps.db, caller, prefix),
    name: (prefix, { deps, caller }, args) => completeFactName(deps.db, caller, args.scope, prefix),
  },
  async list({ caller, deps, served }) {
    const { facts } = await listFacts(deps.db, caller, { limit: RESOURCE_LIST_LIMIT }, { staleAfterDays: deps.config.facts.staleAfterDays, scanMax: deps.config.limits.listScanMax });
    served(facts);
    return {
      resources: facts.map((f) => ({
        uri: factUri(f.scope, f.name),
        name: `${f.scope}/${f.name}`,
        title: `[${f.status}] ${f.name}`,
        description: f.description,
        mimeType: "text/plain",
      })),
    };
  },
  async read(uri, variables, { caller, deps, served }) {
    const fact = await getFact(deps.db, caller, { scope: String(variables.scope), name: String(variables.name) });
    served([fact]);
    return { contents: [{ uri: uri.href, mimeType: "text/plain", text: fullFactText(fact) }] };
  },
});
