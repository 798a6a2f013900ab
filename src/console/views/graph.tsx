// The knowledge graph: search entities in a scope; one entity with its
// observations (paged), relations both ways, provenance, and a picture.
import { GraphRedactForm } from "./fact-trust.js";
import type { GraphEntity, GraphRelation, ObservationPage } from "../../graph/index.js";
import { age } from "../render.js";
import { BASE, Layout, Notice, type PageContext } from "./layout.js";
import { NeighbourhoodSvg } from "./neighbourhood.js";

import { entityHref } from "./entity-href.js";

export { entityHref };

export function GraphSearchPage({
  ctx,
  scope,
  q,
  entities,
  total,
  totalIsLowerBound = false,
  scanCut = false,
  nextHref,
  notice,
}: {
  ctx: PageContext;
  scope: string;
  q: string;
  entities: GraphEntity[];
  total: number;
  /** The search stopped counting at `total`: at least that many match. */
  totalIsLowerBound?: boolean;
  /** The search stopped after testing its share of the scope's entities (GRAPH_SEARCH_SCAN_MAX) before the page was full. */
  scanCut?: boolean;
  nextHref?: string | undefined;
  notice?: string | undefined;
}) {
  return (
    <Layout ctx={ctx} title="Graph">
      <h1>Knowledge graph</h1>
      <form class="filters" method="get" action={`${BASE}/graph`} role="search">
        <div>
          <label for="g-scope">Scope</label>
          <input id="g-scope" name="scope" type="text" value={scope} />
        </div>
        <div class="wide">
          <label for="g-q">Search</label>
          <input id="g-q" name="q" type="search" value={q} placeholder="name, type or observation" />
        </div>
        <div>
          <button type="submit">Search</button>
        </div>
      </form>
      {notice ? (
        <Notice kind="error">{notice}</Notice>
      ) : (
        <p class="hint">
          {totalIsLowerBound ? "At least " : ""}
          {total} entit{total === 1 ? "y" : "ies"}
          {q ? " match" : " in this scope"}.
          {scanCut ? " The search stopped after testing its share of this scope's entities one by one; more may match: the next page goes on from there." : ""}
        </p>
      )}
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Observations</th>
          </tr>
        </thead>
        <tbody>
          {entities.map((e) => (
            <tr>
              <td>
                <a href={entityHref(scope, e.name)}>{e.name}</a>
              </td>
              <td>{e.entityType}</td>
              <td>{e.totalObservations ?? e.observations.length}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <nav class="pager" aria-label="Pages">
        {nextHref && <a href={nextHref}>Next page</a>}
      </nav>
    </Layout>
  );
}

export function EntityPage({
  ctx,
  scope,
  entity,
  provenance,
  observations,
  relations,
  totalRelations,
  secondHop,
  nextObservationsHref,
  redact,
}: {
  ctx: PageContext;
  scope: string;
  entity: { name: string; entityType: string };
  provenance?: { createdBy?: string | undefined; createdAt?: string | undefined } | undefined;
  observations: ObservationPage;
  relations: GraphRelation[];
  totalRelations: number;
  secondHop: GraphRelation[];
  nextObservationsHref?: string | undefined;
  /** For a person who may redact in the scope: where the form posts, and the position of the first observation shown. */
  redact?: { action: string; offset: number } | undefined;
}) {
  const key = entity.name.toLowerCase();
  const outgoing = relations.filter((r) => r.from.toLowerCase() === key);
  const incoming = relations.filter((r) => r.from.toLowerCase() !== key);
  // An empty table says nothing: "None." instead, and header rows on the rest.
  const Relations = ({ rows, far }: { rows: GraphRelation[]; far: "from" | "to" }) =>
    rows.length === 0 ? (
      <p class="empty">None.</p>
    ) : (
      <table class="relations">
        <thead>
          <tr>
            <th scope="col">Relation</th>
            <th scope="col">{far === "to" ? "To" : "From"}</th>
            <th scope="col">Added by</th>
            <th scope="col">When</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr>
              <td>{r.relationType}</td>
              <td>
                <a href={entityHref(scope, r[far])}>{r[far]}</a>
              </td>
              <td>{r.createdBy ?? ""}</td>
              <td>{r.createdAt ? age(r.createdAt) : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    );
  return (
    <Layout ctx={ctx} title={entity.name}>
      <p>
        <a href={`${BASE}/graph?scope=${scope}`}>← Graph</a>
      </p>
      <h1>{entity.name}</h1>
      <p class="meta">
        <span class="scope">{scope}</span> · {entity.entityType}
        {provenance?.createdBy && (
          <>
            {" "}
            · created by <strong>{provenance.createdBy}</strong> {provenance.createdAt ? age(provenance.createdAt) : ""}
          </>
        )}
      </p>
      <NeighbourhoodSvg scope={scope} center={entity.name} firstHop={relations} secondHop={secondHop} />
      <h2>Observations ({observations.totalObservations})</h2>
      {observations.observations.length === 0 ? (
        <p class="empty">None.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Observation</th>
              <th scope="col">Added by</th>
              <th scope="col">When</th>
            </tr>
          </thead>
          <tbody>
            {observations.observations.map((o, i) => (
              <tr>
                <td>{o}</td>
                <td>{observations.observationsMeta[i]?.createdBy ?? ""}</td>
                <td>{observations.observationsMeta[i] ? age(observations.observationsMeta[i]!.createdAt) : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav class="pager" aria-label="Observation pages">
        {nextObservationsHref && <a href={nextObservationsHref}>More observations</a>}
      </nav>
      <h2>Relations from {entity.name}</h2>
      <Relations rows={outgoing} far="to" />
      <h2>Relations to {entity.name}</h2>
      <Relations rows={incoming} far="from" />
      {totalRelations > relations.length && <p class="hint">Showing {relations.length} of {totalRelations} relations.</p>}
      {redact && <GraphRedactForm ctx={ctx} action={redact.action} scope={scope} name={entity.name} observations={observations.observations} offset={redact.offset} />}
    </Layout>
  );
}
