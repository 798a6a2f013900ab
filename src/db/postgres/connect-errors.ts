// The failures of a first connection, said in terms of the setting that named
// the database (DATABASE_URL, or `move --to`) and what to run: a newcomer saw
// `database "x" does not exist` or `connect ECONNREFUSED 127.0.0.1:5432` and had
// to guess that the fix was createdb or starting Postgres. Never prints a password.
import { pgCode } from "../core/errors.js";

function target(url: string): { host: string; port: string; database: string; user: string } {
  try {
    const u = new URL(url);
    return { host: u.hostname || "localhost", port: u.port || "5432", database: decodeURIComponent(u.pathname.replace(/^\//, "")) || "postgres", user: decodeURIComponent(u.username) };
  } catch {
    return { host: "?", port: "5432", database: "?", user: "" };
  }
}

/** A message that says what to do, for a connection failure to `url`; undefined for any other error. */
export function connectionFailure(error: unknown, url: string, setting: string): Error | undefined {
  const t = target(url);
  const where = `${t.host}:${t.port}`;
  const code = pgCode(error) ?? (error as { code?: unknown }).code;
  const user = t.user ? ` -U ${t.user}` : "";
  let message: string | undefined;
  if (code === "3D000") {
    message = `The database "${t.database}" that ${setting} names does not exist on ${where}. Create it (createdb -h ${t.host} -p ${t.port}${user} ${t.database}), or correct ${setting}.`;
  } else if (code === "ECONNREFUSED") {
    message = `Nothing accepts connections at ${where}, where ${setting} points: start Postgres there (or check its port), or correct ${setting}.`;
  } else if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
    message = `The host "${t.host}" in ${setting} cannot be resolved: correct ${setting}.`;
  } else if (code === "28P01" || code === "28000") {
    message = `Postgres at ${where} refused the user "${t.user || "(default)"}" for database "${t.database}" (${(error as Error).message}): correct the user or password in ${setting}, or allow it in pg_hba.conf.`;
  }
  return message ? new Error(message, { cause: error }) : undefined;
}
