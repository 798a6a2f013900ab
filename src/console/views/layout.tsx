// The frame of every console page: navigation, who is signed in, sign-out.
import type { ComponentChildren } from "preact";
import type { Caller } from "../../auth/caller.js";

export interface PageContext {
  /** Absent on the sign-in page. */
  caller?: Caller;
  csrf?: string;
  admin?: boolean;
  /** Which navigation entry is current. */
  section?: "review" | "facts" | "ledger" | "activity" | "graph" | "health" | "agents";
}

export const BASE = "/console";

const NAV: Array<{ id: NonNullable<PageContext["section"]>; label: string; href: string; admin?: boolean }> = [
  { id: "review", label: "Review", href: `${BASE}` },
  { id: "facts", label: "Facts", href: `${BASE}/facts` },
  { id: "ledger", label: "Ledger", href: `${BASE}/ledger` },
  { id: "activity", label: "Activity", href: `${BASE}/activity` },
  { id: "graph", label: "Graph", href: `${BASE}/graph` },
  { id: "health", label: "Health", href: `${BASE}/health` },
  { id: "agents", label: "Agents", href: `${BASE}/agents`, admin: true },
];

export function CsrfField({ csrf }: { csrf: string | undefined }) {
  return <input type="hidden" name="csrf" value={csrf ?? ""} />;
}

export function Notice({ kind, children }: { kind: "ok" | "error" | "info"; children: ComponentChildren }) {
  return (
    <p class={`notice notice-${kind}`} role={kind === "error" ? "alert" : "status"}>
      {children}
    </p>
  );
}

export function Layout({ ctx, title, children }: { ctx: PageContext; title: string; children: ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · agent-memory`}</title>
        {/* Without an icon link the browser asks for /favicon.ico on every page, a 404 each time. */}
        <link rel="icon" type="image/svg+xml" href={`${BASE}/assets/favicon.svg`} />
        <link rel="stylesheet" href={`${BASE}/assets/console.css`} />
        <script src={`${BASE}/assets/console.js`} defer />
      </head>
      <body>
        {/* The first focusable element of every page, shown when focused: past the navigation in one key. */}
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href={BASE}>
            agent-memory
          </a>
          {ctx.caller && (
            <nav aria-label="Console">
              {NAV.filter((n) => !n.admin || ctx.admin).map((n) => (
                <a href={n.href} aria-current={ctx.section === n.id ? "page" : undefined}>
                  {n.label}
                </a>
              ))}
            </nav>
          )}
          {ctx.caller && (
            <form class="signout" method="post" action={`${BASE}/sign-out`}>
              <CsrfField csrf={ctx.csrf} />
              <span class="who">{ctx.caller.name}</span>
              <button type="submit">Sign out</button>
            </form>
          )}
        </header>
        {/* tabIndex -1: the skip link moves focus here (a plain #main only scrolls in some browsers). */}
        <main id="main" tabIndex={-1}>
          {children}
        </main>
      </body>
    </html>
  );
}
