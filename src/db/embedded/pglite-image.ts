// The initialised, empty cluster a new embedded data folder starts from. PGlite
// runs initdb on every first start, 6-9 s of CPU on a small machine; loading a
// dump of the folder initdb leaves takes about 2 s. `npm run build` makes that
// dump once (scripts/pglite-image.mjs) and puts it beside the compiled code,
// named by the PGlite version that made it: a PGlite of another version finds
// no image and runs initdb as before. The image holds no schema and no data:
// migrations run on it as on a folder initdb made.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { vector } from "@electric-sql/pglite-pgvector";
import { pgliteDist } from "./pglite-wasm.js";

/**
 * The extensions every PGlite the service opens loads: the migrations create
 * pg_trgm and btree_gin; pgvector is created only once recall by meaning is
 * set up (src/facts/embeddings/store.ts), and loading it costs a 50 KB bundle.
 */
export const PGLITE_EXTENSIONS = { pg_trgm, btree_gin, vector };

function pgliteVersion(): string {
  // The package's exports do not include its package.json: read it beside its entry point.
  let dir = pgliteDist();
  while (!existsSync(join(dir, "package.json"))) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
}

/**
 * Where the image is: dist/ at the package's root, from the compiled module
 * (dist/db/embedded/) and from its source (src/db/embedded/, tests) alike.
 */
export function pgliteImagePath(): string {
  return fileURLToPath(new URL(`../../../dist/pglite-initdb-${pgliteVersion()}.tar.gz`, import.meta.url));
}

/**
 * A data folder's tarball as PGlite's `loadDataDir` takes it. PGlite reads it only
 * through `arrayBuffer()`, which Node 20's own Blob answers by copying its bytes
 * back chunk by chunk: ~0.4 s of CPU for a migrated folder (43 MB), on every open.
 * This Blob hands over the bytes it was made from.
 */
export class TarballBlob extends Blob {
  constructor(private readonly tarball: Uint8Array) {
    super();
  }
  override get size(): number {
    return this.tarball.byteLength;
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.tarball;
    // A file read whole owns its buffer: no copy. A view into a larger or shared one is copied out.
    const own = buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength;
    return Promise.resolve(own ? buffer : this.tarball.slice().buffer);
  }
}

/** The image (PGlite's loadDataDir), or undefined when this build has none (initdb runs instead). */
export function readPgliteImage(): Blob | undefined {
  try {
    return new TarballBlob(readFileSync(pgliteImagePath()));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Makes the image unless this PGlite version's is there already; answers its path. */
export async function buildPgliteImage(): Promise<string> {
  const path = pgliteImagePath();
  if (existsSync(path)) return path;
  await mkdir(dirname(path), { recursive: true });
  const folder = await mkdtemp(join(tmpdir(), "am-pglite-image-"));
  try {
    const db = await PGlite.create(folder, { extensions: PGLITE_EXTENSIONS });
    try {
      const image = Buffer.from(await (await db.dumpDataDir("gzip")).arrayBuffer());
      // Written whole or not at all: two builds at once, or one interrupted, leave no half image.
      const partial = `${path}.${randomBytes(4).toString("hex")}.tmp`;
      await writeFile(partial, image);
      await rename(partial, path);
    } finally {
      await db.close();
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
  return path;
}
