// The knowledge graph in the browser, with the same reads as search_nodes,
// read_graph, open_nodes, read_observations and read_relations, in one scope
// the person may read.
import type { Request, Response, Router } from "express";
import type { AppDeps } from "../../app-deps.js";
import { mayRedact, SHARED_SCOPE } from "../../auth/scopes.js";
import { openNodes, readableGraph, readGraph, readObservations, readRelations, redactGraph, searchNodes } from "../../graph/index.js";
import { onlyRefusals, sendPage, statusOf } from "../render.js";
import { pageContext, sessionOf } from "../session-middleware.js";
import { OBSERVATION_CHOICE } from "../views/fact-trust.js";
import { EntityPage, entityHref, GraphSearchPage } from "../views/graph.js";
import { BASE } from "../views/layout.js";
import { MAX_FIRST_HOP } from "../views/neighbourhood.js";

const GRAPH_PAGE_SIZE = 50;
const OBSERVATIONS_PAGE_SIZE = 50;
const FIRST_HOP_RELATIONS = 100;
const SECOND_HOP_RELATIONS = 200;
// Pages show lists, not whole texts: a small budget keeps each read cheap.
const PAGE_CHARS = 200_000;

const str = (v: unknown) => (typeof v === "string" ? v.trim() : "");
const offsetOf = (v: unknown) => (/^\d{1,9}$/.test(str(v)) ? Number(v) : 0);

export function registerGraph(router: Router, deps: AppDeps): void {
  router.get("/graph", async (req, res) => {
    const scopeInput = str(req.query.scope) || SHARED_SCOPE;
    const q = str(req.query.q);
    const offset = offsetOf(req.query.offset);
    const cursor = str(req.query.cursor) || undefined;
    const ctx = pageContext(res, "graph");
    try {
      const scope = readableGraph(sessionOf(res).caller, scopeInput);
      const { graphSearchCountMax, graphSearchScanMax } = deps.config.limits;
      const page = q
        ? await searchNodes(deps.db, scope, q, { limit: GRAPH_PAGE_SIZE, offset, cursor }, PAGE_CHARS, graphSearchCountMax, graphSearchScanMax)
        : await readGraph(deps.db, scope, { limit: GRAPH_PAGE_SIZE, offset }, PAGE_CHARS);
      // A search's next page by its cursor (it always has one when truncated); the whole graph's by offset.
      const onward: Record<string, string> | undefined =
        q && page.nextCursor !== undefined ? { cursor: page.nextCursor } : page.nextOffset !== undefined ? { offset: String(page.nextOffset) } : undefined;
      const next = onward ? `/console/graph?${new URLSearchParams({ scope, ...(q ? { q } : {}), ...onward }).toString()}` : undefined;
      sendPage(res, 200, <GraphSearchPage ctx={ctx} scope={scope} q={q} entities={page.entities} total={page.totalEntities} totalIsLowerBound={page.totalEntitiesIsLowerBound ?? false} scanCut={page.scanCut ?? false} nextHref={next} />);
    } catch (error) {
      onlyRefusals(error);
      sendPage(res, statusOf(error), <GraphSearchPage ctx={ctx} scope={scopeInput} q={q} entities={[]} total={0} notice={error.message} />);
    }
  });

  // Entities named "." or ".." are linked by query (entityHref): the same page.
  router.get("/graph/entity", (req: Request, res: Response) => showEntity(req, res, str(req.query.scope), typeof req.query.name === "string" ? req.query.name : ""));
  router.get("/graph/:scope/:name", (req: Request, res: Response) => showEntity(req, res, String(req.params.scope), String(req.params.name)));

  // One fixed path, the entity in the form: names may be anything, "." and ".." included.
  router.post("/graph/redact", async (req: Request, res: Response) => {
    const body = req.body as Record<string, unknown>;
    const scope = typeof body.scope === "string" ? body.scope : "";
    const name = typeof body.name === "string" ? body.name : "";
    const what = typeof body.what === "string" ? body.what : "";
    // "entity", or the chosen observation's exact text (its identity): never a position, which another agent's delete would shift.
    const observation = what.startsWith(OBSERVATION_CHOICE) ? what.slice(OBSERVATION_CHOICE.length) : undefined;
    try {
      await redactGraph(deps.db, sessionOf(res).caller, { scope, entity: name, observation, reason: typeof body.reason === "string" ? body.reason : "" }, { secrets: deps.secrets });
      if (observation === undefined) return res.redirect(303, `${BASE}/graph?scope=${encodeURIComponent(scope)}`);
      return res.redirect(303, entityHref(scope, name));
    } catch (error) {
      onlyRefusals(error);
      sendPage(res, statusOf(error), <GraphSearchPage ctx={pageContext(res, "graph")} scope={scope} q="" entities={[]} total={0} notice={error.message} />);
    }
  });

  async function showEntity(req: Request, res: Response, scopeInput: string, name: string): Promise<void> {
    const offset = offsetOf(req.query.offset);
    try {
      const scope = readableGraph(sessionOf(res).caller, scopeInput);
      const observations = await readObservations(deps.db, scope, name, { limit: OBSERVATIONS_PAGE_SIZE, offset }, PAGE_CHARS);
      const [opened, relations] = await Promise.all([
        openNodes(deps.db, scope, [observations.name], 10_000),
        readRelations(deps.db, scope, { names: [observations.name], limit: FIRST_HOP_RELATIONS }, PAGE_CHARS),
      ]);
      const key = observations.name.toLowerCase();
      const neighbours = [...new Set(relations.relations.map((r) => (r.from.toLowerCase() === key ? r.to : r.from)))].slice(0, MAX_FIRST_HOP);
      const secondHop = neighbours.length
        ? (await readRelations(deps.db, scope, { names: neighbours, limit: SECOND_HOP_RELATIONS }, PAGE_CHARS)).relations
        : [];
      const entity = opened.entities[0];
      sendPage(
        res,
        200,
        <EntityPage
          ctx={pageContext(res, "graph")}
          scope={scope}
          entity={{ name: observations.name, entityType: observations.entityType }}
          provenance={entity ? { createdBy: entity.createdBy, createdAt: entity.createdAt } : undefined}
          observations={observations}
          relations={relations.relations}
          totalRelations={relations.totalRelations}
          secondHop={secondHop}
          nextObservationsHref={observations.nextOffset !== undefined ? entityHref(scope, observations.name, observations.nextOffset) : undefined}
          redact={mayRedact(sessionOf(res).caller, scope) ? { action: `${BASE}/graph/redact`, offset } : undefined}
        />,
      );
    } catch (error) {
      onlyRefusals(error);
      sendPage(res, statusOf(error), <GraphSearchPage ctx={pageContext(res, "graph")} scope={SHARED_SCOPE} q="" entities={[]} total={0} notice={error.message} />);
    }
  }
}
