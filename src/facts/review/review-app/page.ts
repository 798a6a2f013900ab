// The review app's page, built once per process: the extension's browser
// bundle (MCP Apps' browser bundle: src/mcp-sdk/apps.ts)
// and the app's own script and style, all inline, under a CSP that allows only
// those exact inline blocks (by hash) and nothing from any origin.
import { createHash } from "node:crypto";
import { appBundle } from "../../../mcp-sdk/index.js";
import { APP_SCRIPT } from "./script.js";
import { APP_STYLE } from "./style.js";

/**
 * The bundle is an ES module ending in `export{local as Name,…}`; inline, the
 * app's script reads the same names from one object instead. Fails at the
 * first read of the page if a new release changes that shape.
 */
function extAppsBundle(): string {
  const { path, source } = appBundle();
  const exported = /export\s*\{([^}]*)\};?\s*$/.exec(source);
  if (!exported) throw new Error(`${path} no longer ends in one export list: the review app cannot inline it.`);
  const names = exported[1]!.split(",").map((entry) => {
    const [local, name] = entry.trim().split(/\s+as\s+/);
    return `${JSON.stringify(name ?? local)}:${local}`;
  });
  // A "</script" inside would end the inline block early; the bundle has none today, and the escape is the same string in JS.
  return `${source.slice(0, exported.index)}\nconst extApps={${names.join(",")}};\n`.replaceAll("</script", "<\\/script");
}

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

let built: string | undefined;

export function reviewAppPage(): string {
  if (built !== undefined) return built;
  // In a block of its own: the bundle's minified top-level names (el, app, …) would clash with the app's.
  const script = `${extAppsBundle()}\n{${APP_SCRIPT}}\n`;
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(APP_STYLE)}`,
    "img-src 'none'",
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  built = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Review queue</title>
<style>${APP_STYLE}</style>
</head>
<body>
<main id="app" aria-busy="true"><h1>Review queue</h1><p id="summary" role="status">Waiting for the queue…</p><ol id="drafts" class="queue"></ol><section id="stale-section" hidden><h2>Stale facts</h2><ol id="stale" class="queue"></ol></section></main>
<script type="module">${script}</script>
</body>
</html>
`;
  return built;
}
