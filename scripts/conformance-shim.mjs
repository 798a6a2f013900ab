// Node 20 shim for @modelcontextprotocol/conformance (a dev check, see docs/conformance.md).
//
// The suite's bundle does `import { globSync } from "fs"`, which exists from Node 22 on.
// Setting fs.globSync at run time is not enough: the named exports of the "fs" ES module
// are fixed when it loads. So this preload registers a resolve hook that hands the suite's
// own "fs" imports a small module re-exporting node:fs plus a globSync built on tinyglobby
// (a devDependency). Nothing else sees the substitute; on Node 22+ the hook does nothing.
//
// Use: node --import ./scripts/conformance-shim.mjs node_modules/@modelcontextprotocol/conformance/dist/index.js …
import fs from "node:fs";
import { register } from "node:module";

if (typeof fs.globSync !== "function") {
  const hooks = `
    const SHIM = ${JSON.stringify(new URL("./conformance-fs.mjs", import.meta.url).href)};
    export async function resolve(specifier, context, next) {
      if ((specifier === "fs" || specifier === "node:fs") && context.parentURL?.includes("/@modelcontextprotocol/conformance/")) {
        return { url: SHIM, shortCircuit: true };
      }
      return next(specifier, context);
    }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}
