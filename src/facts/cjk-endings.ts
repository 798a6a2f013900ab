// The endings a Japanese or Korean word sheds to match, as people conjugate
// and ask: the one owner of these rules. cjk-words.ts calls them on both sides,
// for the words a fact is stored with and for a keyword's, so a fact that says
// 배포한다 is found by 배포해도, 배포하나요, 배포했어요, and one that says
// デプロイする by デプロイしました, デプロイできますか. docs/recall.md, "Words of
// Chinese, Japanese and Korean text"; test/facts/cjk-endings.test.ts holds a
// table of forms from real usage.
//
// Korean writes a predicate as one word: a stem and its endings (배포 + 하 +
// 나요; 건너뛰 + ㄴ다, the ㄴ written inside the stem's last syllable). A word is
// reduced step by step, each step shedding one ending at its end, while at
// least two syllables remain (명이 stays 명이; 간다 stays 간다): a particle (은
// 는 이 가 을 를 …), an ending of a predicate (다 기 고 면 나요 어요 었다 습니다 …,
// some written into the last syllable: 한다, 할까요, 합니다, 했다), the stem of
// 하다/되다 after a noun (배포하 → 배포), and the contracted forms 해 돼 봐 꿔 쳐
// (하여, 되어, 보아, 꾸어, 치어). Every form of one predicate ends at the same
// stem: 배포 for 배포한다 and 배포해도, 건너뛰 for 건너뛴다 and 건너뛰기. Endings
// that nouns end with too (지 of 메시지, 서 of 인증서, 요 of 필요) are shed only
// where a noun cannot have them: 지 only after 하/되, 서 and 요 only after the
// vowel of a predicate's 어/아 form. A noun may still lose a last syllable that
// looks like an ending (세탁기 → 세탁); both sides lose it alike, so it still
// finds itself.
//
// Japanese: the segmenter splits a verb of a noun and する/できる/される from its
// endings (公開 | しま | した, デプロイ | でき | ます | か, 確認 | し | て | くだ | さい);
// the pieces of those endings are not words to match, so the noun is what the
// forms share.

/** Hangul syllables: (initial × 21 + medial) × 28 + final, from U+AC00. */
const SYLLABLE_BASE = 0xac00;
const SYLLABLE_END = 0xd7a3;

interface Syllable {
  initial: number;
  medial: number;
  final: number;
}

// Medial vowels and finals by their index in the syllable formula.
const V = { a: 0, ae: 1, eo: 4, e: 5, yeo: 6, o: 8, wa: 9, wae: 10, oe: 11, u: 13, wo: 14, we: 15, i: 20 } as const;
const T = { none: 0, n: 4, l: 8, b: 17, ss: 20 } as const;
/** The initials ㄷ, ㅂ, ㅇ, ㅎ. */
const L = { d: 3, b: 7, ieung: 11, h: 18 } as const;

function syllable(ch: string | undefined): Syllable | null {
  const code = ch?.codePointAt(0);
  if (code === undefined || code < SYLLABLE_BASE || code > SYLLABLE_END) return null;
  const n = code - SYLLABLE_BASE;
  return { initial: Math.floor(n / 588), medial: Math.floor((n % 588) / 28), final: n % 28 };
}

const compose = (s: Syllable): string => String.fromCodePoint(SYLLABLE_BASE + (s.initial * 21 + s.medial) * 28 + s.final);

/** Nominal particles: shed after any word, and not words to match on their own (the 를 of API를). */
const PARTICLES = (
  "은 는 이 가 을 를 의 에 로 와 과 도 만 나 랑 께 " +
  "에서 에게 한테 으로 까지 부터 처럼 보다 마다 이나 이랑 라고 이라고 에는 에도 로는 와는 과는 이란 조차 밖에 " +
  "에서는 에서도 에게서 으로는 으로서 으로써 로서 로써 까지는 부터는"
).split(" ");

/**
 * Particles, the copula, and endings of predicates that no noun ends with:
 * shed after any stem. (Those a noun may end with are in the lists below, shed
 * only where a noun cannot have them.)
 */
const ENDINGS = [
  ...PARTICLES,
  // the copula
  ..."이다 입니다 이에요 예요 이야 인가요 인지 이고 이며 이면 이었다".split(" "),
  // predicate endings: statement, nominal, connective, conditional, question, polite, past, future
  ...(
    "다 는다 기 고 게 게요 면서 으면서 으면 도록 려고 으려고 려면 으려면 니까 으니까 는데 은데 는지 은지 " +
    "나요 네요 는가요 습니다 습니까 세요 으세요 셨다 셨어요 셨나요 십시오 죠 " +
    "어 아 어도 아도 어야 아야 어라 아라 " +
    "었 았 었다 았다 었어 았어 었어요 았어요 었나요 았나요 었습니다 았습니다 었는데 았는데 었고 았고 었지만 았지만 었으면 았으면 었던 았던 " +
    "겠 겠다 겠어요 겠습니다 겠나요 을까요 을까 을게요 을래요"
  ).split(" "),
];

