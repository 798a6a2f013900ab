// The consent pages, rendered on the server with preact-render-to-string (the
// console's choice): every value is escaped by construction, so a client that
// registers the name "<script>…" shows that text and nothing runs. Plain h()
// calls rather than TSX keep this folder free of JSX build settings.
import { h, type ComponentChildren, type VNode } from "preact";
import { render } from "preact-render-to-string";
import { clip } from "../text.js";

export interface ClientView {
  /** The registered client_name, if any (shortened for display). */
  name: string | undefined;
  /** Where the browser goes afterwards: the host a look-alike cannot fake. */
  redirectHost: string;
  clientId: string;
}

export interface AgentChoice {
  name: string;
  kind: "agent" | "human";
  writeScopes: string[];
  readScopes: string[];
  own: boolean;
}

const MAX_NAME_CHARS = 80;

export function displayName(name: string | undefined): string | undefined {
  if (!name) return undefined;
  return clip(name, MAX_NAME_CHARS);
}

function page(title: string, ...children: ComponentChildren[]): string {
  const html = h(
    "html",
    { lang: "en" },
    h("head", null, h("meta", { charset: "utf-8" }), h("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }), h("title", null, title), h("link", { rel: "stylesheet", href: "/oauth/consent.css" })),
    h("body", null, h("main", null, h("h1", null, title), ...children)),
  );
  return `<!doctype html>${render(html)}`;
}

function clientLine(client: ClientView): VNode<any> {
  return h(
    "p",
    { class: "client" },
    h("strong", { "data-testid": "client-name" }, client.name ?? "An unnamed client"),
    " wants to use agent-memory. After you answer, your browser goes to ",
    h("strong", { "data-testid": "redirect-host" }, client.redirectHost),
    ". If you did not start this from that application, deny.",
  );
}

function hidden(name: string, value: string): VNode<any> {
  return h("input", { type: "hidden", name, value });
}

export function signInPage(client: ClientView, requestId: string, error?: string): string {
  return page(
    "Connect an application to agent-memory",
    clientLine(client),
    error ? h("p", { class: "error", role: "alert" }, error) : null,
    h(
      "form",
      { method: "post", action: "/oauth/consent" },
      hidden("request", requestId),
      hidden("step", "signin"),
      h("label", { for: "token" }, "Sign in with your token (the token of your human agent, amk_…)"),
      h("input", { id: "token", name: "token", type: "password", autocomplete: "off", required: true }),
      h("button", { type: "submit" }, "Sign in"),
      " ",
      h("button", { type: "submit", name: "decision", value: "deny", class: "secondary", formnovalidate: true }, "Deny"),
    ),
  );
}

function scopesText(agent: AgentChoice): string {
  const read = agent.readScopes.length > 0 ? `; reads also ${agent.readScopes.join(", ")}` : "";
  return `writes ${agent.writeScopes.join(", ") || "nothing"}${read}`;
}

export function choosePage(client: ClientView, requestId: string, human: string, agents: AgentChoice[]): string {
  return page(
    "Choose the agent",
    clientLine(client),
    h("p", null, "Signed in as ", h("strong", null, human), ". The application will act as the agent you choose, with exactly that agent's scopes; everything it writes is authored by that agent."),
    h(
      "form",
      { method: "post", action: "/oauth/consent" },
      hidden("request", requestId),
      hidden("step", "decide"),
      h(
        "fieldset",
        null,
        h("legend", null, agents.length > 1 ? "Act as (choose one: nothing is chosen for you)" : "Act as"),
        // With several choices none is preselected: the person's own identity is
        // often the most powerful one (an admin writes every scope).
        ...agents.map((agent) =>
          h(
            "label",
            { class: "choice" },
            h("input", { type: "radio", name: "agent", value: agent.name, checked: agents.length === 1, required: true }),
            " ",
            h("strong", null, agent.name),
            ` (${agent.kind}${agent.own ? ", you" : ""}): ${scopesText(agent)}`,
          ),
        ),
      ),
      h("button", { type: "submit", name: "decision", value: "approve" }, "Allow"),
      " ",
      h("button", { type: "submit", name: "decision", value: "deny", class: "secondary" }, "Deny"),
    ),
  );
}

export function errorPage(message: string): string {
  return page("Authorization not possible", h("p", { class: "error", role: "alert" }, message));
}

export const CONSENT_CSS = `
body { font-family: system-ui, sans-serif; background: #f6f7f9; color: #1d2430; margin: 0; }
main { max-width: 34rem; margin: 3rem auto; background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 4px rgba(0,0,0,.1); }
h1 { font-size: 1.3rem; margin-top: 0; }
label { display: block; margin: .8rem 0 .3rem; }
input[type=password] { width: 100%; padding: .5rem; box-sizing: border-box; }
fieldset { border: 1px solid #d5d9e0; border-radius: 6px; margin: 1rem 0; }
.choice { margin: .4rem 0; }
button { margin-top: 1rem; padding: .5rem 1.2rem; border: 0; border-radius: 4px; background: #2457c5; color: #fff; cursor: pointer; }
button.secondary { background: #6b7280; }
.error { color: #a61b1b; }
.client { background: #f0f4ff; padding: .8rem; border-radius: 6px; }
`;
