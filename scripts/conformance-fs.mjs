// node:fs plus the Node 22 globSync, for the conformance suite on Node 20 (loaded only by
// scripts/conformance-shim.mjs). The suite calls globSync(pattern, { cwd }) and expects paths
// relative to cwd, which is what tinyglobby returns.
import fs from "node:fs";
import { globSync as tinyGlobSync } from "tinyglobby";

export * from "node:fs";
export default fs;
export function globSync(pattern, options = {}) {
  return tinyGlobSync(pattern, { cwd: options.cwd, onlyFiles: false, expandDirectories: false });
}
