// The snapshot file format without a database: rendering and parsing are exact
// inverses for any content, and malformed files are refused with a reason.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DomainError } from "../../src/errors.js";
import { renderFactFile } from "../../src/snapshots/markdown.js";
import type { SnapshotFact } from "../../src/snapshots/model.js";
import { parseFactFile } from "../../src/snapshots/parse.js";

function sample(overrides: Partial<SnapshotFact> = {}): SnapshotFact {
  return {
    name: "deploy-needs-migrations",
    description: "本番デプロイの前にマイグレーションを流す",
    type: "project",
    status: "confirmed",
    scope: "shared",
    author: "deployer",
    version: 2,
    created: "2026-01-10T09:00:00.000Z",
    updated: "2026-01-11T10:30:00.123Z",
    body: "Why: the app refuses to start on an old schema.\nHow to apply: run `agent-memory migrate` first.",
    history: [
      { version: 1, event: "created", by: "deployer", at: "2026-01-10T09:00:00.000Z", from: null, to: "draft", reason: null },
      { version: 2, event: "updated", by: "deployer", at: "2026-01-11T10:30:00.123Z", from: "draft", to: "draft", reason: null },
      { version: 2, event: "confirmed", by: "reviewer", at: "2026-01-12T08:00:00.000Z", from: "draft", to: "confirmed", reason: "CI の手順と一致することを確認" },
    ],
    earlier: [{ version: 1, type: "reference", description: "migrations first", body: "v1 body\n" }],
    redactions: [],
    ...overrides,
  };
}

it("round-trips the tombstones of redacted versions, with and without earlier versions", () => {
  const redactions = [{ version: 1, by: "alice", at: "2026-01-13T08:00:00.000Z", reason: "personal data" }];
  expect(roundTrip(sample({ redactions }))).toEqual(sample({ redactions }));
  expect(renderFactFile(sample({ redactions }))).toContain("## Redactions");
  const single = sample({ version: 1, earlier: [], redactions, history: sample().history.slice(0, 1) });
  expect(roundTrip(single)).toEqual(single);
});

const roundTrip = (f: SnapshotFact) => {
  const parsed = parseFactFile(renderFactFile(f));
  if (parsed.format !== "snapshot") throw new Error("expected the export format");
  return parsed.fact;
};

function refusal(text: string): string {
  try {
    parseFactFile(text);
  } catch (error) {
    if (error instanceof DomainError) return error.message;
    throw error;
  }
  throw new Error("expected the file to be refused");
}

