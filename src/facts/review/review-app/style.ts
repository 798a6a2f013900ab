// The review app's style. Colours come from the host's variables (MCP Apps'
// --color-*, set by applyHostStyleVariables) with light-dark() fallbacks, so
// the page follows the host's theme, or the system's when the host sets none.
export const APP_STYLE = String.raw`
:root { color-scheme: light dark; font-family: var(--font-sans, system-ui, sans-serif); font-size: var(--font-text-md-size, 15px);
  --bg: var(--color-background-primary, light-dark(#ffffff, #1f1f1f)); --bg2: var(--color-background-secondary, light-dark(#f4f4f5, #2a2a2d));
  --fg: var(--color-text-primary, light-dark(#1a1a1a, #ececec)); --fg2: var(--color-text-secondary, light-dark(#555a60, #b0b4ba));
  --line: var(--color-border-primary, light-dark(#d4d4d8, #46464c)); --ring: var(--color-ring-primary, light-dark(#1d4ed8, #8ab4ff));
  --add-bg: light-dark(#dcfce7, #14391f); --add-fg: var(--color-text-success, light-dark(#14532d, #a7f3c0));
  --del-bg: light-dark(#fee2e2, #451717); --del-fg: var(--color-text-danger, light-dark(#7f1d1d, #fecaca)); }
body { margin: 0; padding: 12px 16px; background: var(--bg); color: var(--fg); line-height: 1.45; }
h1 { font-size: 1.25rem; margin: 0 0 4px; } h2 { font-size: 1.05rem; margin: 0; overflow-wrap: anywhere; } h3, h4 { font-size: .9rem; margin: 8px 0 4px; }
ol.queue { list-style: none; margin: 0; padding: 0; }
.item { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; margin: 10px 0; background: var(--bg); }
.item[data-done] { opacity: .75; }
.meta, #summary { color: var(--fg2); margin: 2px 0; font-size: .9em; }
.description { margin: 6px 0; }
pre { background: var(--bg2); padding: 8px; border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 24em; overflow: auto; margin: 4px 0; }
ins { background: var(--add-bg); color: var(--add-fg); text-decoration: none; } del { background: var(--del-bg); color: var(--del-fg); }
pre ins, pre del { display: block; } pre ins::before { content: "+ "; } pre del::before { content: "- "; }
.actions { display: grid; gap: 6px; margin-top: 8px; } label { font-size: .9em; color: var(--fg2); }
textarea { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 6px; resize: vertical; }
.buttons { display: flex; gap: 8px; }
button { font: inherit; padding: 6px 14px; border-radius: 6px; border: 1px solid var(--line); background: var(--bg2); color: var(--fg); cursor: pointer; }
button.danger { color: var(--del-fg); } button:disabled { opacity: .5; cursor: default; }
:focus-visible { outline: 3px solid var(--ring); outline-offset: 2px; }
.status:empty { display: none; } .status { margin: 0; } .status.error { color: var(--del-fg); } .status.ok { color: var(--add-fg); }
`;
