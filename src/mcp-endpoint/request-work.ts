// When a request's work is over, which is not when its response closes: a
// client that goes away closes the response at once, while the tool it called
// keeps its statements running (nothing cancels them; PGlite cannot). The MCP
// route records its work here, the per-agent concurrency limit waits for it
// before giving the agent's slot to its next request, so that send, abort, send
// again cannot put more of one agent's statements in the database than its limit.
import type { Response } from "express";

const WORK = Symbol("request work");
type WithWork = Response & { [WORK]?: Promise<void> };

/** Records the request's work (settled when the handler and every callback it started have ended). */
export function setRequestWork(res: Response, work: Promise<unknown>): void {
  (res as WithWork)[WORK] = work.then(
    () => undefined,
    () => undefined,
  );
}

/** The request's work, or a settled promise when no handler recorded any (it never started). */
export function requestWork(res: Response): Promise<void> {
  return (res as WithWork)[WORK] ?? Promise.resolve();
}

/** The response's close (sent, or the client gone), also when it closed before anyone listened. */
export function responseClosed(res: Response): Promise<void> {
  return res.closed ? Promise.resolve() : new Promise<void>((resolve) => res.once("close", () => resolve()));
}