describe("snapshot file format", () => {
  it("renders the front matter keys in the issue's order, a readable history, and ends with one newline", () => {
    const text = renderFactFile(sample());
    expect(text).toBe(`---
name: deploy-needs-migrations
description: 本番デプロイの前にマイグレーションを流す
type: project
status: confirmed
scope: shared
author: deployer
version: 2
created: 2026-01-10T09:00:00.000Z
updated: 2026-01-11T10:30:00.123Z
---

Why: the app refuses to start on an old schema.
How to apply: run \`agent-memory migrate\` first.

<!-- agent-memory:history -->
## History

\`\`\`yaml
- version: 1
  event: created
  by: deployer
  at: 2026-01-10T09:00:00.000Z
  to: draft
- version: 2
  event: updated
  by: deployer
  at: 2026-01-11T10:30:00.123Z
  from: draft
  to: draft
- version: 2
  event: confirmed
  by: reviewer
  at: 2026-01-12T08:00:00.000Z
  from: draft
  to: confirmed
  reason: CI の手順と一致することを確認
\`\`\`

<!-- agent-memory:earlier-versions -->
## Earlier versions

\`\`\`yaml
- version: 1
  type: reference
  description: migrations first
  body: |
    v1 body
\`\`\`
`);
    expect(roundTrip(sample())).toEqual(sample());
  });

  it("keeps bodies that contain its own delimiters, --- lines, fences and backslashes", () => {
    const tricky = [
      "---",
      "<!-- agent-memory:history -->",
      "\\<!-- agent-memory:history -->",
      "\\\\<!-- agent-memory:earlier-versions -->",
      "## History",
      "```yaml",
      "- version: 1",
      "```",
      "",
      "<!-- agent-memory:history -->",
    ].join("\n");
    for (const body of [tricky, `${tricky}\n`, `\n\n${tricky}\n\n`, "한국어 본문\r\nwith CRLF\r\n", "末尾に空白 \t"]) {
      const f = sample({ body, earlier: [{ version: 1, type: "feedback", description: "old", body }] });
      expect(roundTrip(f)).toEqual(f);
    }
    // Only marker-like lines are escaped; everything else is written as is.
    const text = renderFactFile(sample({ body: tricky }));
    expect(text).toContain("\n---\n\\<!-- agent-memory:history -->\n\\\\<!-- agent-memory:history -->\n\\\\\\<!-- agent-memory:earlier-versions -->\n## History\n```yaml\n");
  });

  it("parses back exactly whatever the content (property test)", () => {
    const line = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 30 }),
      fc.constantFrom("---", "```", "```yaml", "<!-- agent-memory:history -->", "\\<!-- agent-memory:earlier-versions -->", "## History", "- version: 1", "  ", "#", "|", ">"),
    );
    const ending = fc.constantFrom("", "\n", "\n\n", "\n\n\n", " ", "\r\n");
    const text = fc.tuple(fc.array(line, { minLength: 1, maxLength: 8 }), ending).map(([lines, end]) => lines.join("\n") + end);
    const body = text.filter((s) => s.trim().length > 0);
    const oneLine = fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }).filter((s) => !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u.test(s) && s.trim() !== "");
    fc.assert(
      fc.property(body, body, oneLine, oneLine, (current, old, description, reason) => {
        const f = sample({
          body: current,
          description,
          earlier: [{ version: 1, type: "project", description, body: old }],
          history: sample().history.map((e) => (e.reason === null ? e : { ...e, reason })),
        });
        expect(roundTrip(f)).toEqual(f);
      }),
      // The first example is a counterexample fast-check once found: a whitespace-only
      // line in a body that needs double quotes (it has a \r).
      { numRuns: 300, examples: [["!", "---\n \n---\n\u{10000}\n---\n\u{10000}  \u{10000} \u{10000}\u{10000} \r\n", "!", "!"]] },
    );
  });

  it("omits the Earlier versions section for version 1", () => {
    const f = sample({ version: 1, earlier: [], history: [sample().history[0]!] });
    const text = renderFactFile(f);
    expect(text).not.toContain("Earlier versions");
    expect(text.endsWith("```\n")).toBe(true);
    expect(roundTrip(f)).toEqual(f);
  });

  it("refuses malformed files with a reason", () => {
    const good = renderFactFile(sample());
    expect(refusal("no front matter here\n")).toMatch(/no front matter/);
    expect(refusal("---\r\nname: x\r\n---\r\n")).toMatch(/Windows line endings/);
    expect(refusal("---\nname: x\n")).toMatch(/not closed/);
    expect(refusal("---\nname: [unclosed\n---\nbody\n")).toMatch(/front matter is not valid YAML/);
    expect(refusal("---\ndescription: a: b\n---\nbody\n")).toMatch(/front matter is not valid YAML/);
    expect(refusal("---\n- a\n- b\n---\nbody\n")).toMatch(/must be YAML fields/);
    expect(refusal("---\nname: a\nname: b\n---\nbody\n")).toMatch(/not valid YAML/);
    expect(refusal(good.replace("version: 2\n", "version: 2\ntags: x\n"))).toMatch(/unknown front-matter field "tags"/);
    expect(refusal(good.replace("version: 2\n", "version: two\n"))).toMatch(/"version" must be a whole number/);
    expect(refusal(good.replace("created: 2026-01-10T09:00:00.000Z", "created: 2026-01-10"))).toMatch(/"created" must be an ISO 8601 UTC time/);
    expect(refusal(good.replace("<!-- agent-memory:history -->\n", ""))).toMatch(/no History section/);
    expect(refusal(good.replace("## History\n", "## Hist\n"))).toMatch(/expected "## History"/);
    expect(refusal(good.replace("  event: updated\n", "  event: edited\n"))).toMatch(/History entry 2: "event"/);
    expect(refusal(good.replace("  by: reviewer\n", "  by: reviewer\n  note: x\n"))).toMatch(/History entry 3/);
    expect(refusal(`${good}trailing text\n`)).toMatch(/text after its generated sections/);
    expect(refusal(good.slice(0, -4))).toMatch(/not closed/);
  });

  it("reads the seeds' file-based format: body between one blank line and the last newline, trailing promotion lines taken out as promotions", () => {
    const parsed = parseFactFile(
      "---\nname: qiita-tags\ndescription: Qiitaのタグは5個まで\ntype: feedback\nstatus: confirmed\nowner: blog-writer\ncreated: 2025-03-01\n---\n\nタグを6個付けると公開に失敗する。\n\n> [confirmed] by reviewer: API の仕様で確認\n",
    );
    expect(parsed).toEqual({
      format: "seed",
      name: "qiita-tags",
      description: "Qiitaのタグは5個まで",
      type: "feedback",
      status: "confirmed",
      owner: "blog-writer",
      created: "2025-03-01T00:00:00.000Z",
      scope: undefined,
      body: "タグを6個付けると公開に失敗する。",
      bodyAsWritten: "タグを6個付けると公開に失敗する。\n\n> [confirmed] by reviewer: API の仕様で確認",
      promotions: [{ to: "confirmed", by: "reviewer", reason: "API の仕様で確認" }],
    });
    // A promotion line inside the text stays text; a body of promotion lines only stays as written.
    const inside = parseFactFile("---\nname: x\ndescription: d\ntype: project\n---\n\n> [confirmed] by a: quoted\nthen more text\n");
    expect(inside).toMatchObject({ body: "> [confirmed] by a: quoted\nthen more text", promotions: [] });
    const only = parseFactFile("---\nname: x\ndescription: d\ntype: project\n---\n\n> [deprecated] by a: gone\n");
    expect(only).toMatchObject({ body: "> [deprecated] by a: gone", promotions: [{ to: "deprecated", by: "a", reason: "gone" }] });
    expect(refusal("---\nname: x\ndescription: 42\ntype: project\n---\n\nbody\n")).toMatch(/"description" must be text, got number 42; put it in quotes/);
    expect(refusal("---\nname: x\ndescription: d\ntype: project\ncreated: yesterday\n---\n\nbody\n")).toMatch(/"created" must be a date/);
  });
});
