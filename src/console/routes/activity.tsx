// The activity feed: each capability's own "recent" read (facts and graph
// in the person's readable scopes, each scope read through its own index, so
// the page costs what the person may read, not what others wrote elsewhere;
// the ledger is team-wide, as ledger_list), merged newest first.
import type { Router } from "express";
import type { AppDeps } from "../../app-deps.js";
import { AGENT_NAME_PATTERN } from "../../auth/scopes.js";
import { recentFactEvents } from "../../facts/activity.js";
import { recentGraphWrites } from "../../graph/activity.js";
import { listLedger } from "../../ledger/store.js";
import { sendPage } from "../render.js";
import { pageContext, sessionOf } from "../session-middleware.js";
import type { ActivityItem } from "../views/activity.js";
import { ActivityPage } from "../views/activity.js";
import { entityHref } from "../views/entity-href.js";
import { BASE } from "../views/layout.js";

export const ACTIVITY_ITEMS = 100;

export function registerActivity(router: Router, deps: AppDeps): void {
  router.get("/activity", async (req, res) => {
    const caller = sessionOf(res).caller;
    const raw = typeof req.query.agent === "string" ? req.query.agent.trim() : "";
    const agent = AGENT_NAME_PATTERN.test(raw) ? raw : "";
    const actor = agent || undefined;
    const scanMax = deps.config.limits.listScanMax;
    const [facts, ledger, graph] = await Promise.all([
      recentFactEvents(deps.db, caller, { actor, limit: ACTIVITY_ITEMS, scanMax }),
      listLedger(deps.db, { ...(actor ? { actor } : {}), limit: ACTIVITY_ITEMS }, { scanMax }),
      recentGraphWrites(deps.db, caller, { actor, limit: ACTIVITY_ITEMS, scanMax }),
    ]);
    const items: ActivityItem[] = [
      ...facts.events.map((e) => ({
        at: e.at,
        actor: e.actor,
        area: "facts" as const,
        what: e.kind,
        subject: `${e.scope}/${e.name} v${e.version}`,
        href: `${BASE}/facts/${e.scope}/${e.name}`,
        detail: e.reason ?? "",
      })),
      ...ledger.events.map((e) => ({
        at: e.at.toISOString(),
        actor: e.actor,
        area: "ledger" as const,
        what: e.kind,
        subject: `${e.action} ${e.target}`,
        detail: [e.evidence, e.note, e.reason].filter(Boolean).join(" · "),
      })),
      ...graph.writes.map((g) => ({
        at: g.at,
        actor: g.actor,
        area: "graph" as const,
        what: `${g.kind} ${g.action}`,
        subject: `${g.scope}/${g.subject}`,
        // A deleted entity has no page; its deleted observations' and relations' entity may still.
        ...(g.action === "deleted" && g.kind === "entity" ? {} : { href: entityHref(g.scope, g.subject) }),
        detail: g.detail,
      })),
    ]
      .sort((a, b) => b.at.localeCompare(a.at))
      .slice(0, ACTIVITY_ITEMS);
    // Only an agent filter can stop a read at its bound (each source reads its
    // newest rows per readable scope, LIST_SCAN_MAX at most): then say so.
    const scanCut = facts.scanCut || ledger.scanCut || graph.scanCut;
    sendPage(res, 200, <ActivityPage ctx={pageContext(res, "activity")} items={items} agent={agent} scanCut={scanCut} />);
  });
}
