// The review app's own script, run in the host's sandboxed frame after the
// extension's bundle (page.ts puts both inline; `extApps` holds the bundle's
// exports). Kept as a string so the build (tsc) ships it without a copy step.
//
// Every value from the service goes into the page as text (textContent or a
// text node), never as markup: agents write these names and bodies. Each
// button calls memory_promote through the host, as the person or agent the
// host connected, so the self-approval guard, the version check and the
// scopes hold exactly as over MCP. A refusal is told apart by its stable
// reason (_meta's ERROR_META_KEY), never by its words; the review's own texts
// are the service's (rules.ts), written into the script here.
import { ERROR_META_KEY } from "../../../mcp/guard.js";
import { confirmationReason, DEPRECATION_NEEDS_REASON } from "../../rules.js";

export const APP_SCRIPT = String.raw`
const { App, applyDocumentTheme, applyHostStyleVariables } = extApps;
const app = new App({ name: "agent-memory-review", version: "1" }, {}, { autoResize: true });
const byId = (id) => document.getElementById(id);

/** An element with attributes and children; strings become text nodes. */
function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function applyHostContext(context) {
  if (!context) return;
  if (context.theme === "light" || context.theme === "dark") applyDocumentTheme(context.theme);
  if (context.styles && context.styles.variables) applyHostStyleVariables(context.styles.variables);
}

function diffBlock(lines) {
  const pre = el("pre", { class: "diff" });
  for (const line of lines) {
    const text = line.text + "\n";
    pre.append(line.kind === "added" ? el("ins", {}, text) : line.kind === "removed" ? el("del", {}, text) : text);
  }
  return pre;
}

function changes(fact) {
  const box = el("div", { class: "changes" }, el("h3", {}, "Changes since version " + (fact.version - 1)));
  for (const [label, before, after] of [["Description", fact.previous.description, fact.description], ["Type", fact.previous.type, fact.type]]) {
    if (before !== after) box.append(el("p", { class: "field-change" }, label + ": ", el("del", {}, before), " → ", el("ins", {}, after)));
  }
  if (fact.diff) box.append(diffBlock(fact.diff));
  else box.append(el("p", { class: "meta" }, "Too different to compare line by line; both versions in full:"), el("h4", {}, "Before"), el("pre", { class: "body" }, fact.previous.body), el("h4", {}, "After"), el("pre", { class: "body" }, fact.body));
  return box;
}

const DONE = { confirmed: "Confirmed", deprecated: "Deprecated" };

async function promote(fact, to, parts) {
  const { reason, status, buttons } = parts;
  let text = reason.value.trim();
  if (to === "deprecated" && text === "") {
    status.className = "status error";
    status.textContent = ${JSON.stringify(DEPRECATION_NEEDS_REASON)};
    reason.focus();
    return;
  }
  if (text === "") text = ${JSON.stringify(confirmationReason("{version}", "the review app"))}.replace("{version}", String(fact.version));
  for (const b of buttons) b.disabled = true;
  status.className = "status";
  status.textContent = "Sending…";
  let result;
  try {
    result = await app.callServerTool({ name: "memory_promote", arguments: { name: fact.name, scope: fact.scope, to, reason: text, version: fact.version } });
  } catch (error) {
    result = { isError: true, content: [{ type: "text", text: String(error && error.message ? error.message : error) }] };
  }
  const message = (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  if (result.isError) {
    for (const b of buttons) b.disabled = false;
    status.className = "status error";
    // memory_promote's conflict: another version replaced the one on screen.
    const refusal = (result._meta || {})[${JSON.stringify(ERROR_META_KEY)}] || {};
    const changed = refusal.reason === "changed_since_read" ? "Changed since you opened it. " : "";
    status.textContent = "Not done. " + changed + message;
    return;
  }
  const answer = result.structuredContent || {};
  status.className = "status ok";
  status.textContent = DONE[to] + " by " + (answer.actor || "you") + ".";
  parts.card.setAttribute("data-done", to);
}

function card(fact, id, kind) {
  const card = el("article", { class: "item", "aria-labelledby": id + "-name", "data-name": fact.name });
  const detail = kind === "stale" ? " · not reviewed for " + fact.staleDays + " days" : fact.previous ? " (updated)" : " (new)";
  card.append(
    el("h2", { id: id + "-name" }, fact.name),
    el("p", { class: "meta" }, fact.scope + " · " + fact.type + " · by " + fact.author + " · version " + fact.version + detail),
    el("p", { class: "description" }, fact.description),
    kind === "draft" && fact.previous ? changes(fact) : el("pre", { class: "body" }, fact.body),
  );
  const reason = el("textarea", { id: id + "-reason", rows: "2" });
  const confirm = el("button", { type: "button", "data-confirm": "" }, kind === "stale" ? "Confirm again" : "Confirm");
  const deprecate = el("button", { type: "button", class: "danger", "data-deprecate": "" }, "Deprecate");
  const status = el("p", { class: "status", role: "status", "aria-live": "polite" });
  const parts = { card, reason, status, buttons: [confirm, deprecate] };
  confirm.addEventListener("click", () => promote(fact, "confirmed", parts));
  deprecate.addEventListener("click", () => promote(fact, "deprecated", parts));
  card.append(el("div", { class: "actions" }, el("label", { for: id + "-reason" }, "Reason (required to deprecate)"), reason, el("div", { class: "buttons" }, confirm, deprecate), status));
  return card;
}

function render(data) {
  const main = byId("app");
  main.setAttribute("aria-busy", "false");
  if (!data || !Array.isArray(data.drafts)) {
    byId("summary").textContent = "No review queue in this answer.";
    return;
  }
  const plus = data.countCapped ? "+" : "";
  byId("summary").textContent = data.draftCount + plus + " draft(s) wait for your review; " + data.staleCount + plus + " stale fact(s)." + (data.nextCursor ? " More drafts follow: call memory_review with cursor." : "");
  byId("drafts").replaceChildren(...data.drafts.map((d, i) => el("li", {}, card(d, "draft-" + i, "draft"))));
  const stale = Array.isArray(data.stale) ? data.stale : [];
  byId("stale-section").hidden = stale.length === 0;
  byId("stale").replaceChildren(...stale.map((s, i) => el("li", {}, card(s, "stale-" + i, "stale"))));
}

app.ontoolresult = (result) => {
  if (result.isError) {
    byId("app").setAttribute("aria-busy", "false");
    byId("summary").textContent = (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
    return;
  }
  render(result.structuredContent);
};
app.onhostcontextchanged = applyHostContext;
await app.connect();
applyHostContext(app.getHostContext());
`;