/** Endings shed only after the stem of 하다 or 되다 (메시지, 이미지 are nouns; 하지, 되지 are not). */
const AFTER_HA_DOE = ["지", "지만", "지요", "자", "니", "냐", "던", "여", "여서", "였다", "였어요", "였습니다"];

/**
 * Endings shed only after a syllable with no final consonant whose vowel is
 * that of the 어/아 form (해서, 건너뛰어서, 바꿔요): 인증서, 필요 keep theirs.
 */
const AFTER_EO_FORM = ["서", "요", "야"];
const EO_FORM_VOWELS: ReadonlySet<number> = new Set([V.a, V.ae, V.eo, V.e, V.yeo, V.wa, V.wae, V.wo, V.we]);

/**
 * Endings shed only after a stem that ends in a vowel or ㄹ (하면, 바꾸면,
 * 만들면; others take 으면), and not after ㅘ, which no stem ends in: 관리화면
 * keeps its 면.
 */
const AFTER_VOWEL_STEM = ["면", "며"];

/** Endings written into the stem's last syllable as its final consonant (한다, 할까요, 합니다), by that consonant. */
const FUSED: Array<{ final: number; endings: string[] }> = [
  { final: T.n, endings: ["다", "다고", "다면", "다는", "데", "지", "가", "가요"] },
  { final: T.l, endings: ["까", "까요", "게", "게요", "래", "래요", "지", "걸요"] },
  { final: T.b, endings: ["니다", "니까", "시다"] },
];

const isHaOrDoe = (ch: string | undefined) => ch === "하" || ch === "되";

/** The stem of a contracted 어/아 form or past written into one syllable (해 했 → 하, 돼 됐 → 되, 봐 → 보, 꿔 → 꾸, 쳐 → 치, 여 → 이, 냈 → 내). */
function uncontracted(s: Syllable): Syllable | null {
  const past = s.final === T.ss;
  if (s.final !== T.none && !past) return null;
  const open = { ...s, final: T.none };
  if (s.medial === V.ae && s.initial === L.h) return { ...open, medial: V.a }; // 해, 했: 하여, 하였
  if (s.medial === V.wae && s.initial === L.d) return { ...open, medial: V.oe }; // 돼, 됐: 되어, 되었
  if (s.medial === V.wa && s.initial === L.b) return { ...open, medial: V.o }; // 봐, 봤: 보아, 보았
  if (s.medial === V.wo) return { ...open, medial: V.u }; // 꿔, 꿨: 꾸어, 꾸었
  if (s.medial === V.yeo) return { ...open, medial: V.i }; // 쳐, 쳤, 여, 였: 치어, 치었, 이어, 이었
  // A past written into a stem ending in ㅏ ㅓ ㅐ ㅔ (갔, 냈): the stem without ㅆ. 었, 았 (endings) and 있 are not.
  if (past && s.initial !== L.ieung && (s.medial === V.a || s.medial === V.eo || s.medial === V.ae || s.medial === V.e)) return open;
  return null;
}

/**
 * One ending shed from the end of a Hangul word, or null when none is there
 * or what it leaves is shorter than minSyllables: the longest ending found
 * (합니다 sheds ㅂ니다, not 다), one written into the last syllable first among
 * equals (건너뛴다 sheds ㄴ다, not 다); a last syllable of its own (한, 해, 했,
 * 하) only when no ending is there.
 */
function shedOne(word: string, minSyllables: number): string | null {
  const chars = [...word];
  const n = chars.length;
  let best: { length: number; rest: string } | null = null;
  const consider = (length: number, rest: () => string | null) => {
    if (length >= n || (best !== null && best.length >= length)) return;
    const r = rest();
    if (r !== null) best = { length, rest: r };
  };
  const head = (length: number) => chars.slice(0, n - length);
  for (const { final, endings } of FUSED) {
    for (const ending of endings) {
      const length = [...ending].length;
      if (!word.endsWith(ending)) continue;
      consider(length, () => {
        const h = head(length);
        const last = syllable(h.at(-1));
        return last && last.final === final ? [...h.slice(0, -1), compose({ ...last, final: T.none })].join("") : null;
      });
    }
  }
  for (const ending of AFTER_HA_DOE) {
    if (word.endsWith(ending)) consider([...ending].length, () => (isHaOrDoe(head([...ending].length).at(-1)) ? head([...ending].length).join("") : null));
  }
  for (const ending of AFTER_EO_FORM) {
    if (!word.endsWith(ending)) continue;
    consider([...ending].length, () => {
      const before = syllable(head([...ending].length).at(-1));
      return before && before.final === T.none && EO_FORM_VOWELS.has(before.medial) ? head([...ending].length).join("") : null;
    });
  }
  for (const ending of AFTER_VOWEL_STEM) {
    if (!word.endsWith(ending)) continue;
    consider([...ending].length, () => {
      const before = syllable(head([...ending].length).at(-1));
      return before && ((before.final === T.none && before.medial !== V.wa) || before.final === T.l) ? head([...ending].length).join("") : null;
    });
  }
  for (const ending of ENDINGS) {
    if (word.endsWith(ending)) consider([...ending].length, () => head([...ending].length).join(""));
  }
  // The longest ending decides: when it would leave too short a stem, nothing is
  // shed (됐나요 is not 됐나 + 요, 있으면 not 있으 + 면).
  if (best !== null) return n - (best as { length: number }).length >= minSyllables ? (best as { rest: string }).rest : null;

  const last = syllable(chars[n - 1]);
  if (last === null) return null;
  // 한, 할, 된, 될: the adnominal forms of 하다/되다 (other stems keep theirs: 로그인, 파일 are nouns).
  const open = compose({ ...last, final: T.none });
  if ((last.final === T.n || last.final === T.l) && isHaOrDoe(open)) return [...chars.slice(0, -1), open].join("");
  const stem = uncontracted(last);
  if (stem) return [...chars.slice(0, -1), compose(stem)].join("");
  // 하, 되: the stem of 하다/되다 after the noun it makes a verb of (배포하 → 배포).
  if (isHaOrDoe(chars[n - 1]) && n - 1 >= minSyllables) return chars.slice(0, -1).join("");
  return null;
}

