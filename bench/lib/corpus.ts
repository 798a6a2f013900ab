// Realistic-looking facts in English, Japanese and Korean, generated
// deterministically, with known keyword frequencies:
// - every fact names one "area" (about 200 per language), so an area keyword hits
//   about N / 600 facts;
// - RARE_WORD appears in exactly RARE_COUNT facts; ABSENT_WORD in none;
// - RARE_JA and RARE_KO, two-character words, each in about RARE_COUNT
//   Japanese or Korean facts, inside a longer word (a substring, not a word of
//   its own); COMMON_JA and COMMON_KO, two-character area words, each in about
//   N / 60 facts.

export const RARE_WORD = "flamingo";
const RARE_COUNT = 10;
export const RARE_JA = "猫舌";
export const RARE_KO = "낙타";
export const COMMON_JA = "注文";
export const COMMON_KO = "배포";
export const ABSENT_WORD = "zyxwvutsrq";
/** RARE_WORD with two letters swapped: recall finds its facts only as near matches. */
export const TYPO_WORD = "flamigno";

const EN_A = ["billing", "login", "search", "checkout", "invoice", "upload", "export", "payment", "profile", "report", "audit", "cache", "queue", "webhook", "backup", "email", "sitemap", "gateway", "scheduler", "importer"];
const EN_B = ["service", "batch job", "dashboard", "API", "worker", "cron", "pipeline", "database", "frontend", "proxy"];
const JA_A = ["決済", "認証", "検索", "注文", "請求", "画像", "通知", "在庫", "会員", "集計", "監査", "配信", "予約", "翻訳", "広告", "問合せ", "帳票", "配送", "ポイント", "記事"];
const JA_B = ["サービス", "バッチ", "画面", "API", "基盤", "ワーカー", "定期処理", "データベース", "管理画面", "連携"];
const KO_A = ["결제", "인증", "검색", "주문", "청구", "이미지", "알림", "재고", "회원", "집계", "감사", "배포", "예약", "번역", "광고", "문의", "보고서", "배송", "포인트", "기사"];
const KO_B = ["서비스", "배치", "화면", "API", "기반", "워커", "정기작업", "데이터베이스", "관리화면", "연동"];

const TYPES = ["feedback", "project", "reference"] as const;

interface GeneratedFact {
  name: string;
  description: string;
  type: (typeof TYPES)[number];
  body: string;
  scope: string;
  lang: "en" | "ja" | "ko";
}

/** A small deterministic PRNG (mulberry32), so every run loads the same corpus. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

export function area(lang: "en" | "ja" | "ko", i: number): string {
  const [a, b] = lang === "en" ? [EN_A, EN_B] : lang === "ja" ? [JA_A, JA_B] : [KO_A, KO_B];
  return lang === "en" ? `${a[i % 20]} ${b[Math.floor(i / 20) % 10]}` : `${a[i % 20]}${b[Math.floor(i / 20) % 10]}`;
}

/**
 * An area as a Japanese or Korean speaker would write it in a keyword, which is
 * a substring of no fact: the two words joined by a particle (注文のサービス), or
 * the Korean area with a particle and the verb the facts use (주문서비스의 변경).
 * Recall finds the area's facts by their words (src/facts/cjk-words.ts).
 */
export function areaAsWritten(lang: "ja" | "ko", i: number): string {
  return lang === "ja" ? `${JA_A[i % 20]}の${JA_B[Math.floor(i / 20) % 10]}` : `${area("ko", i)}의 변경`;
}

