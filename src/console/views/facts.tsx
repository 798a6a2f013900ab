// Facts: search (the recall agents use) or a filtered, paged listing; and one
// fact with every version and every event.
import { REASON_MAX_CHARS } from "../../limits.js";
import { FACT_STATUSES, FACT_TYPES, type FactReaders, type FactSummary, type FullFact, type RecallHit } from "../../facts/index.js";
import { age } from "../render.js";
import { TextDiff } from "./diff.js";
import { FactLinks, RedactForm, Redactions } from "./fact-trust.js";
import { BASE, CsrfField, Layout, Notice, type PageContext } from "./layout.js";
import { ReviewButtons } from "./queue.js";

export interface FactFilters {
  q: string;
  scope: string;
  status: string;
  type: string;
  author: string;
}

type Listed = FactSummary | RecallHit;
type PageNotice = { kind: "ok" | "error"; text: string };

/**
 * When a fact last changed: its newest version or its last review, whichever
 * came later. The listing is in this order (change_seq, bumped by both), so the
 * column shows it; the version's time alone would put "62 days ago" (a fact
 * stored long ago, confirmed just now) above "7 min ago".
 */
function lastChange(f: { updatedAt: string; statusAt: string | null }): string {
  return f.statusAt !== null && Date.parse(f.statusAt) > Date.parse(f.updatedAt) ? f.statusAt : f.updatedAt;
}

export function factHref(f: { scope: string; name: string }): string {
  return `${BASE}/facts/${f.scope}/${f.name}`;
}

function Select({ id, label, value, options }: { id: keyof FactFilters; label: string; value: string; options: readonly string[] }) {
  return (
    <div>
      <label for={`f-${id}`}>{label}</label>
      <select id={`f-${id}`} name={id}>
        <option value="">any</option>
        {options.map((o) => (
          <option value={o} selected={o === value}>
            {o}
          </option>
        ))}
      </select>
    </div>
  );
}

