// The ledger of external actions: open claims, history with filters, the
// result of verify, and the export download.
import { type Claim, EVENT_KINDS, type LedgerEvent, shortRef, type VerifyReport } from "../../ledger/index.js";
import { age } from "../render.js";
import { BASE, CsrfField, Layout, Notice, type PageContext } from "./layout.js";

export interface LedgerNotice {
  kind: "ok" | "error";
  text: string;
}

export interface LedgerFilters {
  action: string;
  target: string;
  actor: string;
  kind: string;
  since: string;
}

const iso = (d: Date) => `${d.toISOString().replace("T", " ").slice(0, 19)} UTC`;

function Field({ id, label, value, placeholder }: { id: keyof LedgerFilters; label: string; value: string; placeholder: string }) {
  return (
    <div>
      <label for={`l-${id}`}>{label}</label>
      <input id={`l-${id}`} name={id} type="text" value={value} placeholder={placeholder} />
    </div>
  );
}

export function LedgerPage({
  ctx,
  filters,
  events,
  claims,
  nextHref,
  scanCut,
  notices = [],
}: {
  ctx: PageContext;
  filters: LedgerFilters;
  events: LedgerEvent[];
  claims: Claim[];
  nextHref?: string | undefined;
  /** The page stopped at the scan's bound (LIST_SCAN_MAX): more may match further back. */
  scanCut?: boolean | undefined;
  notices?: LedgerNotice[] | undefined;
}) {
  const voidable = events.some((e) => e.kind === "executed");
  return (
    <Layout ctx={ctx} title="Ledger">
      <h1>Ledger</h1>
      <p>
        <a class="button" href={`${BASE}/ledger/verify`}>
          Verify the hash chain
        </a>{" "}
        <a class="button" href={`${BASE}/ledger/export`} download="ledger.jsonl">
          Download the export (JSON Lines)
        </a>
      </p>
      <h2>Open claims</h2>
      {claims.length === 0 ? (
        <p class="empty">No operation is claimed right now.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Action</th>
              <th>Target</th>
              <th>Holder</th>
              <th>Claimed</th>
              <th>Expires</th>
              <th>Claim</th>
            </tr>
          </thead>
          <tbody>
            {claims.map((c) => (
              <tr>
                <td>{c.action}</td>
                <td>{c.target}</td>
                <td>{c.holder}</td>
                <td>{age(c.claimedAt.toISOString())}</td>
                <td>{iso(c.expiresAt)}</td>
                <td>{c.ref ? <code title="The claim's reference (never its id): the same on each of its events below">{shortRef(c.ref)}</code> : "–"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>History</h2>
      <form class="filters" method="get" action={`${BASE}/ledger`}>
        <Field id="action" label="Action" value={filters.action} placeholder="publish_qiita" />
        <Field id="target" label="Target" value={filters.target} placeholder="exact target" />
        <Field id="actor" label="Actor" value={filters.actor} placeholder="agent name" />
        <div>
          <label for="l-kind">Kind</label>
          <select id="l-kind" name="kind">
            <option value="">any</option>
            {EVENT_KINDS.map((k) => (
              <option value={k} selected={k === filters.kind}>
                {k}
              </option>
            ))}
          </select>
        </div>
        <Field id="since" label="Since" value={filters.since} placeholder="2026-11-30T00:00:00Z" />
        <div>
          <button type="submit">Show</button>
        </div>
      </form>
      {notices.map((n) => (
        <Notice kind={n.kind}>{n.text}</Notice>
      ))}
      <form method="post" action={`${BASE}/ledger/void`} data-ask="Void the selected records? Each stays in the ledger, marked void with your reason.">
        <CsrfField csrf={ctx.csrf} />
        {(Object.entries(filters) as Array<[keyof LedgerFilters, string]>).map(([k, v]) => v !== "" && <input type="hidden" name={k} value={v} />)}
        <table class="stack">
          <thead>
            <tr>
              <th>{voidable && <input type="checkbox" data-select-all="record" aria-label="Select every record on this page" />}</th>
              <th>#</th>
              <th>When</th>
              <th>Kind</th>
              <th>Action</th>
              <th>Target</th>
              <th>Actor</th>
              <th>Evidence / note / reason</th>
            </tr>
          </thead>
          <tbody>
            {events.map((e) => (
              <tr>
                <td>
                  {e.kind === "executed" && (
                    <input type="checkbox" name="record" value={JSON.stringify([e.seq, e.action, e.target])} aria-label={`Select record #${e.seq} to void`} />
                  )}
                </td>
                <td data-label="#">{e.seq}</td>
                <td data-label="When">{iso(e.at)}</td>
                <td data-label="Kind">
                  {e.kind}
                  {e.claimRef && (
                    <>
                      {" "}
                      <code title="The reference of the claim this event belongs to (never its id)">{shortRef(e.claimRef)}</code>
                    </>
                  )}
                </td>
                <td data-label="Action">{e.action}</td>
                <td data-label="Target">{e.target}</td>
                <td data-label="Actor">{e.actor}</td>
                <td data-label="Evidence / note / reason">
                  {/* Shown as text, never as a link: evidence URLs are written by agents. */}
                  {[e.evidence, e.note, e.reason].filter(Boolean).join(" · ")}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {voidable && (
          <fieldset class="void">
            <legend>Void the selected records</legend>
            <p class="hint">
              For records of operations that did not happen, or not as recorded. Each stays in the ledger, marked void with your name and reason, and the action can
              be claimed and recorded again.
            </p>
            <label for="l-void-reason">Reason</label>
            <textarea id="l-void-reason" name="reason" rows={2} required placeholder="what is wrong with these records"></textarea>
            {/* Destructive, so not the primary style: it marks records void for everyone. */}
            <button type="submit" class="danger">
              Void selected
            </button>
          </fieldset>
        )}
      </form>
      {scanCut ? (
        <p class="hint">This page stopped after looking through as many events as one page may (LIST_SCAN_MAX); more may match further back: Older events goes on from there.</p>
      ) : (
        events.length === 0 && notices.length === 0 && <p class="empty">No ledger events match.</p>
      )}
      <nav class="pager" aria-label="Pages">
        {nextHref && <a href={nextHref}>Older events</a>}
      </nav>
    </Layout>
  );
}

export function VerifyPage({ ctx, report }: { ctx: PageContext; report: VerifyReport }) {
  return (
    <Layout ctx={ctx} title="Ledger verify">
      <p>
        <a href={`${BASE}/ledger`}>← Ledger</a>
      </p>
      <h1>Ledger verify</h1>
      {report.ok ? (
        <Notice kind="ok">
          Intact: {report.rows} event(s) checked, every hash links to the one before. Last hash: <code>{report.lastHash}</code>
        </Notice>
      ) : (
        <Notice kind="error">
          Broken at event #{report.broken!.seq}: {report.broken!.problem}. {report.rows} event(s) before it verified.
        </Notice>
      )}
    </Layout>
  );
}
