// The review app's ui:// resource: one self-contained page (src/facts/review/review-app/page.ts)
// that hosts with MCP Apps show for memory_review. Its CSP metadata allows no
// other origin: the page needs none, and its buttons reach the service only
// through the host (tools/call of memory_promote, as the caller).
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from "../../../mcp-sdk/index.js";
import type { FixedResourceDefinition } from "../../../mcp/tool.js";
import { reviewAppPage } from "./page.js";

export const REVIEW_APP_URI = "ui://agent-memory/review-queue.html";

/** memory_review's _meta: the App's resource, under the key current hosts read and the one older hosts read (as registerAppTool sets both). */
export const TOOL_UI_META = { ui: { resourceUri: REVIEW_APP_URI }, [RESOURCE_URI_META_KEY]: REVIEW_APP_URI };

/** Empty lists: no network connection and no script, style, image or font from anywhere else. */
const UI_META = { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } };

export const reviewAppResource: FixedResourceDefinition = {
  name: "review-app",
  uri: REVIEW_APP_URI,
  title: "Review queue app",
  description: "The review queue as an MCP App (memory_review opens it): each draft with its diff, Confirm and Deprecate.",
  mimeType: RESOURCE_MIME_TYPE,
  meta: UI_META,
  async read(uri) {
    return { contents: [{ uri: uri.href, mimeType: RESOURCE_MIME_TYPE, text: reviewAppPage(), _meta: UI_META }] };
  },
};