export function FactsPage({
  ctx,
  filters,
  facts,
  total,
  nextHref,
  scanCut,
  notice,
}: {
  ctx: PageContext;
  filters: FactFilters;
  facts: Listed[];
  total?: number | undefined;
  nextHref?: string | undefined;
  /** The page stopped at the scan's bound (LIST_SCAN_MAX): more may match further on. */
  scanCut?: boolean | undefined;
  notice?: PageNotice | undefined;
}) {
  return (
    <Layout ctx={ctx} title="Facts">
      <h1>Facts</h1>
      <form class="filters" method="get" action={`${BASE}/facts`} role="search">
        <div class="wide">
          <label for="f-q">Search</label>
          <input id="f-q" name="q" type="search" value={filters.q} placeholder="keywords, any language" />
        </div>
        <div>
          <label for="f-scope">Scope</label>
          <input id="f-scope" name="scope" type="text" value={filters.scope} placeholder="any" />
        </div>
        <Select id="status" label="Status" value={filters.status} options={FACT_STATUSES} />
        <Select id="type" label="Type" value={filters.type} options={FACT_TYPES} />
        <div>
          <label for="f-author">Author</label>
          <input id="f-author" name="author" type="text" value={filters.author} placeholder="any" />
        </div>
        <div>
          <button type="submit">Show</button>
        </div>
      </form>
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      {total !== undefined ? (
        <p class="hint">
          {total} fact{total === 1 ? "" : "s"} match{total === 1 ? "es" : ""}
          {total > facts.length ? `; the ${facts.length} most relevant are shown` : ""}.
        </p>
      ) : (
        <p class="hint">
          Most recently changed first: a new version or a review. An import counts when it ran, but keeps the times of the history it brought, so an imported fact can
          show an older last change above newer ones.
        </p>
      )}
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Scope</th>
            <th scope="col">Type</th>
            <th scope="col">Status</th>
            <th scope="col">Author</th>
            <th scope="col">Last change</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {facts.map((f) => (
            <tr>
              <td>
                <a href={factHref(f)}>{f.name}</a>
              </td>
              <td>
                <span class="scope">{f.scope}</span>
              </td>
              <td>{f.type}</td>
              <td class={`status-${f.status}`}>{f.status}</td>
              <td>{f.author}</td>
              <td>
                <time dateTime={lastChange(f)} title={lastChange(f)}>
                  {age(lastChange(f))}
                </time>
              </td>
              <td>{f.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {scanCut ? (
        <p class="hint">
          This page stopped after looking through as many facts as one page may (LIST_SCAN_MAX); more may match further on: Next page goes on from there.
        </p>
      ) : (
        facts.length === 0 && !notice && <p class="empty">No facts match.</p>
      )}
      <nav class="pager" aria-label="Pages">
        {nextHref && <a href={nextHref}>Next page</a>}
      </nav>
    </Layout>
  );
}

export function FactPage({ ctx, fact, notice, mayRedact, readBy }: { ctx: PageContext; fact: FullFact; notice?: PageNotice | undefined; mayRedact: boolean; readBy?: FactReaders | undefined }) {
  const newestFirst = [...fact.versions].reverse();
  return (
    <Layout ctx={ctx} title={fact.name}>
      <p>
        <a href={`${BASE}/facts`}>← Facts</a>
      </p>
      <h1>{fact.name}</h1>
      <p class="meta">
        <span class="scope">{fact.scope}</span> · {fact.type} · <span class={`status-${fact.status}`}>{fact.status}</span> · version {fact.version} by{" "}
        <strong>{fact.author}</strong>
        {fact.statusBy && (
          <>
            {" "}
            · {fact.status} by <strong>{fact.statusBy}</strong>
          </>
        )}
      </p>
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      {fact.statusReason && (
        <p class="notice notice-info">
          Reason: <span data-status-reason>{fact.statusReason}</span>
        </p>
      )}
      <FactLinks fact={fact} />
      <p class="description">{fact.description}</p>
      <pre class="body">{fact.body}</pre>
      {fact.status !== "deprecated" && (
        <section class="card item" data-item tabIndex={-1}>
          <h2>Review</h2>
          <form method="post" action={`${factHref(fact)}/promote`}>
            <CsrfField csrf={ctx.csrf} />
            <input type="hidden" name="version" value={String(fact.version)} />
            <label for="reason">Reason</label>
            <textarea id="reason" name="reason" rows={2} maxLength={REASON_MAX_CHARS} data-reason placeholder="What you checked, or what is wrong and what to do instead" />
            <ReviewButtons confirmLabel={fact.status === "draft" ? "Confirm" : undefined} />
          </form>
        </section>
      )}
      <h2>History</h2>
      <table class="events stack">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">What</th>
            <th scope="col">Version</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {[...fact.events].reverse().map((e) => (
            <tr data-event={e.kind}>
              <td data-label="When">
                <time dateTime={e.at} title={e.at}>
                  {`${e.at.replace("T", " ").slice(0, 19)} UTC`}
                </time>
              </td>
              <td data-label="Who">{e.actor}</td>
              <td data-label="What">{e.from ? `${e.kind} (${e.from} → ${e.to})` : e.kind}</td>
              <td data-label="Version">{e.version}</td>
              <td data-label="Reason">{e.reason ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Redactions fact={fact} />
      {readBy && <ReadBy readBy={readBy} />}
      {mayRedact && <RedactForm ctx={ctx} fact={fact} action={`${factHref(fact)}/redact`} />}
      <h2>Versions</h2>
      {newestFirst.map((v) => {
        const before = fact.versions.find((o) => o.version === v.version - 1);
        return (
          <section class="card">
            <h3>
              Version {v.version} by {v.author},{" "}
              <time dateTime={v.at} title={v.at}>
                {age(v.at)}
              </time>
            </h3>
            <p class="description">
              {v.type} · {v.description}
            </p>
            {before ? <TextDiff before={before.body} after={v.body} /> : <pre>{v.body}</pre>}
          </section>
        );
      })}
      {fact.earlierVersions !== undefined && (
        <p>
          <a href={`${factHref(fact)}?before=${fact.versions[0]?.version ?? 1}`}>{fact.earlierVersions} earlier version(s)</a>
        </p>
      )}
    </Layout>
  );
}

/** The agents served this fact (recall receipts, docs/receipts.md), most recent first. */
function ReadBy({ readBy }: { readBy: FactReaders }) {
  return (
    <>
      <h2 id="read-by">Read by</h2>
      {readBy.readers.length === 0 ? (
        <p class="meta">No agent was served this fact within the receipts' retention.</p>
      ) : (
        <table class="events" data-read-by>
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Times</th>
              <th scope="col">Last</th>
              <th scope="col">Versions</th>
            </tr>
          </thead>
          <tbody>
            {readBy.readers.map((r) => (
              <tr data-reader={r.agent}>
                <td>{r.agent}</td>
                <td>{r.reads}</td>
                <td>
                  <time dateTime={r.lastAt} title={r.lastAt}>
                    {`${r.lastAt.replace("T", " ").slice(0, 19)} UTC`}
                  </time>
                </td>
                <td>{r.versions.join(", ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {readBy.more > 0 && <p class="meta">… and {readBy.more} more agents.</p>}
    </>
  );
}
