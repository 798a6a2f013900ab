// The fact page's trust parts: the supersession links, the redaction
// tombstones, and the redact form (for people who may redact: a human with
// write access to the scope).
import { REASON_MAX_CHARS } from "../../limits.js";
import type { FullFact } from "../../facts/index.js";
import { CsrfField, type PageContext } from "./layout.js";

const refHref = (ref: string) => {
  const slash = ref.indexOf("/");
  return `/console/facts/${encodeURIComponent(ref.slice(0, slash))}/${encodeURIComponent(ref.slice(slash + 1))}`;
};

export function FactLinks({ fact }: { fact: FullFact }) {
  if (!fact.supersedes && !fact.supersededBy && !fact.replacements) return null;
  return (
    <ul class="links" data-links>
      {fact.supersededBy && (
        <li>
          Superseded by <a href={refHref(fact.supersededBy)}>{fact.supersededBy}</a>: follow that fact.
        </li>
      )}
      {fact.supersedes && (
        <li>
          Replaces <a href={refHref(fact.supersedes)}>{fact.supersedes}</a>
          {fact.status === "draft" ? ", once someone other than its author confirms it." : "."}
        </li>
      )}
      {fact.replacements && (
        <li>
          Proposed replacements (drafts):{" "}
          {fact.replacements.map((r, i) => (
            <>
              {i > 0 && ", "}
              <a href={refHref(r)}>{r}</a>
            </>
          ))}
        </li>
      )}
    </ul>
  );
}

export function Redactions({ fact }: { fact: FullFact }) {
  if (!fact.redactions) return null;
  return (
    <>
      <h2>Redactions</h2>
      <ul data-redactions>
        {fact.redactions.map((r) => (
          <li>
            Version {r.version} redacted by <strong>{r.by}</strong> at{" "}
            <time dateTime={r.at} title={r.at}>
              {`${r.at.replace("T", " ").slice(0, 19)} UTC`}
            </time>
            : {r.reason}
          </li>
        ))}
      </ul>
    </>
  );
}

export function RedactForm({ ctx, fact, action }: { ctx: PageContext; fact: FullFact; action: string }) {
  const done = new Set((fact.redactions ?? []).map((r) => r.version));
  const open = [...fact.versions].reverse().filter((v) => !done.has(v.version));
  if (open.length === 0) return null;
  return (
    <details class="card" data-redact>
      <summary>Redact a version…</summary>
      <p>
        Removes the version's description and body for good, from every table and from later exports; a tombstone keeps who, when and why.
        Use it for a credential or personal data, not for a wrong fact (deprecate that).
      </p>
      <form method="post" action={action}>
        <CsrfField csrf={ctx.csrf} />
        <label for="redact-version">Version</label>
        <select id="redact-version" name="version">
          {open.map((v) => (
            <option value={String(v.version)}>{`Version ${v.version} by ${v.author}`}</option>
          ))}
        </select>
        <label for="redact-reason">Reason (required)</label>
        <textarea id="redact-reason" name="reason" rows={2} maxLength={REASON_MAX_CHARS} required placeholder="Why this text must go" />
        <button type="submit" class="danger">
          Redact
        </button>
      </form>
    </details>
  );
}

/** The entity page's redact form: the whole entity, or one of the observations shown (by position, as open_nodes counts them). */
/** The redact form's value for one observation: this prefix and the observation's exact text. */
export const OBSERVATION_CHOICE = "observation:";

export function GraphRedactForm(props: { ctx: PageContext; action: string; scope: string; name: string; observations: string[]; offset: number }) {
  const { ctx, action, scope, name, observations, offset } = props;
  return (
    <details class="card" data-redact>
      <summary>Redact…</summary>
      <p>
        Removes the text for good: the entity with its type, observations and relations, or one observation. Deletion records keep none of it; a
        tombstone keeps who, when and why.
      </p>
      <form method="post" action={action}>
        <CsrfField csrf={ctx.csrf} />
        <input type="hidden" name="scope" value={scope} />
        <input type="hidden" name="name" value={name} />
        <label for="redact-what">What</label>
        <select id="redact-what" name="what">
          <option value="entity">The whole entity</option>
          {observations.map((o, i) => (
            <option value={OBSERVATION_CHOICE + o}>{`Observation ${offset + i + 1}: ${o.length > 60 ? `${o.slice(0, 60)}…` : o}`}</option>
          ))}
        </select>
        <label for="redact-reason">Reason (required)</label>
        <textarea id="redact-reason" name="reason" rows={2} maxLength={REASON_MAX_CHARS} required placeholder="Why this text must go" />
        <button type="submit" class="danger">
          Redact
        </button>
      </form>
    </details>
  );
}
