// The one way an import opens a file (`agent-memory import`: fact files and
// ledger.jsonl; `agent-memory graph import`): a regular file, never a symbolic
// link, a device or a pipe, of at most its limit, read as a stream. A
// ledger.jsonl linked to /dev/zero would otherwise be read as one endless line
// until the heap runs out. The limits are IMPORT_FILES in src/limits.ts.
import { constants, type Stats } from "node:fs";
import { lstat, open, type FileHandle } from "node:fs/promises";
import { invalid } from "./errors.js";

interface ImportFileLimits {
  /** "a ledger.jsonl", "a graph file": named in refusals. */
  what: string;
  maxBytes: number;
  /** For files read by line; a longer line is reported, never held. */
  maxLineBytes?: number;
}

/** One line, without its "\n" (or "\r\n"); `tooLong` instead of the text when it was past maxLineBytes. */
export type ImportLine = { number: number; text: string; tooLong?: undefined } | { number: number; text?: undefined; tooLong: true };

export interface ImportFile {
  path: string;
  /** The whole file as text (files parsed whole: fact files). */
  text(): Promise<string>;
  /** The lines from the start, every call anew (one pass to check, one to write). */
  lines(): AsyncGenerator<ImportLine>;
  close(): Promise<void>;
}

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** 67,108,864 bytes as "64 MiB (67,108,864 bytes)". */
function byteLimitText(bytes: number): string {
  const unit = bytes % GiB === 0 ? `${bytes / GiB} GiB` : bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes.toLocaleString("en-US")} bytes`;
  return unit.endsWith(" bytes") ? unit : `${unit} (${bytes.toLocaleString("en-US")} bytes)`;
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return "a folder";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isFIFO()) return "a pipe";
  if (info.isSocket()) return "a socket";
  return "not a file";
}

/** What to do about a file past its size limit, by what the file is. */
const ADVICE: Record<string, string> = {
  "a graph file": "Split it into smaller files (e.g. split -l 1000000) and import each: lines of one entity merge.",
  "a ledger.jsonl": "A ledger this large did not come from an export of this service: check that it is the file you meant.",
  "a fact file": "A fact file this large did not come from an export of this service: check the file, or move most of its text elsewhere.",
};

const linkRefusal = (path: string): Error =>
  invalid(`${path} is a symbolic link; an import reads only regular files, never what a link points to. Replace the link with a copy of the file (or name the file itself) and run the import again.`);

/** Why a line was not read: "longer than 1 MiB (1,048,576 bytes), the limit of a ledger.jsonl line". */
export function lineTooLongText(limits: ImportFileLimits): string {
  return `longer than ${byteLimitText(limits.maxLineBytes ?? limits.maxBytes)}, the limit of ${limits.what} line`;
}

function refuseUnlessRegular(path: string, info: Stats, limits: ImportFileLimits): void {
  if (info.isSymbolicLink()) throw linkRefusal(path);
  if (!info.isFile()) {
    throw invalid(`${path} is not a regular file (it is ${kindOf(info)}); an import reads only regular files. Copy the data into a file and import that.`);
  }
  if (info.size > limits.maxBytes) throw tooLarge(path, info.size, limits);
}

function tooLarge(path: string, size: number | string, limits: ImportFileLimits): Error {
  const bytes = typeof size === "number" ? `${size.toLocaleString("en-US")} bytes` : size;
  return invalid(`${path} is ${bytes}; an import reads at most ${byteLimitText(limits.maxBytes)} from ${limits.what}. ${ADVICE[limits.what] ?? ""}`.trimEnd());
}

function unreadable(path: string, error: NodeJS.ErrnoException): Error {
  if (error.code === "ENOENT") return invalid(`Cannot read ${path}: no such file.`);
  if (error.code === "EACCES") return invalid(`Cannot read ${path}: permission denied.`);
  return error;
}

/**
 * Opens `path` when it is a regular file within `limits.maxBytes`, and refuses
 * it otherwise (invalid, naming the path and the limit) before reading a byte.
 * With `optional`, a missing file is undefined rather than refused. The file is
 * opened without following a link and checked again once open, so a link or a
 * pipe swapped in after the first look is refused too.
 */
export async function openImportFile(path: string, limits: ImportFileLimits, options: { optional: true }): Promise<ImportFile | undefined>;
export async function openImportFile(path: string, limits: ImportFileLimits): Promise<ImportFile>;
export async function openImportFile(path: string, limits: ImportFileLimits, options: { optional?: boolean } = {}): Promise<ImportFile | undefined> {
  let info: Stats;
  try {
    info = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && options.optional) return undefined;
    throw unreadable(path, error as NodeJS.ErrnoException);
  }
  refuseUnlessRegular(path, info, limits);
  // O_NONBLOCK: a pipe swapped in meanwhile opens at once (and is refused below) instead of waiting for a writer.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ELOOP") throw linkRefusal(path);
    throw unreadable(path, error);
  });
  try {
    refuseUnlessRegular(path, await handle.stat(), limits);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return importFile(path, handle, limits);
}

function importFile(path: string, handle: FileHandle, limits: ImportFileLimits): ImportFile {
  /** The file's bytes from the start, at most maxBytes of them (a file that grew past its limit since it was checked is refused). */
  async function* chunks(): AsyncGenerator<Buffer> {
    let total = 0;
    for await (const chunk of handle.createReadStream({ start: 0, end: limits.maxBytes, autoClose: false }) as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > limits.maxBytes) throw tooLarge(path, "larger than when it was checked", limits);
      yield chunk;
    }
  }
  return {
    path,
    async text() {
      const parts: Buffer[] = [];
      for await (const chunk of chunks()) parts.push(chunk);
      return Buffer.concat(parts).toString("utf8");
    },
    lines: () => splitLines(chunks(), limits.maxLineBytes ?? limits.maxBytes),
    close: () => handle.close(),
  };
}

/**
 * Lines of at most `maxLineBytes` (readline would hold a line of any length
 * until its end: one line of a whole device). A longer line is skipped to its
 * end and reported by number; at most `maxLineBytes` of a line are held.
 * Splitting bytes at "\n" is safe in UTF-8, which never uses that byte inside a character.
 */
async function* splitLines(source: AsyncIterable<Buffer>, maxLineBytes: number): AsyncGenerator<ImportLine> {
  let parts: Buffer[] = [];
  let held = 0;
  let skipping = false;
  let number = 0;
  const finish = (): ImportLine => {
    number++;
    const line: ImportLine = skipping ? { number, tooLong: true } : { number, text: Buffer.concat(parts, held).toString("utf8").replace(/\r$/, "") };
    parts = [];
    held = 0;
    skipping = false;
    return line;
  };
  for await (const chunk of source) {
    for (let start = 0; start <= chunk.length; ) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline;
      if (!skipping && end > start) {
        if (held + (end - start) > maxLineBytes) {
          skipping = true;
          parts = [];
          held = 0;
        } else {
          parts.push(chunk.subarray(start, end));
          held += end - start;
        }
      }
      if (newline === -1) break;
      yield finish();
      start = newline + 1;
    }
  }
  if (held > 0 || skipping) yield finish();
}
