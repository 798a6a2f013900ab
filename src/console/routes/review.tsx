// The review queue (the console's landing page: drafts, then stale facts) and
// the promote action shared by the queue and the fact page. Promotion goes through promoteFact, the code
// path of memory_promote: same rules, same history event, the signed-in human
// as the actor.
import type { Request, Response, Router } from "express";
import type { AppDeps } from "../../app-deps.js";
import { confirmationReason, DEPRECATION_NEEDS_REASON, NAME_PATTERN, PROMOTION_TARGETS, type PromotionTarget, reviewFact, reviewQueue, staleQueue } from "../../facts/index.js";
import { SCOPE_PATTERN } from "../../scope-name.js";
import { onlyRefusals, sendPage, statusOf } from "../render.js";
import { pageContext, sessionOf } from "../session-middleware.js";
import { BASE } from "../views/layout.js";
import { QueuePage, type QueueNotice } from "../views/queue.js";

const QUEUE_PAGE_SIZE = 10;

const positiveInt = (value: unknown): number | undefined => {
  if (typeof value !== "string" || !/^\d{1,15}$/.test(value)) return undefined;
  const n = Number(value);
  return n > 0 ? n : undefined;
};

const DONE_TEXT: Record<PromotionTarget, string> = { confirmed: "Confirmed", deprecated: "Deprecated" };

/** The notice after a redirect: built from known codes and validated names only. */
function doneNotice(req: Request): QueueNotice | undefined {
  const { done, name, scope } = req.query;
  if (typeof done !== "string" || !(PROMOTION_TARGETS as readonly string[]).includes(done)) return undefined;
  const what = typeof name === "string" && NAME_PATTERN.test(name) && typeof scope === "string" && SCOPE_PATTERN.test(scope) ? ` "${name}" (scope ${scope})` : "";
  return { kind: "ok", text: `${DONE_TEXT[done as PromotionTarget]}${what}.${toldText(req)}` };
}

/** After a withdrawal: how many agents that read the fact since its last confirmation are told (docs/receipts.md). */
export function toldText(req: Request): string {
  const told = typeof req.query.told === "string" && /^\d{1,6}$/.test(req.query.told) ? Number(req.query.told) : 0;
  if (told === 0) return "";
  const who = told === 1 ? "One agent that read it since its last confirmation is told at its" : `${told} agents that read it since its last confirmation are told at their`;
  return ` ${who} next recall; the fact's page lists its readers.`;
}

/** The query that carries a promotion's outcome through the redirect after it. */
export const toldQuery = (told: number): string => (told > 0 ? `&told=${told}` : "");

async function renderQueue(deps: AppDeps, req: Request, res: Response, status: number, notice?: QueueNotice): Promise<void> {
  const after = typeof req.query.after === "string" && req.query.after !== "" ? req.query.after : undefined;
  const staleCursor = typeof req.query.stale === "string" && req.query.stale !== "" ? req.query.stale : undefined;
  const caller = sessionOf(res).caller;
  const queueOptions = {
    limit: QUEUE_PAGE_SIZE,
    scanMax: deps.config.limits.listScanMax,
    similar: deps.config.facts.duplicateWarning,
    duplicateTimeoutMs: deps.config.facts.duplicateTimeoutMs,
  };
  const [queue, stale] = await Promise.all([
    reviewQueue(deps.db, caller, { cursor: after, ...queueOptions }).catch(
      // A "Next page" link that no longer opens (altered, or from another store): the queue from its start.
      (error: unknown) => {
        onlyRefusals(error);
        if (after === undefined) throw error;
        return reviewQueue(deps.db, caller, queueOptions);
      },
    ),
    staleQueue(deps.db, caller, { staleAfterDays: deps.config.facts.staleAfterDays, limit: QUEUE_PAGE_SIZE, scanMax: deps.config.limits.listScanMax, cursor: staleCursor }).catch(
      // A stale link that no longer opens (altered, or from another store): the list from its start.
      (error: unknown) => {
        onlyRefusals(error);
        if (staleCursor === undefined) throw error;
        return staleQueue(deps.db, caller, { staleAfterDays: deps.config.facts.staleAfterDays, limit: QUEUE_PAGE_SIZE, scanMax: deps.config.limits.listScanMax });
      },
    ),
  ]);
  sendPage(res, status, <QueuePage ctx={pageContext(res, "review")} queue={queue} stale={stale} notice={notice} after={after} staleCursor={staleCursor} />);
}

interface PromoteForm {
  name: string;
  scope: string;
  version: number | undefined;
  to: PromotionTarget | undefined;
  reason: string;
}

export function readPromoteForm(body: Record<string, unknown>): PromoteForm {
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  const to = text(body.to);
  return {
    name: text(body.name),
    scope: text(body.scope),
    version: positiveInt(body.version),
    to: (PROMOTION_TARGETS as readonly string[]).includes(to) ? (to as PromotionTarget) : undefined,
    reason: text(body.reason).trim(),
  };
}

/**
 * Runs the promotion; answers with the refusal to show, or undefined on success.
 * A stale version gets the console's own words: the person must read the new
 * version before deciding, never overwrite it silently.
 */
export async function promoteFromForm(deps: AppDeps, res: Response, form: PromoteForm): Promise<{ status: number; text: string } | { told: number }> {
  if (!form.to) return { status: 400, text: "Choose Confirm or Deprecate." };
  if (form.version === undefined) return { status: 400, text: "The form lost the version you reviewed; reload the page." };
  if (form.to === "deprecated" && form.reason === "") return { status: 400, text: `${DEPRECATION_NEEDS_REASON} Nothing was changed on "${form.name}".` };
  const reason = form.reason || confirmationReason(form.version, "the review console");
  try {
    // Re-confirming a stale fact is memory_promote's confirmed → confirmed, with the service's own staleness age.
    const done = await reviewFact(deps, sessionOf(res).caller, { name: form.name, scope: form.scope, to: form.to, reason, version: form.version });
    return { told: done.readersTold?.total ?? 0 };
  } catch (error) {
    onlyRefusals(error);
    const current = error.details?.currentVersion;
    if (error.reason === "changed_since_read" && typeof current === "number") {
      return {
        status: 409,
        text: `"${form.name}" changed since you opened it: you read version ${form.version}, the current version is ${current} (by ${String(error.details?.author ?? "?")}). Nothing was changed; read the current version and decide again.`,
      };
    }
    return { status: statusOf(error), text: error.message };
  }
}

export function registerReview(router: Router, deps: AppDeps): void {
  router.get("/", async (req, res) => {
    await renderQueue(deps, req, res, 200, doneNotice(req));
  });

  router.post("/review", async (req, res) => {
    const form = readPromoteForm(req.body as Record<string, unknown>);
    const outcome = await promoteFromForm(deps, res, form);
    if ("status" in outcome) return renderQueue(deps, req, res, outcome.status, { kind: "error", text: outcome.text });
    res.redirect(303, `${BASE}?done=${form.to}&name=${encodeURIComponent(form.name)}&scope=${encodeURIComponent(form.scope)}${toldQuery(outcome.told)}`);
  });
}
