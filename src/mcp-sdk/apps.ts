// MCP Apps (@modelcontextprotocol/ext-apps): the review app's resource type and
// the tool _meta key hosts read, and the extension's browser bundle, which the
// page inlines (read from node_modules, never a CDN).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from "@modelcontextprotocol/ext-apps/server";

export { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY };

/** The extension's browser bundle (an ES module), and where it was read. */
export function appBundle(): { path: string; source: string } {
  const path = createRequire(import.meta.url).resolve("@modelcontextprotocol/ext-apps/app-with-deps");
  return { path, source: readFileSync(path, "utf8") };
}
