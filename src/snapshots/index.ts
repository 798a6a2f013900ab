// Snapshots: a team's memory written to a folder of Markdown and JSONL, and read
// back (agent-memory export / import). What the CLI calls.

// What the console, the CLI and the composition root call.
export { addAgentCommand } from "./agents.js";
export { type ExportReport, exportSnapshot } from "./export.js";
export { type ImportReport, importSnapshot } from "./import.js";
