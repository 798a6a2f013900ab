// The graph workloads, so that no figure depends on one data set.
// "sprint": short English texts, loaded 100 entities a call, planner statistics
// refreshed before reading (as `graph import` does). "mixed": other words,
// English, Japanese and Korean in one graph, loaded 50 entities a call as an
// agent would, and read right after the load with no ANALYZE (a new user's
// graph), with searches of several hit counts. Both deterministic.

export interface EntityInput {
  name: string;
  entityType: string;
  observations: string[];
}

export interface GraphCorpus {
  name: string;
  /** Entities (and relations) per create_* call while loading. */
  batch: number;
  /** Refresh the planner's statistics after loading (VACUUM ANALYZE), as `graph import` does. */
  analyze: boolean;
  /**
   * The largest size the graph section runs it at, when less than every size
   * asked for: the run's time budget (bench/README.md). The scaling section
   * still reads our own "mixed" graph at every size.
   */
  largestSize?: number;
  entity(i: number, n: number): EntityInput;
  relation(i: number, n: number): { from: string; to: string; relationType: string };
  /** Searches, labelled with how many entities they match at size n. */
  searches(n: number): Array<{ label: string; query: string }>;
  /** The k-th open_nodes call's five names. */
  openNames(k: number, n: number): string[];
}

/** In ten entities of the sprint graph, whatever its size. */
export const SPRINT_NEEDLE = "kiwi-needle";
const NEEDLE = SPRINT_NEEDLE;
const ABSENT = "qqzzxxyyww";

const SPRINT: GraphCorpus = {
  name: "sprint",
  batch: 100,
  analyze: true,
  entity(i, n) {
    // Ten entities, spread over the graph, carry the needle in an observation.
    const needle = i % Math.floor(n / 10) === 3 ? ` (${NEEDLE})` : "";
    return {
      name: `entity-${i}`,
      entityType: ["person", "service", "project", "team"][i % 4]!,
      observations: [`created in sprint ${i % 97}`, `owned by team ${i % 13}${needle}`, `depends on entity-${(i * 31) % n}`],
    };
  },
  relation: (i, n) => ({ from: `entity-${i}`, to: `entity-${(i + 1) % n}`, relationType: "depends_on" }),
  searches: () => [
    { label: "search_nodes (10 hits)", query: NEEDLE },
    { label: "search_nodes (no hit)", query: ABSENT },
  ],
  openNames: (k, n) => [0, 1, 2, 3, 4].map((j) => `entity-${(k * 7919 + j * 1013) % n}`),
};

const WORDS = {
  en: ["harbor", "lantern", "orchard", "granite", "meadow", "copper", "thistle", "falcon", "willow", "ember", "quarry", "saffron"],
  ja: ["港湾", "灯籠", "果樹園", "花崗岩", "草原", "銅線", "薊", "隼", "柳", "残り火", "採石場", "番紅花"],
  ko: ["항구", "등불", "과수원", "화강암", "초원", "구리", "엉겅퀴", "매", "버드나무", "불씨", "채석장", "사프란"],
};
const TYPES = ["customer", "顧客", "고객", "supplier", "仕入先", "공급업체", "warehouse", "倉庫"];
const LANGS = ["en", "ja", "ko"] as const;
// Ten entities hold the rare Japanese word whatever the graph's size, one in 20 the
// common Korean one; one holds the single hit.
export const MIXED_JAPANESE_NEEDLE = "蛍石の標本";
/** Two characters of the rare Japanese word: no trigram of its own. */
export const MIXED_JAPANESE_SHORT = "蛍石";
const RARE_JA = MIXED_JAPANESE_NEEDLE;
const COMMON_KO = "정기점검";
export const MIXED_SINGLE = "zebra-crossing-7";
const SINGLE = MIXED_SINGLE;

const mixedName = (i: number) => {
  const lang = LANGS[i % 3]!;
  return `${WORDS[lang][i % 12]}-${lang}-${i.toString(36)}`;
};

const MIXED: GraphCorpus = {
  name: "mixed",
  batch: 50,
  analyze: false,
  largestSize: 10_000,
  entity(i, n) {
    const lang = LANGS[(i >> 1) % 3]!;
    const w = WORDS[lang];
    const observations = [`${w[(i * 7) % 12]} ${w[(i * 5 + 3) % 12]} ${i % 211}`, `${WORDS.en[i % 12]} / ${WORDS.ja[(i + 4) % 12]} / ${WORDS.ko[(i + 8) % 12]}`];
    if (i % Math.max(1, Math.floor(n / 10)) === 17) observations.push(`${RARE_JA} ${i}`);
    if (i % 20 === 9) observations.push(`${COMMON_KO} ${i % 7}`);
    if (i === Math.floor(n / 2)) observations.push(SINGLE);
    return { name: mixedName(i), entityType: TYPES[i % TYPES.length]!, observations };
  },
  relation: (i, n) => ({ from: mixedName(i), to: mixedName((i * 17 + 5) % n), relationType: ["supplies", "供給", "공급"][i % 3]! }),
  searches: (n) => [
    { label: "search_nodes (1 hit)", query: SINGLE },
    { label: `search_nodes (${Math.ceil((n - 17) / Math.max(1, Math.floor(n / 10)))} hits, Japanese)`, query: RARE_JA },
    { label: `search_nodes (${Math.ceil((n - 9) / 20)} hits, Korean)`, query: COMMON_KO },
    { label: `search_nodes (${Math.ceil((n - 17) / Math.max(1, Math.floor(n / 10)))} hits, Japanese, two characters)`, query: MIXED_JAPANESE_SHORT },
    { label: `search_nodes (${Math.ceil((n - 9) / 20)} hits, Korean, two characters)`, query: COMMON_KO.slice(2) },
    { label: "search_nodes (no hit)", query: "솔개무늬" },
  ],
  openNames: (k, n) => [0, 1, 2, 3, 4].map((j) => mixedName((k * 7919 + j * 1013) % n)),
};

export const CORPORA: Record<string, GraphCorpus> = { sprint: SPRINT, mixed: MIXED };
