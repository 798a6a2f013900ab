// What the team did lately: fact events, ledger events and graph writes, merged
// newest first, with who and when.
import { age } from "../render.js";
import { BASE, Layout, Notice, type PageContext } from "./layout.js";

export interface ActivityItem {
  at: string;
  actor: string;
  area: "facts" | "ledger" | "graph";
  what: string;
  /** The thing acted on (a fact, an operation, an entity). */
  subject: string;
  href?: string | undefined;
  detail: string;
}

export function ActivityPage({
  ctx,
  items,
  agent,
  scanCut = false,
  olderHref,
  olderPage = false,
  notice,
}: {
  ctx: PageContext;
  items: ActivityItem[];
  agent: string;
  scanCut?: boolean;
  /** The next page of older activity, when there is more. */
  olderHref?: string | undefined;
  /** This page is one of older activity (reached through that link). */
  olderPage?: boolean;
  notice?: { kind: "error"; text: string } | undefined;
}) {
  return (
    <Layout ctx={ctx} title="Activity">
      <h1>Activity</h1>
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <form class="filters" method="get" action={`${BASE}/activity`}>
        <div>
          <label for="a-agent">Agent</label>
          <input id="a-agent" name="agent" type="text" value={agent} placeholder="everyone" />
        </div>
        <div>
          <button type="submit">Show</button>
        </div>
      </form>
      <table>
        <thead>
          <tr>
            <th>When</th>
            <th>Who</th>
            <th>Where</th>
            <th>What</th>
            <th>On</th>
            <th>Detail</th>
          </tr>
        </thead>
        <tbody>
          {items.map((i) => (
            <tr data-area={i.area}>
              <td>
                <time dateTime={i.at} title={i.at}>
                  {age(i.at)}
                </time>
              </td>
              <td>{i.actor}</td>
              <td>{i.area}</td>
              <td>{i.what}</td>
              <td>{i.href ? <a href={i.href}>{i.subject}</a> : i.subject}</td>
              <td>{i.detail}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {scanCut && (
        <p class="hint">
          This page stopped after looking through as many writes as one page may (LIST_SCAN_MAX) without finding enough by {agent}; older ones may be further back: Older activity goes on from there.
        </p>
      )}
      {items.length === 0 && !scanCut && !notice && <p class="empty">{olderPage ? "Nothing older." : "Nothing yet."}</p>}
      <nav class="pager" aria-label="Pages">
        {olderHref && <a href={olderHref}>Older activity</a>}
      </nav>
    </Layout>
  );
}
