// The console's only static files, kept as strings so that the build (tsc)
// ships them without a copy step. Served from this origin, so the CSP can say
// script-src 'self' and style-src 'self' and allow nothing inline.
import type { Router } from "express";

/**
 * Keyboard shortcuts, the copy button, and a confirmation before forms marked
 * data-ask. Every action is a plain form that works without this file; it only
 * moves focus, presses those forms' buttons, and asks before some.
 */
const CONSOLE_JS = String.raw`"use strict";
(function () {
  var current = -1;
  function items() { return Array.prototype.slice.call(document.querySelectorAll("[data-item]")); }
  // Marks item i as the one c, d and r act on; with focus, also moves there.
  function select(i, focus) {
    var list = items();
    if (list.length === 0) return;
    current = Math.max(0, Math.min(i, list.length - 1));
    list.forEach(function (el, j) { el.classList.toggle("current", j === current); });
    if (!focus) return;
    list[current].focus();
    list[current].scrollIntoView({ block: "nearest" });
  }
  function currentItem() {
    var list = items();
    var inside = document.activeElement && document.activeElement.closest ? document.activeElement.closest("[data-item]") : null;
    if (inside) current = list.indexOf(inside);
    return list[current] || null;
  }
  function typing(el) {
    return el instanceof HTMLElement && (el.isContentEditable || el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT");
  }
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var target = e.target;
    if (typing(target)) {
      if (e.key === "Escape") { target.blur(); var it = target.closest("[data-item]"); if (it) it.focus(); }
      // After "d": Enter in the reason field deprecates (Shift+Enter is a new line).
      if (e.key === "Enter" && !e.shiftKey && target.hasAttribute("data-reason") && target.value.trim() !== "") {
        var pending = target.closest("[data-item]");
        if (pending && pending.getAttribute("data-pending") === "deprecate") { e.preventDefault(); pending.querySelector("[data-deprecate]").click(); }
      }
      return;
    }
    var item;
    switch (e.key) {
      case "j": select(current + 1, true); break;
      case "k": select(current < 0 ? 0 : current - 1, true); break;
      case "c": item = currentItem(); if (!item) return; item.querySelector("[data-confirm]").click(); break;
      case "d":
        item = currentItem(); if (!item) return;
        var reason = item.querySelector("[data-reason]");
        if (reason && reason.value.trim() === "") { item.setAttribute("data-pending", "deprecate"); reason.focus(); }
        else item.querySelector("[data-deprecate]").click();
        break;
      case "r": item = currentItem(); if (!item) return; item.querySelector("[data-reason]").focus(); break;
      default: return;
    }
    e.preventDefault();
  });
  document.addEventListener("click", function (e) {
    var button = e.target && e.target.closest ? e.target.closest("[data-copy]") : null;
    if (!button) return;
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source || !navigator.clipboard) return;
    navigator.clipboard.writeText(source.textContent || "").then(function () { button.textContent = "Copied"; });
  });
  // Forms that cannot be undone in one click (revoke a token, disable an agent) ask first.
  document.addEventListener("submit", function (e) {
    var ask = e.target && e.target.getAttribute ? e.target.getAttribute("data-ask") : null;
    if (ask && !window.confirm(ask)) e.preventDefault();
  });
  // A "select all" box checks or clears every box of its form named by data-select-all.
  document.addEventListener("change", function (e) {
    var box = e.target;
    var name = box && box.getAttribute ? box.getAttribute("data-select-all") : null;
    if (!name || !box.form) return;
    Array.prototype.forEach.call(box.form.querySelectorAll("input[type=checkbox][name='" + name + "']"), function (b) { b.checked = box.checked; });
  });
  // The first item is marked on load, so c confirms it at once, but not focused:
  // focus stays at the top of the page, where Tab reaches the skip link first.
  document.addEventListener("DOMContentLoaded", function () { if (items().length > 0) select(0, false); });
})();
`;

