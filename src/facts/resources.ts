// Facts as MCP resources, memory://facts/{scope}/{name}, for clients that
// browse resources rather than call tools. Same scope rules as the tools: a
// fact the caller cannot read does not exist for it.
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { AppDeps } from "../app-deps.js";
import { callerFromAuthInfo } from "../auth/caller.js";
import { classifyDatabaseError } from "../db/classify.js";
import { fullFactText } from "./format.js";
import { factUri } from "./model.js";
import { getFact, listFacts } from "./read.js";

// resources/list has no paging through McpServer's template callback, so the
// listing is bounded: the most recently changed facts. memory_list pages through all.
export const RESOURCE_LIST_LIMIT = 100;

// The JSON-RPC code MCP uses for "resource not found".
const RESOURCE_NOT_FOUND = -32002;

type Extra = { authInfo?: AuthInfo | undefined };

export function registerFactResources(server: McpServer, deps: AppDeps): void {
  const template = new ResourceTemplate("memory://facts/{scope}/{name}", {
    list: async (extra: Extra) =>
      guarded(deps, "list", async () => {
        const { facts } = await listFacts(deps.db, callerFromAuthInfo(extra.authInfo), { limit: RESOURCE_LIST_LIMIT }, { staleAfterDays: deps.config.facts.staleAfterDays });
        return {
          resources: facts.map((f) => ({
            uri: factUri(f.scope, f.name),
            name: `${f.scope}/${f.name}`,
            title: `[${f.status}] ${f.name}`,
            description: f.description,
            mimeType: "text/plain",
          })),
        };
      }),
  });
  server.registerResource(
    "fact",
    template,
    {
      title: "Fact",
      description: `A fact of the shared memory with its status and history. Listing shows the ${RESOURCE_LIST_LIMIT} most recently changed facts you can read; use memory_list to page through all.`,
      mimeType: "text/plain",
    },
    async (uri, variables, extra: Extra) =>
      guarded(deps, "read", async () => {
        const caller = callerFromAuthInfo(extra.authInfo);
        const fact = await getFact(deps.db, caller, { scope: String(variables.scope), name: String(variables.name) });
        return { contents: [{ uri: uri.href, mimeType: "text/plain", text: fullFactText(fact) }] };
      }),
  );
}

/** Known failures become JSON-RPC errors with their vetted message; anything else is logged and hidden. */
async function guarded<T>(deps: AppDeps, what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const known = classifyDatabaseError(error);
    if (known) {
      const code = known.code === "not_found" ? RESOURCE_NOT_FOUND : known.code === "invalid" ? ErrorCode.InvalidParams : ErrorCode.InternalError;
      throw new McpError(code, known.message);
    }
    deps.logger.error({ err: error, resource: "fact", what }, "resource request failed");
    throw new McpError(ErrorCode.InternalError, "Internal error while reading facts; nothing was changed.");
  }
}
