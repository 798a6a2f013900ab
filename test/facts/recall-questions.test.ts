// A keyword written as a sentence or question, as agents often pass it, finds
// the facts that hold most of its content words (not all: a question has
// words no answer repeats), ranked by how many and how rare, and says which
// words matched. English, Japanese and Korean, through a real MCP client on
// both databases. Also 金曜日 finds 金曜.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { parseKeywords } from "../../src/facts/rules.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { connectClient, startInProcessService, textOf, type InProcessService } from "../support/service.js";
import { addCaller } from "./helpers.js";

interface Hit {
  name: string;
  matches: Array<{ keyword: string; in: string; how: string; words?: string[] }>;
}

describe("which keywords are sentences", () => {
  it("four words or more, or three and a question mark; question words and particles left out", () => {
    const sentence = (k: string) => parseKeywords([k])[0]!.sentence?.words ?? null;
    expect(sentence("Can we deploy on Fridays?")).toEqual(["Can", "we", "deploy", "on", "Fridays"]);
    expect(sentence("flaky integration test")).toBeNull();
    expect(sentence("deploy on Fridays?")).toEqual(["deploy", "on", "Fridays"]);
    expect(sentence("Qiitaのタグは何個まで付けられる？")).toEqual(["qiita", "タグ", "個", "付け"]);
    expect(sentence("金曜日に記事を公開してもいい？")).toEqual(["金曜日", "記事", "公開"]);
    expect(sentence("記事のタグ")).toBeNull();
    expect(sentence('"Can we deploy on Fridays?"')).toBeNull();
  });
});

describe.each(BACKENDS)("questions as keywords on %s", (backend) => {
  let tdb: TestDatabase;
  let service: InProcessService;
  let agent: Client;

  async function recall(...keywords: string[]) {
    const r = (await agent.callTool({ name: "memory_recall", arguments: { keywords } })) as CallToolResult;
    expect(r.isError, textOf(r)).toBeFalsy();
    return { text: textOf(r), hits: (r.structuredContent as { hits: Hit[] }).hits };
  }
  const names = async (...keywords: string[]) => (await recall(...keywords)).hits.map((h) => h.name);

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    service = await startInProcessService(tdb.db);
    const w = await addCaller(tdb.db, "writer", { scopes: ["shared"] });
    agent = await connectClient(service, w.token, "writer");
    const facts: Array<[string, string, string]> = [
      ["qiita-tag-limit", "Qiita の記事にはタグを5つまでしか付けられない", "6つ目を付けると投稿が失敗する。"],
      ["qiita-schedule", "Qiita の記事は朝に公開する", "読者が多い時間帯。"],
      ["friday-publishing", "金曜の記事公開は避ける", "週末に反応できる人がいない。"],
      ["qiita-tags-ko", "Qiita 태그는 5개까지 붙일 수 있다", "여섯 번째 태그는 거부된다."],
      ["ko-baepo-geumyoil", "배포는 금요일 오후에 하지 않는다", "주말에 대응할 사람이 없다."],
      ["frozen-fridays", "Deploys are frozen on Fridays", "Nobody is around on weekends to fix a broken release."],
      ["quiet-friday-afternoon", "Friday afternoons are quiet", "Most of the team is in planning."],
      ["deploy-main", "Deploy releases from the main branch", "Never from a feature branch."],
      ["deploy-pipeline", "Deploy with the pipeline", "Manual deploys skip the checks."],
      ["release-tags", "Release tags are signed", "The signing key is in the vault."],
      ["deploy-dashboards", "Deploy dashboards live in Grafana", "One per service."],
      ["release-notes", "Release notes go out on Mondays", "Collected in the wiki."],
    ];
    for (const [name, description, body] of facts) {
      const r = (await agent.callTool({ name: "memory_store", arguments: { name, description, type: "project", body } })) as CallToolResult;
      expect(r.isError, textOf(r)).toBeFalsy();
    }
  }, 60_000);

  it("Japanese: a question finds the fact holding most of its words, and says which", async () => {
    const tags = await recall("Qiitaのタグは何個まで付けられる？");
    expect(tags.hits.map((h) => h.name)).toEqual(["qiita-tag-limit"]);
    expect(tags.hits[0]!.matches).toEqual([{ keyword: "Qiitaのタグは何個まで付けられる？", in: "summary", how: "most-words", words: ["qiita", "タグ", "付け"] }]);
    expect(tags.text).toContain("by most of its words (qiita, タグ, 付け) in name/description");
    // The fact that holds all three words first; one that holds two of them (記事, 公開) after it.
    expect(await names("金曜日に記事を公開してもいい？")).toEqual(["friday-publishing", "qiita-schedule"]);
    // 金曜日 is 金曜, also as a keyword of its own.
    expect(await names("金曜日")).toEqual(["friday-publishing"]);
  });

  it("Korean: a question finds the fact holding most of its words", async () => {
    expect(await names("Qiita 태그는 몇 개까지 붙일 수 있나요?")).toEqual(["qiita-tags-ko"]);
    const deploy = await recall("배포는 금요일 저녁에 해도 되나요?");
    expect(deploy.hits.map((h) => h.name)).toEqual(["ko-baepo-geumyoil"]);
    expect(deploy.hits[0]!.matches[0]).toMatchObject({ how: "most-words", words: ["배포는", "금요일"] });
  });

  it("English: ranked by how many words and how rare; one word of four is not enough", async () => {
    const r = await recall("Can we deploy a release on a Friday afternoon?");
    // frozen-fridays holds three of deploy, release, Friday, afternoon; quiet-friday-afternoon
    // and deploy-main two each, the rare ones first; a fact with one word is no match.
    expect(r.hits.map((h) => h.name)).toEqual(["frozen-fridays", "quiet-friday-afternoon", "deploy-main"]);
    expect(r.hits[0]!.matches[0]).toMatchObject({ how: "most-words", in: "summary", words: ["deploy", "release", "Friday"] });
  });

  it("a short question still needs all its words, and a phrase in quotes is matched whole", async () => {
    expect(await names("deploy on Fridays?")).toEqual(["frozen-fridays"]);
    expect(await names('"Can we deploy a release on a Friday afternoon?"')).toEqual([]);
  });
});