/** Shorter than this many syllables, a word sheds nothing more: 명이 is not 명 + 이. */
const MIN_STEM_SYLLABLES = 2;

/**
 * A Korean word and each shorter form its endings leave, in order, down to the
 * stem all its forms share: 배포했어요 → 배포했어요, 배포했, 배포하, 배포;
 * 리뷰는 → 리뷰는, 리뷰. A word of Hangul only; others are returned alone.
 */
export function koreanForms(word: string, minSyllables = MIN_STEM_SYLLABLES): string[] {
  const forms = [word];
  if (!HANGUL_ONLY.test(word)) return forms;
  for (let current = word; ; ) {
    const shorter = shedOne(current, minSyllables);
    if (shorter === null) return forms;
    forms.push(shorter);
    current = shorter;
  }
}

/** The stem a Korean word is matched by (the last of koreanForms). */
export function koreanStem(word: string): string {
  return koreanForms(word).at(-1)!;
}

const HANGUL_ONLY = /^\p{Script=Hangul}+$/u;

/** The predicates that carry no meaning of their own after a noun or verb: 하다, 되다, and the negation 않다. */
const KOREAN_AUXILIARY_STEMS: ReadonlySet<string> = new Set(["하", "되", "않"]);

const PARTICLE_WORDS: ReadonlySet<string> = new Set(PARTICLES);

/**
 * A Korean word that is only a form of 하다, 되다 or 않다 (했다, 해요, 되나요,
 * 않는다, 하지만), or a particle on its own (the 를 of API를): like Japanese する,
 * ない and を, not a word to match.
 */
export function isKoreanFunctionWord(word: string): boolean {
  if (!HANGUL_ONLY.test(word)) return false;
  if (PARTICLE_WORDS.has(word)) return true;
  const forms = koreanForms(word, 1);
  // 하나 (one) is a noun with a particle's look: 하나의 is not a form of 하다.
  return KOREAN_AUXILIARY_STEMS.has(forms.at(-1)!) && !forms.includes("하나");
}

/**
 * Japanese particles, copulas, auxiliaries, and the pieces the segmenter cuts
 * the endings of する/できる/される and of polite, past, negative, request and
 * permission forms into (しま | した, でき | ます, くだ | さい, し | て | も | いい):
 * not words to match. (Any single hiragana character, and a piece starting
 * with っ or ん, are not words either: cjk-words.ts.)
 */
export const JAPANESE_FUNCTION_WORDS: ReadonlySet<string> = new Set(
  (
    // particles and copulas
    "の を は が に で と も へ や か から まで より など だけ しか ので のに けど ながら ね よ な " +
    "だ だっ です でし でしょ でしょう ます まし ませ ませんでし た て だろ だろう " +
    // する and its pieces
    "する して した します しない しよう され される させ させる せず しま しまし しませ せん " +
    "しなかっ しなけれ しなきゃ しちゃ しちゃう しちゃっ したら したり したい したく しろ すれ すべ べき すべき しとく しておく " +
    // できる, される, させる
    "でき できる できない できれ できま できません できなかっ られ られる れる させられ " +
    // auxiliaries and the pieces of their forms
    "ない なか なかっ なく なけれ たい たく たら たり ちゃう ちゃっ じゃ てい てる とく おい おき おく おこ いる ている い ある あり あっ " +
    "なる なり なっ なら ならない しな くだ さい ください くれ くれる こと もの ため " +
    // trying, finishing, asking for (してみる, してしまった, してもらう, してほしい, していただけますか)
    "われ われる われた いま みる みて みた みま しまう しまっ しまい まっ ちゃ もらう もらっ もらい もらえ ほしい いただけ いただき とい つつ しょう いか " +
    // may, should, fine (してもいい, しても良い)
    "いい よい 良い 良く よく"
  ).split(" "),
);