/** The i-th fact of a corpus of `total` facts; writers' scopes rotate shared/team-a/team-b. */
export function generateFact(i: number, total: number): GeneratedFact {
  const r = rng(i + 1);
  const lang = (["en", "ja", "ko"] as const)[i % 3]!;
  const where = area(lang, Math.floor(i / 3) % 200);
  const tool = pick(r, ["migrate", "lint", "smoke tests", "a dry run", "the canary", "a backup", "the load test"]);
  const rare = i % Math.max(1, Math.floor(total / RARE_COUNT)) === 7 && i < total ? ` (${RARE_WORD})` : "";
  const type = pick(r, TYPES);
  const scope = pick(r, ["shared", "shared", "team-a", "team-b"]);
  const n = Math.floor(r() * 900) + 100;
  // Every (total / 3 / RARE_COUNT)-th Japanese and Korean fact (no draw from r: the rest of the corpus stays as it was).
  const rareCjk = Math.floor(i / 3) % Math.max(1, Math.floor(total / 3 / RARE_COUNT)) === 5;
  let description: string;
  let body: string;
  if (lang === "en") {
    description = `Run ${tool} before every change to the ${where}${rare}`;
    body =
      `Why: incident ${n} happened when the ${where} was changed without ${tool}; recovery took ${Math.floor(r() * 90) + 5} minutes and ${Math.floor(r() * 40) + 2} customers noticed. ` +
      `How to apply: before any change to the ${where}, run ${tool}, wait for it to pass, and link its output in the change request. ` +
      `If ${tool} is unavailable, ask the owner of the ${where} before going ahead. This rule was agreed in review ${n + 17}.`;
  } else if (lang === "ja") {
    description = `${where}を変更する前に必ず${tool}を実行する${rare}`;
    body =
      `理由: ${where}を${tool}なしで変更した障害${n}では、復旧に${Math.floor(r() * 90) + 5}分かかり、${Math.floor(r() * 40) + 2}件の問い合わせがあった。` +
      `適用方法: ${where}への変更の前に${tool}を実行し、成功を確認してから変更依頼に結果を貼ること。` +
      `${tool}が使えない場合は${where}の担当者に確認してから進める。レビュー${n + 17}で合意した。` +
      (rareCjk ? `${RARE_JA}チームにも共有する。` : "");
  } else {
    description = `${where} 변경 전에는 반드시 ${tool}을 실행한다${rare}`;
    body =
      `이유: ${tool} 없이 ${where}를 변경한 장애 ${n}에서 복구에 ${Math.floor(r() * 90) + 5}분이 걸렸고 문의가 ${Math.floor(r() * 40) + 2}건 있었다. ` +
      `적용 방법: ${where} 변경 전에 ${tool}을 실행하고 성공을 확인한 뒤 변경 요청에 결과를 첨부한다. ` +
      `${tool}을 쓸 수 없으면 ${where} 담당자에게 먼저 확인한다. 리뷰 ${n + 17}에서 합의했다.` +
      (rareCjk ? ` ${RARE_KO}팀에도 공유한다.` : "");
  }
  return { name: `fact-${i}-${lang}`, description, type, body, scope, lang };
}

// Words of a team's technical notes: the corpus speaks this language too.
const TEAM_WORDS = (
  "account alert archive audit backend backoff backup balancer batch billing binary blob branch broker budget buffer build bundle " +
  "cache canary capacity certificate channel checkout checksum client cluster column commit compiler config connection consumer container " +
  "contract cookie coverage cron cursor customer daemon dashboard database deadline debug dependency deploy digest disk dns docker domain " +
  "driver email encryption endpoint environment event export failover feature firewall flag fork frontend gateway grafana handler hash " +
  "header heap hotfix image import incident index ingress inode invoice job journal kafka kernel key latency ledger library license limit " +
  "linter load locale lock log manifest metric migration mirror module monitor mutex namespace network node notebook oauth offset " +
  "onboarding operator order outage package pager pagination parser partition patch payload payment permission pipeline pod policy pool " +
  "port printer probe profile proxy query queue quota raid ranking redis refund region registry release replica report repository request " +
  "resolver retention retry rollback rollout router runbook runner sandbox scheduler schema scope script secret sensor server session " +
  "shard signature sitemap snapshot socket spreadsheet staging storage stream subnet subscription support swap sync tenant terraform " +
  "thread threshold ticket timeout token topic trace tracker transaction translation tunnel upload upstream user vault vendor version " +
  "volume warehouse webhook widget worker workflow zone"
).split(" ");
const VERBS = "add avoid check clean document drain encrypt freeze limit log monitor pin prune rebuild renew restart review rotate scale split test trim update verify warm".split(" ");

/** A 32-bit integer hash (murmur3's finalizer): every bit of the input moves every bit of the output. */
function mix(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** The n-th new fact of the benchmark: its own name and description (words picked by a hash of n). */
export function distinctFact(n: number): { name: string; description: string } {
  const pick = (list: string[], k: number) => list[mix(mix(n) + k) % list.length]!;
  const topic = [0, 1, 2].map((k) => pick(TEAM_WORDS, k));
  const rest = [3, 4, 5, 6].map((k) => pick(TEAM_WORDS, k));
  const verb = pick(VERBS, 7);
  return {
    name: `${topic.join("-")}-${n}`,
    description: `${verb[0]!.toUpperCase()}${verb.slice(1)} the ${topic[0]} ${topic[1]} before the ${rest[0]} ${rest[1]} of the ${topic[2]} ${rest[2]} ${rest[3]}`,
  };
}