const CONSOLE_CSS = String.raw`:root { color-scheme: light; --fg: #1d2327; --muted: #5f6b73; --line: #d8dee2; --bg: #f6f7f8; --accent: #0b5cad; --ok: #17663a; --bad: #a32020; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
header.top { display: flex; flex-wrap: wrap; align-items: center; gap: .4rem 1.5rem; padding: .6rem 1.5rem; background: #fff; border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; text-decoration: none; color: var(--fg); }
nav { display: flex; flex-wrap: wrap; gap: .2rem 1rem; }
nav a { text-decoration: none; }
nav a[aria-current="page"] { font-weight: 700; border-bottom: 2px solid var(--accent); }
.signout { margin-left: auto; display: flex; gap: .6rem; align-items: center; }
.who { color: var(--muted); }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.5rem; }
h2 { font-size: 1.15rem; margin: 0; }
h3 { font-size: 1rem; margin: .8rem 0 .3rem; }
.count { display: inline-block; min-width: 2rem; padding: 0 .5rem; border-radius: 1rem; background: var(--accent); color: #fff; font-size: 1rem; text-align: center; vertical-align: middle; }
.hint, .meta, .empty { color: var(--muted); }
fieldset.void { margin-top: 1rem; border: 1px solid var(--line); border-radius: 4px; background: #fff; }
fieldset.void textarea { display: block; width: 100%; margin: .3rem 0 .6rem; }
.stale-note { margin: .2rem 0; color: #8a4b00; font-weight: 600; }
.stale-queue { margin-top: 2rem; }
.narrow { max-width: 28rem; margin: 3rem auto; }
.notice { padding: .6rem .9rem; border-radius: 4px; border: 1px solid var(--line); background: #fff; white-space: pre-wrap; }
.notice-ok { border-color: var(--ok); color: var(--ok); }
.notice-error { border-color: var(--bad); color: var(--bad); }
.similar { white-space: normal; border-color: #8a6d00; margin: .6rem 0; }
.similar p, .similar ul { margin: .2rem 0; }
ol.queue, ul.plain { list-style: none; padding: 0; }
.item, .card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 1rem 1.2rem; margin-bottom: 1rem; }
.item:focus, .item.current { outline: 3px solid var(--accent); outline-offset: 1px; }
.scope { font-family: ui-monospace, monospace; background: #eef2f5; padding: 0 .3rem; border-radius: 3px; }
pre { white-space: pre-wrap; word-break: break-word; background: var(--bg); padding: .6rem .8rem; border-radius: 4px; max-height: 24rem; overflow: auto; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
ins { background: #dcf5e3; text-decoration: none; }
del { background: #fbe0e0; }
label { display: block; font-weight: 600; margin: .6rem 0 .2rem; }
input[type=text], input[type=password], input[type=search], textarea, select { width: 100%; padding: .45rem .55rem; border: 1px solid #b9c3ca; border-radius: 4px; font: inherit; }
/* One height for one-line fields: a select's own box came out 2.5px shorter than a text input's, so in a filter row (bottoms aligned) it sat lower. */
input[type=text], input[type=password], input[type=search], select { height: 2.5rem; }
button, .button { margin-top: .6rem; padding: .4rem .9rem; border: 1px solid var(--accent); border-radius: 4px; background: var(--accent); color: #fff; font: inherit; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary { background: #fff; color: var(--accent); }
button.danger { background: #fff; color: var(--bad); border-color: var(--bad); }
.chart { display: block; width: 100%; max-width: 720px; height: auto; }
.chart-bar { fill: var(--accent); }
.chart-bar-alt { fill: var(--bad); }
.chart-missing { fill: var(--line); }
.chart-label { font-size: 12px; fill: var(--muted); }
figcaption { color: var(--muted); font-size: 0.9em; }
.actions { display: flex; gap: .6rem; }
table { width: 100%; border-collapse: collapse; background: #fff; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); }
form.inline { display: inline; }
form.inline button { margin-top: 0; }
.filters { display: flex; flex-wrap: wrap; gap: .8rem; align-items: end; }
.filters > div { min-width: 9rem; }
.filters button { height: 2.5rem; }
.filters > div.wide { flex: 1 1 16rem; max-width: 26rem; }
.pager a { margin-right: 1rem; }
.secret { font: 14px ui-monospace, monospace; background: #fff8d6; padding: .6rem; border: 1px solid #e0c85a; border-radius: 4px; word-break: break-all; }
.status-draft { color: #8a5a00; } .status-confirmed { color: var(--ok); } .status-deprecated { color: var(--bad); }
main > h2 { margin: 1.5rem 0 .5rem; }
svg.graph { display: block; margin: .8rem 0; background: #fff; border: 1px solid var(--line); border-radius: 6px; max-width: 100%; height: auto; }
.skip-link { position: absolute; left: .5rem; top: -4rem; z-index: 10; padding: .4rem .8rem; background: #fff; color: var(--accent); border: 2px solid var(--accent); border-radius: 4px; font-weight: 600; }
.skip-link:focus { top: .5rem; }
main:focus { outline: none; }
kbd { border: 1px solid var(--line); border-bottom-width: 2px; border-radius: 3px; padding: 0 .3rem; font-size: .85em; background: #fff; }
/* A phone (390 px): the navigation gets a row of its own and wraps; a wide table scrolls inside itself, never the page.
   A table marked "stack" (a fact's history, the ledger) instead shows each row as a block of labelled lines (each cell's
   data-label), so reason, target, actor and evidence are read without scrolling sideways. */
@media (max-width: 40rem) {
  header.top { padding: .5rem .8rem; }
  header.top nav { order: 3; flex-basis: 100%; }
  main { padding: .8rem .8rem 2rem; }
  table { display: block; overflow-x: auto; }
  .filters > div, .filters > div.wide { flex: 1 1 100%; max-width: none; }
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; overflow-x: visible; }
  table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table.stack tr { padding: .4rem .6rem; border-bottom: 1px solid var(--line); }
  table.stack td { padding: .1rem 0; border: 0; overflow-wrap: anywhere; }
  table.stack td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; color: var(--muted); }
  table.stack td:empty { display: none; }
}
`;

/** The tab icon: a small blue tile with a white "m". SVG, so one file serves every size. */
const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0b5cad"/><path d="M8 24V13.5c0-1.4 1.1-2.5 2.5-2.5s2.5 1.1 2.5 2.5V24M13 13.5c0-1.4 1.1-2.5 2.5-2.5S18 12.1 18 13.5V24M18 13.5c0-1.4 1.1-2.5 2.5-2.5S23 12.1 23 13.5V24" fill="none" stroke="#fff" stroke-width="2.6" stroke-linecap="round"/></svg>
`;

export function registerAssets(router: Router): void {
  router.get("/assets/console.js", (_req, res) => {
    res.setHeader("Cache-Control", "public, max-age=300");
    res.type("text/javascript").send(CONSOLE_JS);
  });
  router.get("/assets/console.css", (_req, res) => {
    res.setHeader("Cache-Control", "public, max-age=300");
    res.type("text/css").send(CONSOLE_CSS);
  });
  router.get("/assets/favicon.svg", (_req, res) => {
    // It never changes with the data: a day in the cache is fine.
    res.setHeader("Cache-Control", "public, max-age=86400");
    res.type("image/svg+xml").send(FAVICON_SVG);
  });
}
