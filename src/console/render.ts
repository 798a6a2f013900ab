// Pages are rendered on the server with preact-render-to-string: every value
// placed in the markup is escaped by the renderer, so text written by agents
// and people shows as text. Nothing here builds HTML from strings.
import type { Response } from "express";
import type { VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import { DomainError } from "../errors.js";

export function sendPage(res: Response, status: number, page: VNode): void {
  // Pages show memory contents and, once, new tokens: never cached.
  res.setHeader("Cache-Control", "no-store");
  res.status(status).type("html").send(`<!doctype html>${renderToString(page)}`);
}

const STATUS_BY_CODE: Record<DomainError["code"], number> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  forbidden: 403,
  unavailable: 503,
};

export const statusOf = (error: DomainError): number => STATUS_BY_CODE[error.code];

/**
 * The one line between what a page shows and what is a server error: a
 * DomainError (a refusal a person can act on) is shown on the page with its
 * status; anything else is thrown on, to the console's error page.
 */
export function onlyRefusals(error: unknown): asserts error is DomainError {
  if (!(error instanceof DomainError)) throw error;
}

/** "3 min ago"-style age of a time, for people scanning a list. */
export function age(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}
