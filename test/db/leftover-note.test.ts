// What a start on Postgres says about an embedded folder beside it: "moved here,
// may be deleted" only on the database it was moved to; nothing when it went to
// another; a warning when it was never moved.
import { describe, expect, it } from "vitest";
import { leftoverStartNote } from "../../src/db/embedded/leftover.js";

const moved = { dataDir: "./.agent-memory", moved: { to: "Postgres at db1:5432/agent_memory", at: "2026-12-01T10:00:00.000Z" } };

describe("the start's note on an embedded folder beside Postgres", () => {
  it("says it may be deleted when this service serves the database it was moved to", () => {
    expect(leftoverStartNote(moved, "Postgres at db1:5432/agent_memory")).toMatchObject({ level: "info", message: expect.stringContaining("moved here; its folder may be deleted") });
  });

  it("says nothing when this service serves another database", () => {
    expect(leftoverStartNote(moved, "Postgres at db2:5432/other")).toBeUndefined();
    expect(leftoverStartNote(moved, "Postgres at db1:5432/agent_memory_test")).toBeUndefined();
  });

  it("warns about a folder that was never moved, whatever this service serves", () => {
    expect(leftoverStartNote({ dataDir: "./.agent-memory" }, "Postgres at db2:5432/other")).toMatchObject({ level: "warn" });
  });
});
