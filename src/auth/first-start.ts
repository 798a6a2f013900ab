// The first start's policy: on a database where nobody can sign in to the
// console (no human agent) and nothing is stored yet, the service creates the
// owner (human, all scopes) and issues its first token: shown to a person at a
// terminal, otherwise written to a file only this user can read.
import { randomBytes } from "node:crypto";
import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Logger } from "pino";
import type { Queryable } from "../db/core/database.js";
import { DomainError } from "../errors.js";
import { createAgent, FIRST_OWNER, issueToken } from "./store.js";

/** What the database held at start-up (src/db/schema/holdings.ts reads it). */
interface Holdings {
  humans: boolean;
  /** What is stored besides agents, by kind. */
  stored: readonly string[];
}

export interface FirstStart {
  /** The owner's token when this start created the owner, else undefined. */
  token: string | undefined;
  /** Where that token was written (a start nobody watches), else undefined. */
  tokenFile: string | undefined;
}

/**
 * Creates the owner if nobody can sign in and nothing is stored (also after
 * agents were added with the CLI before the first start). The owner is created
 * only once the port is ours: created before a failed listen (port in use), its
 * token would be shown to nobody and every later start would find an owner.
 */
export async function firstStart(db: Queryable, holdings: Holdings, options: { interactive: boolean; tokenFile: string; logger: Logger }): Promise<FirstStart> {
  const token = await createOwnerIfNobody(db, holdings, options.logger);
  const tokenFile = token && !options.interactive ? await writeFirstToken(options.tokenFile, token, options.logger) : undefined;
  return { token, tokenFile };
}

async function createOwnerIfNobody(db: Queryable, holdings: Holdings, logger: Logger): Promise<string | undefined> {
  if (holdings.humans || holdings.stored.some((s) => s !== "tokens")) return undefined;
  try {
    await createAgent(db, { name: FIRST_OWNER, kind: "human", writeScopes: ["*"] });
  } catch (error) {
    // Another replica created it first: it prints the token, not us.
    if (error instanceof DomainError && error.code === "conflict") return undefined;
    throw error;
  }
  const { token } = await issueToken(db, FIRST_OWNER, null);
  logger.info({ agent: FIRST_OWNER }, "first start: created agent owner (human, all scopes) and issued its first token");
  return token;
}

/**
 * The owner's first token, for a start nobody watches: a file only its user can
 * read (written then renamed, so it is never seen half-written or with a wider
 * mode). The log and the banner say where, never what.
 */
async function writeFirstToken(file: string, token: string, logger: Logger): Promise<string | undefined> {
  try {
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    // A fresh random name, created exclusively ("wx": never through a file or
    // link someone placed there beforehand, in case the folder is shared),
    // then renamed over the target: rename replaces a link, never follows it.
    const partial = `${file}.${randomBytes(12).toString("hex")}.partial`;
    await writeFile(partial, `${token}\n`, { mode: 0o600, flag: "wx" });
    await chmod(partial, 0o600);
    await rename(partial, file);
    logger.info({ agent: "owner", file }, "first start: the owner's token was written to a file readable only by this user");
    return file;
  } catch (error) {
    logger.warn({ err: error, file }, "first start: could not write the owner's token file; issue a token with: agent-memory token issue owner");
    return undefined;
  }
}
