// Helpers for console tests: a real app on a real port, sign-in as a browser
// would (form secret cookie, Origin header), and the CSRF token of a page.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import request from "supertest";
import type { Caller } from "../../src/auth/caller.js";
import { checkToken } from "../../src/auth/verifier.js";
import type { Database } from "../../src/db/core/database.js";
import { storeFact } from "../../src/facts/lifecycle/store.js";
import { createTestApp, type DesignBounds } from "../support/service.js";

export interface ConsoleApp {
  base: string;
  server: Server;
  close(): Promise<void>;
}

export async function startConsoleApp(db: Database, env: Record<string, string> = {}, bounds?: DesignBounds): Promise<ConsoleApp> {
  const { app } = await createTestApp(db, { LOG_LEVEL: "silent", ...env }, bounds);
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, server, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The value of the first hidden input named `name` in a page. */
export function hiddenField(html: string, name: string): string | undefined {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
}

/** name=value of one Set-Cookie line. */
function cookieOf(setCookie: string[] | string | undefined, name: string): string | undefined {
  const lines = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const line = lines.find((l) => l.startsWith(`${name}=`));
  return line?.split(";")[0];
}

export interface SignedIn {
  cookie: string;
  csrf: string;
  setCookieLine: string;
}

/** Posts the sign-in form as a browser would; returns the raw response. */
export async function postSignIn(base: string, token: string, origin = base, headers: Record<string, string> = {}) {
  const form = await request(base).get("/console/sign-in").set(headers);
  // Over https (PUBLIC_URL or a trusted proxy) the console's cookies carry the __Host- prefix.
  const formLines = form.headers["set-cookie"] as unknown as string[];
  const formCookie = (cookieOf(formLines, "am_console_signin") ?? cookieOf(formLines, "__Host-am_console_signin"))!;
  return request(base)
    .post("/console/sign-in")
    .set("Origin", origin)
    .set("Cookie", formCookie)
    .set(headers)
    .type("form")
    .send({ form: hiddenField(form.text, "form") ?? "", token });
}

export async function signIn(base: string, token: string): Promise<SignedIn> {
  const res = await postSignIn(base, token);
  if (res.status !== 303) throw new Error(`sign-in failed with ${res.status}: ${res.text.slice(0, 500)}`);
  const lines = res.headers["set-cookie"] as unknown as string[];
  const cookie = cookieOf(lines, "am_console")!;
  const page = await request(base).get("/console").set("Cookie", cookie);
  return { cookie, csrf: hiddenField(page.text, "csrf")!, setCookieLine: lines.find((l) => l.startsWith("am_console="))! };
}

/** A form POST from a console page (right Origin, session cookie, CSRF token). */
export function postForm(base: string, who: SignedIn, path: string, fields: Record<string, string>) {
  return request(base).post(path).set("Origin", base).set("Cookie", who.cookie).type("form").send({ csrf: who.csrf, ...fields });
}

export async function callerOf(db: Database, token: string): Promise<Caller> {
  const check = await checkToken(db, token);
  if (!check.ok) throw new Error(`token refused: ${check.reason}`);
  return check.caller;
}

export async function draft(db: Database, caller: Caller, name: string, scope: string, body = `Body of ${name}.`) {
  return storeFact(db, caller, { name, scope, type: "project", description: `About ${name}`, body }, { bodyMaxChars: 16_000 });
}
