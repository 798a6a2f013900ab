// The Health page (GET /console/health): memory health for the scopes the
// signed-in person may read; the same figures as /metrics (src/facts/review/health.ts).
import type { Router } from "express";
import type { AppDeps } from "../../app-deps.js";
import { canRead, readableScopes } from "../../auth/scopes.js";
import { healthHistory, memoryHealth, reviewsByAgent } from "../../facts/index.js";
import type { HealthFigures } from "../../metrics.js";
import { sendPage } from "../render.js";
import { pageContext, sessionOf } from "../session-middleware.js";
import { HEALTH_DAYS, HealthPage } from "../views/health.js";

const sum = (scopes: HealthFigures[], key: "drafts" | "stale") => scopes.reduce((total, s) => total + s[key], 0);

export function registerHealth(router: Router, deps: AppDeps): void {
  router.get("/health", async (_req, res) => {
    const caller = sessionOf(res).caller;
    const readable = readableScopes(caller);
    const scopes = (await memoryHealth(deps.db, deps.config.facts.staleAfterDays)).filter((s) => canRead(caller, s.scope));
    const [days, reviews] = await Promise.all([healthHistory(deps.db, readable, HEALTH_DAYS), reviewsByAgent(deps.db, readable, HEALTH_DAYS)]);
    // Today's bar is the reading above, not the sample written when the day began,
    // so the chart and the table never disagree about today.
    const today = days.at(-1);
    if (today) days[days.length - 1] = { day: today.day, drafts: sum(scopes, "drafts"), stale: sum(scopes, "stale") };
    sendPage(res, 200, <HealthPage ctx={pageContext(res, "health")} scopes={scopes} days={days} reviews={reviews} />);
  });
}
