// The review queue: drafts this person may confirm, oldest first, then the
// stale facts they may confirm again, the longest unreviewed first. Each item
// is a plain form (works without script); console.js adds j/k/c/d/r to both.
import { REASON_MAX_CHARS } from "../../limits.js";
import type { ReviewItem, ReviewQueue, SimilarFact, StaleItem, StaleQueue } from "../../facts/index.js";
import { age } from "../render.js";
import { FieldChange, TextDiff } from "./diff.js";
import { BASE, CsrfField, Layout, Notice, type PageContext } from "./layout.js";

export interface QueueNotice {
  kind: "ok" | "error";
  text: string;
}

export function QueuePage({
  ctx,
  queue,
  stale,
  notice,
  after,
  staleCursor,
}: {
  ctx: PageContext;
  queue: ReviewQueue;
  stale: StaleQueue;
  notice?: QueueNotice | undefined;
  after?: string | undefined;
  /** The stale list goes on from here (its "More stale facts" link). */
  staleCursor?: string | undefined;
}) {
  const count = `${queue.count + stale.count}${queue.countCapped || stale.countCapped ? "+" : ""}`;
  // Stale facts follow the drafts on the first page (and on the stale list's own next pages); the draft pages after it are drafts only.
  const showStale = (after === undefined || staleCursor !== undefined) && (stale.items.length > 0 || stale.nextCursor !== null);
  return (
    <Layout ctx={ctx} title="Review">
      <h1>
        Review queue <span class="count" data-count>{count}</span>
      </h1>
      <p class="hint">
        Drafts written by others in scopes you may write, oldest first; then confirmed facts nobody has reviewed for a long time (stale). Keys: <kbd>j</kbd>/<kbd>k</kbd> next/previous, <kbd>c</kbd> confirm,{" "}
        <kbd>d</kbd> deprecate, <kbd>r</kbd> reason.
      </p>
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      {queue.scanCut && (
        <p class="hint" data-scan-cut>
          This page stopped after looking through as many drafts as one page may (LIST_SCAN_MAX), most of them not yours to review; more may wait:
          Next page of drafts goes on from there.
        </p>
      )}
      {queue.items.length === 0 ? (
        !queue.scanCut && (
          <p class="empty">{after ? "No more drafts after this point." : showStale ? "No drafts wait for your review." : "Nothing waits for your review."}</p>
        )
      ) : (
        <ol class="queue">
          {queue.items.map((item) => (
            <li>
              <QueueItem ctx={ctx} item={item} />
            </li>
          ))}
        </ol>
      )}
      <nav class="pager" aria-label="Pages">
        {after !== undefined && <a href={BASE}>First page</a>}
        {queue.nextCursor !== null && <a href={`${BASE}?after=${encodeURIComponent(queue.nextCursor)}`}>Next page of drafts</a>}
      </nav>
      {showStale && (
        <section class="stale-queue" aria-labelledby="stale-heading">
          <h2 id="stale-heading">
            Stale facts <span class="count" data-stale-count>{`${stale.count}${stale.countCapped ? "+" : ""}`}</span>
          </h2>
          <p class="hint">
            Confirmed, but nobody has reviewed them for a long time; the longest unreviewed first
            {stale.count > stale.items.length ? `, ${stale.items.length} of ${stale.count} shown (each one you handle makes room for the next)` : ""}. Re-confirm
            what still holds, deprecate what does not.
            {stale.scanCut ? " This list stopped after looking through as many stale facts as one page may (LIST_SCAN_MAX), most of them not yours to review: More stale facts goes on from there." : ""}
          </p>
          <ol class="queue">
            {stale.items.map((item) => (
              <li>
                <StaleQueueItem ctx={ctx} item={item} />
              </li>
            ))}
          </ol>
          {stale.nextCursor !== null && (
            <nav class="pager" aria-label="Stale facts">
              <a href={`${BASE}?${new URLSearchParams({ stale: stale.nextCursor }).toString()}`}>More stale facts</a>
            </nav>
          )}
        </section>
      )}
    </Layout>
  );
}

function QueueItem({ ctx, item }: { ctx: PageContext; item: ReviewItem }) {
  const id = `review-${item.scope}-${item.name}`;
  return (
    <article class="item" id={id} data-item tabIndex={-1} aria-labelledby={`${id}-name`}>
      <header>
        <h2 id={`${id}-name`}>
          <a href={`${BASE}/facts/${item.scope}/${item.name}`}>{item.name}</a>
        </h2>
        <p class="meta">
          <span class="scope">{item.scope}</span> · {item.type} · by <strong>{item.author}</strong> ·{" "}
          <time dateTime={item.updatedAt} title={item.updatedAt}>
            {age(item.updatedAt)}
          </time>{" "}
          · version {item.version}
          {item.previous ? " (updated)" : " (new)"}
        </p>
      </header>
      <p class="description">{item.description}</p>
      <SimilarFacts similar={item.similar} />
      {item.previous ? (
        <div class="changes">
          <h3>Changes since version {item.version - 1}</h3>
          <FieldChange label="Description" before={item.previous.description} after={item.description} />
          <FieldChange label="Type" before={item.previous.type} after={item.type} />
          <TextDiff before={item.previous.body} after={item.body} />
        </div>
      ) : (
        <pre class="body">{item.body}</pre>
      )}
      <ReviewForm ctx={ctx} id={id} item={item} confirmLabel="Confirm" />
    </article>
  );
}

