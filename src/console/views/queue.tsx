// The review queue: drafts this person may confirm, oldest first. Each item is
// a plain form (works without script); console.js adds j/k/c/d/r.
import type { ReviewItem, ReviewQueue } from "../../facts/review.js";
import { age } from "../render.js";
import { FieldChange, TextDiff } from "./diff.js";
import { BASE, CsrfField, Layout, Notice, type PageContext } from "./layout.js";

export interface QueueNotice {
  kind: "ok" | "error";
  text: string;
}

export function QueuePage({ ctx, queue, notice, after }: { ctx: PageContext; queue: ReviewQueue; notice?: QueueNotice | undefined; after?: number | undefined }) {
  const count = `${queue.count}${queue.countCapped ? "+" : ""}`;
  return (
    <Layout ctx={ctx} title="Review">
      <h1>
        Review queue <span class="count" data-count>{count}</span>
      </h1>
      <p class="hint">
        Drafts written by others in scopes you may write, oldest first. Keys: <kbd>j</kbd>/<kbd>k</kbd> next/previous, <kbd>c</kbd> confirm,{" "}
        <kbd>d</kbd> deprecate, <kbd>r</kbd> reason.
      </p>
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      {queue.items.length === 0 ? (
        <p class="empty">{after ? "No more drafts after this point." : "Nothing waits for your review."}</p>
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
        {queue.nextAfter !== null && <a href={`${BASE}?after=${queue.nextAfter}`}>Next page</a>}
      </nav>
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
      <form class="review" method="post" action={`${BASE}/review`}>
        <CsrfField csrf={ctx.csrf} />
        <input type="hidden" name="name" value={item.name} />
        <input type="hidden" name="scope" value={item.scope} />
        <input type="hidden" name="version" value={String(item.version)} />
        <label for={`${id}-reason`}>Reason</label>
        <textarea id={`${id}-reason`} name="reason" rows={2} maxLength={2000} data-reason placeholder="What you checked, or what is wrong (required to deprecate)" />
        <div class="actions">
          <button type="submit" name="to" value="confirmed" data-confirm>
            Confirm
          </button>
          <button type="submit" name="to" value="deprecated" class="danger" data-deprecate>
            Deprecate
          </button>
        </div>
      </form>
    </article>
  );
}
