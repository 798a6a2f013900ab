// The folder side: atomic writes, finding the files an export owns, and the
// files an import reads. Nothing here touches a file it does not recognise.
import { randomBytes } from "node:crypto";
import type { Dirent } from "node:fs";
import { lstat, mkdir, open, readdir, readFile, realpath, rename, rm, rmdir } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { invalid } from "../errors.js";
import { FACT_TYPES, NAME_PATTERN } from "../facts/index.js";
import { SCOPE_PATTERN } from "../scope-name.js";
import { GRAPH_FILE, HISTORY_MARKER } from "./model.js";

/**
 * The export target, resolved once (a target that is itself a link is the
 * operator's choice and is followed here, once).
 */
export async function resolveTarget(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  return realpath(dir);
}

/**
 * Every path an export writes must resolve inside its target. Fact bodies are
 * written by agents, so a symbolic link inside the target (a scope folder, a
 * fact file, ledger.jsonl) pointing elsewhere would let them land anywhere the
 * operator may write. Any link on the way from `root` (already resolved) to
 * `file` is refused, with the path to fix; nothing is followed.
 */
export async function validateInsideTarget(root: string, file: string): Promise<void> {
  const rel = relative(root, file);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) throw invalid(`export: ${file} is outside the target folder ${root}; nothing was written there.`);
  let current = root;
  for (const part of rel.split(sep)) {
    current = join(current, part);
    const info = await lstat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    });
    if (!info) return;
    if (info.isSymbolicLink()) {
      throw invalid(
        `export: ${relative(root, current)} in ${root} is a symbolic link; an export writes only real files and folders inside its target. ` +
          `Remove the link (or export to another folder) and run the export again.`,
      );
    }
  }
}

/** A sibling temp file that import and export both skip (dot files), renamed over the target. */
const tempName = (file: string): string => join(dirname(file), `.${randomBytes(6).toString("hex")}.tmp`);

/**
 * Writes `content` to `file` unless it already holds exactly that (so an
 * unchanged fact keeps its file untouched). Atomic: readers see the old or the
 * new file, never half of one. Returns true when the file changed.
 */
export async function writeIfChanged(file: string, content: string): Promise<boolean> {
  const current = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (current === content) return false;
  await mkdir(dirname(file), { recursive: true });
  await writeAtomically(file, async (write) => write(content));
  return true;
}

/** Streams into a temp file and renames it over `file` once complete; removes the temp file on failure. */
export async function writeAtomically(file: string, produce: (write: (chunk: string) => Promise<void>) => Promise<void>): Promise<void> {
  const temp = tempName(file);
  const handle = await open(temp, "w");
  try {
    await produce(async (chunk) => {
      await handle.write(chunk);
    });
    await handle.sync();
    await handle.close();
    await rename(temp, file);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  }
}

const entries = async (dir: string): Promise<Dirent[]> =>
  readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });

/** `<type>_<name>.md`, the file name an export gives a fact. */
function isFactFileName(file: string): boolean {
  if (!file.endsWith(".md")) return false;
  const stem = file.slice(0, -3);
  const sep = stem.indexOf("_");
  if (sep < 0) return false;
  const name = stem.slice(sep + 1);
  return (FACT_TYPES as readonly string[]).includes(stem.slice(0, sep)) && NAME_PATTERN.test(name);
}

/**
 * Files a previous export wrote: `<scope>/<type>_<name>.md` whose text has the
 * History marker line, and `<scope>/graph.jsonl`. Relative paths with "/".
 */
export async function exportedFiles(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const dir of await entries(root)) {
    if (!dir.isDirectory() || !SCOPE_PATTERN.test(dir.name)) continue;
    for (const file of await entries(join(root, dir.name))) {
      if (file.isFile() && file.name === GRAPH_FILE) found.push(`${dir.name}/${file.name}`);
      if (!file.isFile() || !isFactFileName(file.name)) continue;
      const text = await readFile(join(root, dir.name, file.name), "utf8");
      if (text.startsWith("---\n") && text.includes(`\n${HISTORY_MARKER}\n`)) found.push(`${dir.name}/${file.name}`);
    }
  }
  return found.sort();
}

/** Removes `rel` and, if that left its folder empty, the folder (git keeps no empty folders either). */
export async function removeExported(root: string, rel: string): Promise<void> {
  await rm(join(root, rel));
  const folder = join(root, dirname(rel));
  if ((await entries(folder)).length === 0) await rmdir(folder).catch(() => undefined);
}

const isReadme = (name: string): boolean => name.toLowerCase() === "readme.md";
/** Not only regular files: a link or a device named *.md is listed, and reading it refuses it with the reason (src/import-file.ts). */
const wanted = (e: Dirent): boolean => !e.isDirectory() && e.name.endsWith(".md") && !e.name.startsWith(".") && !isReadme(e.name);

/**
 * The Markdown files an import reads: `*.md` at the top (the seeds' flat
 * folder) and in each sub-folder (an export's scopes). Hidden folders (.git)
 * and README.md files are skipped. Sorted, so every run goes in the same order.
 */
export async function importableFiles(root: string): Promise<Array<{ rel: string; folder: string | null }>> {
  const found: Array<{ rel: string; folder: string | null }> = [];
  for (const e of await entries(root)) {
    if (wanted(e)) found.push({ rel: e.name, folder: null });
    if (e.isDirectory() && !e.name.startsWith(".")) {
      for (const f of await entries(join(root, e.name))) {
        if (wanted(f)) found.push({ rel: `${e.name}/${f.name}`, folder: e.name });
      }
    }
  }
  return found.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

/**
 * The graphs an import reads: `<scope>/graph.jsonl` in each folder named like a
 * scope (not links: src/import-file.ts refuses those when it opens them). Sorted.
 */
export async function graphFiles(root: string): Promise<Array<{ rel: string; scope: string }>> {
  const found: Array<{ rel: string; scope: string }> = [];
  for (const dir of await entries(root)) {
    if (!dir.isDirectory() || !SCOPE_PATTERN.test(dir.name)) continue;
    if ((await entries(join(root, dir.name))).some((f) => f.name === GRAPH_FILE)) found.push({ rel: `${dir.name}/${GRAPH_FILE}`, scope: dir.name });
  }
  return found.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}