/**
 * The readable facts much like a draft, with what to do if it copies one. Not
 * "the author was warned": an older fact's author got no warning, and updates
 * never warn. A deprecated look-alike is listed as already withdrawn and never
 * named in the advice: after a reviewer withdraws one of two copies, the other's
 * card would say "deprecate it as duplicate of <the withdrawn one>", and
 * following both cards would withdraw both.
 */
function SimilarFacts({ similar }: { similar: SimilarFact[] }) {
  if (similar.length === 0) return null;
  const live = similar.filter((s) => s.status !== "deprecated");
  return (
    <div class="notice notice-info similar" role="note">
      <p>
        <strong>Similar facts exist:</strong>
      </p>
      <ul>
        {similar.map((s) => (
          <li data-similar={s.status === "deprecated" ? "withdrawn" : "live"}>
            <a href={`${BASE}/facts/${s.scope}/${s.name}`}>{s.name}</a>{" "}
            {s.status === "deprecated" ? `(already withdrawn: deprecated, scope ${s.scope}, v${s.version})` : `(${s.status}, scope ${s.scope}, v${s.version})`}: {s.description}
          </li>
        ))}
      </ul>
      {live.length > 0 ? (
        <p>
          If this draft says the same thing as one of them, deprecate it with the reason "duplicate of {live[0]!.name}" (or of the one it copies) instead of confirming
          it.{live.length < similar.length ? " The withdrawn ones need nothing more." : ""}
        </p>
      ) : (
        <p>All of them are already withdrawn: nothing here to deprecate this draft for.</p>
      )}
    </div>
  );
}

function StaleQueueItem({ ctx, item }: { ctx: PageContext; item: StaleItem }) {
  const id = `stale-${item.scope}-${item.name}`;
  return (
    <article class="item stale" id={id} data-item data-stale tabIndex={-1} aria-labelledby={`${id}-name`}>
      <header>
        <h2 id={`${id}-name`}>
          <a href={`${BASE}/facts/${item.scope}/${item.name}`}>{item.name}</a>
        </h2>
        <p class="stale-note" data-stale-note>
          stale — last reviewed {item.staleDays} days ago
        </p>
        <p class="meta">
          <span class="scope">{item.scope}</span> · {item.type} · by <strong>{item.author}</strong> · version {item.version} · confirmed by{" "}
          <strong>{item.statusBy}</strong>{" "}
          <time dateTime={item.statusAt ?? ""} title={item.statusAt ?? ""}>
            {item.statusAt ? age(item.statusAt) : ""}
          </time>
        </p>
      </header>
      <p class="description">{item.description}</p>
      <pre class="body">{item.body}</pre>
      <ReviewForm ctx={ctx} id={id} item={item} confirmLabel="Re-confirm" />
    </article>
  );
}

/** Confirm (or Re-confirm) and Deprecate with a reason: memory_promote's code path, via POST /review. */
function ReviewForm({ ctx, id, item, confirmLabel }: { ctx: PageContext; id: string; item: { name: string; scope: string; version: number }; confirmLabel: string }) {
  return (
    <form class="review" method="post" action={`${BASE}/review`}>
      <CsrfField csrf={ctx.csrf} />
      <input type="hidden" name="name" value={item.name} />
      <input type="hidden" name="scope" value={item.scope} />
      <input type="hidden" name="version" value={String(item.version)} />
      <label for={`${id}-reason`}>Reason</label>
      <textarea id={`${id}-reason`} name="reason" rows={2} maxLength={REASON_MAX_CHARS} data-reason placeholder="What you checked, or what is wrong (required to deprecate)" />
      <ReviewButtons confirmLabel={confirmLabel} />
    </form>
  );
}

/** The two actions of a review form (queue items and a fact page); no confirm button when confirmLabel is undefined. */
export function ReviewButtons({ confirmLabel }: { confirmLabel: string | undefined }) {
  return (
    <div class="actions">
      {confirmLabel !== undefined && (
        <button type="submit" name="to" value="confirmed" data-confirm>
          {confirmLabel}
        </button>
      )}
      <button type="submit" name="to" value="deprecated" class="danger" data-deprecate>
        Deprecate
      </button>
    </div>
  );
}
