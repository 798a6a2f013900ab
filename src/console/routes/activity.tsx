// The activity feed: each capability's own "recent" read (facts and graph
// in the person's readable scopes, each scope read through its own index, so
// the page costs what the person may read, not what others wrote elsewhere;
// the ledger is team-wide, as ledger_list), merged newest first.
import type { Router } from "express";
import type { AppDeps } from "../../app-deps.js";
import { AGENT_NAME_PATTERN } from "../../auth/scopes.js";
import { recentFactEvents } from "../../facts/index.js";
import { cursorKey } from "../../db/sql/cursor-key.js";
import { GRAPH_ACTIVITY_SOURCES, type GraphActivitySource, recentGraphWrites } from "../../graph/index.js";
import { ledgerCursorBelow, listLedger, type ListResult } from "../../ledger/index.js";
import { ACTIVITY_SOURCES, type ActivityPosition, type ActivitySource, mergeActivity, openPosition, sealPosition, type SourcePage } from "../activity-feed.js";
import { onlyRefusals, sendPage } from "../render.js";
import { pageContext, sessionOf } from "../session-middleware.js";
import { ActivityPage } from "../views/activity.js";
import { entityHref } from "../views/entity-href.js";
import { BASE } from "../views/layout.js";

const ACTIVITY_ITEMS = 100;

export function registerActivity(router: Router, deps: AppDeps): void {
  router.get("/activity", async (req, res) => {
    const caller = sessionOf(res).caller;
    const raw = typeof req.query.agent === "string" ? req.query.agent.trim() : "";
    const agent = AGENT_NAME_PATTERN.test(raw) ? raw : "";
    const actor = agent || undefined;
    const scanMax = deps.config.limits.listScanMax;
    const key = await cursorKey(deps.db);
    const cursor = typeof req.query.cursor === "string" && req.query.cursor !== "" ? req.query.cursor : undefined;
    let from: ActivityPosition;
    try {
      from = openPosition(key, cursor);
    } catch (error) {
      onlyRefusals(error);
      const text = "This link to older activity is not valid (altered, or from another installation): start again from the newest.";
      return sendPage(res, 400, <ActivityPage ctx={pageContext(res, "activity")} items={[]} agent={agent} notice={{ kind: "error", text }} />);
    }
    const limit = ACTIVITY_ITEMS;
    const [facts, ledger, graph] = await Promise.all([
      recentFactEvents(deps.db, caller, { actor, limit, scanMax, before: from.facts }),
      from.ledger === 0
        ? undefined
        : listLedger(deps.db, { ...(actor ? { actor } : {}), limit, ...(from.ledger ? { cursor: ledgerCursorBelow(from.ledger) } : {}) }, { scanMax }),
      recentGraphWrites(deps.db, caller, { actor, limit, scanMax, before: from }),
    ]);
    const pages: Record<ActivitySource, SourcePage> = {
      facts: {
        items: facts.events.map((e) => ({
          id: e.id,
          item: { at: e.at, actor: e.actor, area: "facts", what: e.kind, subject: `${e.scope}/${e.name} v${e.version}`, href: `${BASE}/facts/${e.scope}/${e.name}`, detail: e.reason ?? "" },
        })),
        stop: facts.stop,
        stopAt: facts.stopAt,
        full: facts.full,
      },
      ledger: ledgerPage(ledger),
      ...(Object.fromEntries(
        GRAPH_ACTIVITY_SOURCES.map((source) => {
          const part = graph[source];
          const items = part.writes.map((g) => ({
            id: g.id,
            item: {
              at: g.at,
              actor: g.actor,
              area: "graph" as const,
              what: `${g.kind} ${g.action}`,
              subject: `${g.scope}/${g.subject}`,
              // A deleted entity has no page; its deleted observations' and relations' entity may still.
              ...(g.action === "deleted" && g.kind === "entity" ? {} : { href: entityHref(g.scope, g.subject) }),
              detail: g.detail,
            },
          }));
          return [source, { items, stop: part.stop, stopAt: part.stopAt, full: part.full }];
        }),
      ) as Record<GraphActivitySource, SourcePage>),
    };
    const { items, next } = mergeActivity(pages, from, limit);
    // Only an agent filter can stop a read at its bound (each source reads its
    // newest rows per readable scope, LIST_SCAN_MAX at most): then say so.
    const scanCut = ACTIVITY_SOURCES.some((s) => pages[s].stop !== null);
    const olderHref = next ? olderLink(agent, sealPosition(key, next)) : undefined;
    sendPage(res, 200, <ActivityPage ctx={pageContext(res, "activity")} items={items} agent={agent} scanCut={scanCut} olderHref={olderHref} olderPage={cursor !== undefined} />);
  });
}

function ledgerPage(page: ListResult | undefined): SourcePage {
  if (!page) return { items: [], stop: null, stopAt: null, full: false };
  const items = page.events.map((e) => ({
    id: e.seq,
    item: {
      at: e.at.toISOString(),
      actor: e.actor,
      area: "ledger" as const,
      what: e.kind,
      subject: `${e.action} ${e.target}`,
      detail: [e.evidence, e.note, e.reason].filter(Boolean).join(" · "),
    },
  }));
  // The ledger reads one more than the page to know whether more exist (nextCursor), and says where a cut scan stopped.
  return { items, stop: page.scanCut ? page.nextSeq : null, stopAt: page.stopAt?.toISOString() ?? null, full: !page.scanCut && page.nextSeq !== null };
}

function olderLink(agent: string, cursor: string): string {
  const params = new URLSearchParams();
  if (agent) params.set("agent", agent);
  params.set("cursor", cursor);
  return `${BASE}/activity?${params.toString()}`;
}
