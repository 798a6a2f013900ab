// The service version, from package.json (read once).
import { readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };

export const SERVICE_VERSION: string = pkg.version;
