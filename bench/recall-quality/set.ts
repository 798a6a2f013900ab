// The recall-quality set: facts an agent team would write, distractors that
// share words with them, and queries an agent would send, each labelled with
// the fact(s) that answer it. docs/recall.md explains the design; every miss
// someone reports becomes a query here (and a fact, if needed), in the class
// of the miss, so that the figures show it before and after a fix.
//
// Facts are stored in this order (the first is the oldest); `ranking` adds
// newer partial matches on top (see RANKING below).

export interface QualityFact {
  name: string;
  description: string;
  body: string;
  status?: "confirmed" | "deprecated";
}

export type QueryClass = "exact" | "inflection" | "multi-word" | "typo" | "cjk" | "cjk-natural" | "question" | "ranking" | "synonym";

interface QualityQuery {
  class: QueryClass;
  lang: "en" | "ja" | "ko";
  keywords: string[];
  /** The facts that answer the query; a query scores when any of them is in the top 5. */
  expect: string[];
}

export const FACTS: QualityFact[] = [
  // The facts the queries look for.
  { name: "migrate-before-deploy", description: "Run the database migration before every deploy", body: "Otherwise the new code starts against the old schema and the API fails to boot.", status: "confirmed" },
  { name: "credit-note-numbering", description: "Each credit note gets its own gapless number series", body: "Accounting rejects gaps; never reuse an invoice number for a refund document.", status: "confirmed" },
  { name: "ci-flaky-retry", description: "Retry the CI job once when the tests are flaky", body: "Open an issue for each flaky one; a second failure is real.", status: "confirmed" },
  { name: "pgbouncer-pool", description: "Connections go through pgbouncer in transaction mode", body: "Pooling per worker is capped at 10; session features (advisory locks, SET) do not survive between statements." },
  { name: "api-key-rotation", description: "Rotate the API keys of payment providers every 90 days", body: "Keys are in the vault; rotate one provider at a time and watch the error rate.", status: "confirmed" },
  { name: "cache-invalidation-order", description: "Invalidate the cache after the write commits, never before", body: "Invalidating first lets a concurrent reader put the old value back." },
  { name: "release-notes-owner", description: "The on-call engineer writes the notes for every release", body: "Link each notes entry to its pull request.", status: "confirmed" },
  { name: "kubernetes-resource-limits", description: "Every Kubernetes deployment sets memory limits", body: "Pods without limits were evicted together during the node upgrade.", status: "confirmed" },
  { name: "webhook-idempotency", description: "Webhook handlers must be idempotent", body: "Providers redeliver on timeouts; store the event id and skip duplicates.", status: "confirmed" },
  { name: "tls-certificate-renewal", description: "TLS certificates renew automatically 30 days before expiry", body: "If renewal fails twice, the on-call gets paged; renew by hand with the runbook." },
  { name: "invoice-pdf-fonts", description: "Invoice PDFs embed their fonts", body: "Printers at two customers substituted fonts and broke the layout." },
  { name: "rollback-procedure", description: "Roll back by redeploying the previous image tag", body: "Never revert the database in a rollback; migrations are forward-only." },
  { name: "log-retention", description: "Application logs are kept 30 days, audit logs 7 years", body: "Retention is set per index; do not shorten audit retention." },
  { name: "feature-flag-cleanup", description: "Remove a feature flag within two weeks of full rollout", body: "Stale flags hid a bug for months." },
  { name: "timeout-defaults", description: "Outgoing HTTP calls time out after 5 seconds", body: "Retries use exponential backoff with jitter, at most three attempts." },
  { name: "snake-case-config", description: "Config keys use snake_case", body: "The loader rejects camelCase keys." },
  { name: "backup-restore-drill", description: "Restore a backup into staging every month", body: "An untested backup failed to restore during an outage." },
  { name: "email-rate-limit", description: "Transactional email is throttled to 10 messages per second", body: "The provider suspended the account after a burst." },
  { name: "queue-dead-letter", description: "Failed queue messages go to the dead-letter queue after 5 attempts", body: "Inspect it daily; replay with the admin tool." },
  { name: "old-deploy-window", description: "Deploys only on Tuesday mornings", body: "Replaced: continuous deployment since the canary exists.", status: "deprecated" },
  { name: "ja-migration-order", description: "本番デプロイの前にマイグレーションを実行する", body: "理由: 古いスキーマのままだとAPIが起動しない。", status: "confirmed" },
  { name: "ja-cache", description: "キャッシュは書き込みの確定後に無効化する", body: "先に無効化すると古い値が戻る。" },
  { name: "ja-backup", description: "毎月バックアップをステージングに復元して確認する", body: "障害時に復元できなかったことがある。" },
  { name: "ko-migration-order", description: "배포 전에 데이터베이스 마이그레이션을 실행한다", body: "이유: 스키마가 오래되면 API가 시작되지 않는다.", status: "confirmed" },
  { name: "ko-webhook", description: "웹훅 처리기는 멱등이어야 한다", body: "제공자가 타임아웃 시 다시 보낸다. 이벤트 ID를 저장하고 중복을 건너뛴다." },
  { name: "ko-certificate", description: "TLS 인증서는 만료 30일 전에 자동 갱신된다", body: "두 번 실패하면 당직자에게 알림이 간다." },
  // Keywords as new users write them (am_recall).
  { name: "pull-request-review", description: "Every pull request needs a reviewer", body: "Someone other than its author reads it before it is merged." },
  { name: "ja-qiita-tags", description: "Qiita の記事にはタグを5つまでしか付けられない", body: "投稿前にタグを選んでおく。" },
  // Japanese and Korean as people write them (cjk-natural): particles, conjugations, compounds.
  { name: "ja-blog-tags", description: "ブログ記事には公開前に必ずタグを付ける", body: "タグがない記事は検索に出ない。", status: "confirmed" },
  { name: "ja-deploy-freeze", description: "金曜日の午後はデプロイを凍結する", body: "週末に障害対応できる人が少ないため。" },
  { name: "ko-code-review", description: "코드 리뷰는 작성자가 아닌 사람이 한다", body: "리뷰는 병합 전에 끝낸다.", status: "confirmed" },
  { name: "ko-cache", description: "캐시는 쓰기가 확정된 후에 무효화한다", body: "먼저 무효화하면 오래된 값이 다시 들어온다." },
  // Distractors: they share words with the facts above but do not answer the queries.
  { name: "blog-migration", description: "Moving blog posts to the new CMS", body: "Export the posts, then import them with their images." },
  { name: "deploy-dashboard", description: "The deploy dashboard shows the last 20 releases", body: "It reads from the CI system." },
  { name: "test-data-seeding", description: "Seed test data with the fixtures script", body: "Never copy production data into tests." },
  { name: "connection-strings", description: "Connection strings live in the vault", body: "Never commit them." },
  { name: "api-docs", description: "The public API docs are generated from the OpenAPI file", body: "Edit the file, not the site." },
  { name: "credit-card-storage", description: "Credit card numbers are never stored", body: "Only the payment provider's token." },
  { name: "cache-headers", description: "Static assets are served with a one-year cache header", body: "File names carry a content hash." },
  { name: "notes-app", description: "Meeting notes go into the team wiki", body: "One page per meeting." },
  { name: "ja-deploy-calendar", description: "デプロイ予定は共有カレンダーに登録する", body: "休日の前日は避ける。" },
  { name: "ko-deploy-calendar", description: "배포 일정은 공유 캘린더에 등록한다", body: "휴일 전날은 피한다." },
  { name: "ja-git-tags", description: "Gitのタグはvで始まるバージョン番号にする", body: "例: v1.2.0。" },
  { name: "ko-review-bot", description: "리뷰 봇은 린트 경고만 남긴다", body: "사람의 승인을 대신하지 않는다." },
];

export const QUERIES: QualityQuery[] = [
  // As written (every fact found this way before must still be found).
  { class: "exact", lang: "en", keywords: ["pgbouncer"], expect: ["pgbouncer-pool"] },
  { class: "exact", lang: "en", keywords: ["credit note"], expect: ["credit-note-numbering"] },
  { class: "exact", lang: "en", keywords: ["snake_case"], expect: ["snake-case-config"] },
  { class: "exact", lang: "en", keywords: ["dead-letter"], expect: ["queue-dead-letter"] },
  { class: "exact", lang: "en", keywords: ["feature flag"], expect: ["feature-flag-cleanup"] },
  { class: "exact", lang: "en", keywords: ["webhook-idempotency"], expect: ["webhook-idempotency"] },
  { class: "exact", lang: "en", keywords: ['"database migration"'], expect: ["migrate-before-deploy"] },
  { class: "exact", lang: "en", keywords: ["Tuesday"], expect: ["old-deploy-window"] },
  // Other inflections and plurals.
  { class: "inflection", lang: "en", keywords: ["migrations"], expect: ["migrate-before-deploy"] },
  { class: "inflection", lang: "en", keywords: ["migrating"], expect: ["migrate-before-deploy"] },
  { class: "inflection", lang: "en", keywords: ["deployment"], expect: ["migrate-before-deploy", "kubernetes-resource-limits"] },
  { class: "inflection", lang: "en", keywords: ["credit notes"], expect: ["credit-note-numbering"] },
  { class: "inflection", lang: "en", keywords: ["retries", "flaky"], expect: ["ci-flaky-retry"] },
  { class: "inflection", lang: "en", keywords: ["rotating keys"], expect: ["api-key-rotation"] },
  { class: "inflection", lang: "en", keywords: ["certificate renewals"], expect: ["tls-certificate-renewal"] },
  { class: "inflection", lang: "en", keywords: ["invoices", "fonts"], expect: ["invoice-pdf-fonts"] },
  { class: "inflection", lang: "en", keywords: ["rolling back"], expect: ["rollback-procedure"] },
  { class: "inflection", lang: "en", keywords: ["throttling email"], expect: ["email-rate-limit"] },
  { class: "inflection", lang: "en", keywords: ["restoring backups"], expect: ["backup-restore-drill"] },
  { class: "inflection", lang: "en", keywords: ["timeouts"], expect: ["timeout-defaults", "webhook-idempotency"] },
  // Several words in another order than in the fact.
  { class: "multi-word", lang: "en", keywords: ["flaky test"], expect: ["ci-flaky-retry"] },
  { class: "multi-word", lang: "en", keywords: ["connection pooling"], expect: ["pgbouncer-pool"] },
  { class: "multi-word", lang: "en", keywords: ["key rotation"], expect: ["api-key-rotation"] },
  { class: "multi-word", lang: "en", keywords: ["cache invalidation"], expect: ["cache-invalidation-order"] },
  { class: "multi-word", lang: "en", keywords: ["release notes"], expect: ["release-notes-owner"] },
  { class: "multi-word", lang: "en", keywords: ["deploy migration"], expect: ["migrate-before-deploy"] },
  { class: "multi-word", lang: "en", keywords: ["limits memory kubernetes"], expect: ["kubernetes-resource-limits"] },
  { class: "multi-word", lang: "en", keywords: ["retention audit"], expect: ["log-retention"] },
  { class: "multi-word", lang: "en", keywords: ["flag feature removal"], expect: ["feature-flag-cleanup"] },
  { class: "multi-word", lang: "en", keywords: ["letter dead queue"], expect: ["queue-dead-letter"] },
  // Typos.
  { class: "typo", lang: "en", keywords: ["migartion"], expect: ["migrate-before-deploy"] },
  { class: "typo", lang: "en", keywords: ["deploymnet"], expect: ["migrate-before-deploy", "kubernetes-resource-limits"] },
  { class: "typo", lang: "en", keywords: ["kuberentes"], expect: ["kubernetes-resource-limits"] },
  { class: "typo", lang: "en", keywords: ["pgbounser"], expect: ["pgbouncer-pool"] },
  { class: "typo", lang: "en", keywords: ["idempotnet"], expect: ["webhook-idempotency"] },
  { class: "typo", lang: "en", keywords: ["certifcate"], expect: ["tls-certificate-renewal"] },
  { class: "typo", lang: "en", keywords: ["invalidaton"], expect: ["cache-invalidation-order"] },
  { class: "typo", lang: "en", keywords: ["retension"], expect: ["log-retention"] },
  { class: "typo", lang: "en", keywords: ["throtled"], expect: ["email-rate-limit"] },
  { class: "typo", lang: "en", keywords: ["recieve"], expect: ["webhook-idempotency"] },
  { class: "typo", lang: "en", keywords: ["rollbak"], expect: ["rollback-procedure"] },
  { class: "typo", lang: "en", keywords: ["cahce"], expect: ["cache-invalidation-order"] },
  // A typo of another word form : two edits from the word written, one from its plural or singular.
  { class: "typo", lang: "en", keywords: ["reviewrs"], expect: ["pull-request-review"] },
  { class: "typo", lang: "en", keywords: ["handlr"], expect: ["webhook-idempotency"] },
  { class: "typo", lang: "en", keywords: ["migratons"], expect: ["migrate-before-deploy", "rollback-procedure"] },
  // Japanese and Korean (no word splitting: substrings).
  { class: "cjk", lang: "ja", keywords: ["マイグレーション"], expect: ["ja-migration-order"] },
  { class: "cjk", lang: "ja", keywords: ["本番"], expect: ["ja-migration-order"] },
  { class: "cjk", lang: "ja", keywords: ["キャッシュ", "無効化"], expect: ["ja-cache"] },
  { class: "cjk", lang: "ja", keywords: ["バックアップ"], expect: ["ja-backup"] },
  { class: "cjk", lang: "ja", keywords: ["デプロイ", "マイグレーション"], expect: ["ja-migration-order"] },
  { class: "cjk", lang: "ko", keywords: ["마이그레이션"], expect: ["ko-migration-order"] },
  { class: "cjk", lang: "ko", keywords: ["배포", "마이그레이션"], expect: ["ko-migration-order"] },
  { class: "cjk", lang: "ko", keywords: ["웹훅"], expect: ["ko-webhook"] },
  { class: "cjk", lang: "ko", keywords: ["인증서"], expect: ["ko-certificate"] },
  { class: "cjk", lang: "ko", keywords: ["멱등"], expect: ["ko-webhook"] },
  // One keyword of several parts : each part inside the text, in any order.
  { class: "cjk", lang: "ja", keywords: ["タグ 5つ"], expect: ["ja-qiita-tags"] },
  { class: "cjk", lang: "ja", keywords: ["記事 タグ"], expect: ["ja-qiita-tags", "ja-blog-tags"] },
  { class: "cjk", lang: "ja", keywords: ["キャッシュ 無効化"], expect: ["ja-cache"] },
  { class: "cjk", lang: "ko", keywords: ["마이그레이션 배포"], expect: ["ko-migration-order"] },
  // Japanese and Korean as people write them: particles between the words, another
  // conjugation, a compound written together or apart.
  { class: "cjk-natural", lang: "ja", keywords: ["記事のタグ"], expect: ["ja-blog-tags", "ja-qiita-tags"] },
  { class: "cjk-natural", lang: "ja", keywords: ["タグを付けて"], expect: ["ja-blog-tags", "ja-qiita-tags"] },
  { class: "cjk-natural", lang: "ja", keywords: ["タグ付け"], expect: ["ja-blog-tags", "ja-qiita-tags"] },
  { class: "cjk-natural", lang: "ja", keywords: ["公開前のタグ付け"], expect: ["ja-blog-tags"] },
  { class: "cjk-natural", lang: "ja", keywords: ["マイグレーションの実行"], expect: ["ja-migration-order"] },
  { class: "cjk-natural", lang: "ja", keywords: ["本番デプロイ前のマイグレーション"], expect: ["ja-migration-order"] },
  { class: "cjk-natural", lang: "ja", keywords: ["APIが起動しない"], expect: ["ja-migration-order"] },
  { class: "cjk-natural", lang: "ja", keywords: ["キャッシュを無効化して"], expect: ["ja-cache"] },
  { class: "cjk-natural", lang: "ja", keywords: ["書き込み後のキャッシュ"], expect: ["ja-cache"] },
  { class: "cjk-natural", lang: "ja", keywords: ["バックアップの復元"], expect: ["ja-backup"] },
  { class: "cjk-natural", lang: "ja", keywords: ["復元できない"], expect: ["ja-backup"] },
  { class: "cjk-natural", lang: "ja", keywords: ["デプロイを凍結して"], expect: ["ja-deploy-freeze"] },
  { class: "cjk-natural", lang: "ja", keywords: ["金曜日のデプロイ"], expect: ["ja-deploy-freeze"] },
  { class: "cjk-natural", lang: "ja", keywords: ["デプロイ予定の登録"], expect: ["ja-deploy-calendar"] },
  { class: "cjk-natural", lang: "ko", keywords: ["리뷰를"], expect: ["ko-code-review"] },
  { class: "cjk-natural", lang: "ko", keywords: ["코드리뷰"], expect: ["ko-code-review"] },
  { class: "cjk-natural", lang: "ko", keywords: ["데이터베이스를 마이그레이션"], expect: ["ko-migration-order"] },
  { class: "cjk-natural", lang: "ko", keywords: ["마이그레이션이 실행"], expect: ["ko-migration-order"] },
  { class: "cjk-natural", lang: "ko", keywords: ["인증서가 갱신"], expect: ["ko-certificate"] },
  { class: "cjk-natural", lang: "ko", keywords: ["웹훅 처리기가"], expect: ["ko-webhook"] },
  { class: "cjk-natural", lang: "ko", keywords: ["캐시를 무효화"], expect: ["ko-cache"] },
  { class: "cjk-natural", lang: "ko", keywords: ["배포 일정을 등록"], expect: ["ko-deploy-calendar"] },
  { class: "cjk-natural", lang: "ko", keywords: ["작성자가 아닌 사람"], expect: ["ko-code-review"] },
  { class: "cjk-natural", lang: "ko", keywords: ["중복을 건너뛰기"], expect: ["ko-webhook"] },
  // Conjugated as people ask and report (Korean 하다/되다 and other verbs, Japanese する/できる/される).
  { class: "cjk-natural", lang: "ko", keywords: ["마이그레이션을 실행했어요"], expect: ["ko-migration-order"] },
  { class: "cjk-natural", lang: "ko", keywords: ["캐시를 무효화해도"], expect: ["ko-cache"] },
  { class: "cjk-natural", lang: "ko", keywords: ["리뷰를 끝냈어요"], expect: ["ko-code-review"] },
  { class: "cjk-natural", lang: "ko", keywords: ["캘린더에 등록해서"], expect: ["ko-deploy-calendar"] },
  { class: "cjk-natural", lang: "ja", keywords: ["キャッシュを無効化しました"], expect: ["ja-cache"] },
  { class: "cjk-natural", lang: "ja", keywords: ["デプロイを凍結してください"], expect: ["ja-deploy-freeze"] },
  { class: "cjk-natural", lang: "ja", keywords: ["カレンダーに登録されている"], expect: ["ja-deploy-calendar"] },
  // Keywords of two characters (no trigram: the index of pieces), beside 本番 and 멱등 above.
  { class: "cjk", lang: "ja", keywords: ["凍結"], expect: ["ja-deploy-freeze"] },
  { class: "cjk", lang: "ko", keywords: ["캐시"], expect: ["ko-cache"] },
  // Questions passed whole as one keyword, as agents often do: most of their words are in the fact.
  { class: "question", lang: "ja", keywords: ["Qiitaのタグは何個まで付けられる？"], expect: ["ja-qiita-tags"] },
  { class: "question", lang: "ja", keywords: ["金曜日にデプロイしてもいい？"], expect: ["ja-deploy-freeze"] },
  { class: "question", lang: "ja", keywords: ["本番デプロイの前に何を実行する？"], expect: ["ja-migration-order"] },
  { class: "question", lang: "ja", keywords: ["キャッシュはいつ無効化すればいい？"], expect: ["ja-cache"] },
  { class: "question", lang: "en", keywords: ["When should the database migration run?"], expect: ["migrate-before-deploy"] },
  { class: "question", lang: "en", keywords: ["How many times do we retry a flaky CI job?"], expect: ["ci-flaky-retry"] },
  { class: "question", lang: "en", keywords: ["How long are audit logs kept?"], expect: ["log-retention"] },
  { class: "question", lang: "en", keywords: ["What happens if certificate renewal fails twice?"], expect: ["tls-certificate-renewal"] },
  { class: "question", lang: "ko", keywords: ["배포 전에 무엇을 실행해야 하나요?"], expect: ["ko-migration-order"] },
  { class: "question", lang: "ko", keywords: ["TLS 인증서는 언제 갱신되나요?"], expect: ["ko-certificate"] },
  { class: "question", lang: "ko", keywords: ["웹훅 처리기는 어떻게 만들어야 하나요?"], expect: ["ko-webhook"] },
  { class: "question", lang: "ko", keywords: ["배포 전에 마이그레이션을 실행해도 되나요?"], expect: ["ko-migration-order"] },
  { class: "question", lang: "ko", keywords: ["캐시는 언제 무효화하나요?"], expect: ["ko-cache"] },
  { class: "question", lang: "ja", keywords: ["バックアップをステージングに復元できますか？"], expect: ["ja-backup"] },
  { class: "question", lang: "ja", keywords: ["マイグレーションはデプロイの前に実行しましたか？"], expect: ["ja-migration-order"] },
  // Meaning only: none of the words occurs in the fact; lexical search cannot be expected to answer these.
  { class: "synonym", lang: "en", keywords: ["schema change", "release"], expect: ["migrate-before-deploy"] },
  { class: "synonym", lang: "en", keywords: ["disaster recovery"], expect: ["backup-restore-drill"] },
  { class: "synonym", lang: "en", keywords: ["credentials"], expect: ["api-key-rotation"] },
  { class: "synonym", lang: "en", keywords: ["exactly once delivery"], expect: ["webhook-idempotency"] },
  { class: "synonym", lang: "en", keywords: ["undo"], expect: ["rollback-procedure"] },
  { class: "synonym", lang: "ja", keywords: ["移行"], expect: ["ja-migration-order"] },
  { class: "synonym", lang: "ko", keywords: ["이관"], expect: ["ko-migration-order"] },
];

/**
 * The ranking class: for each query, one older fact matches every keyword;
 * `partials` newer facts (stored after it, confirmed) each match one keyword
 * in their description. The best fact must come first.
 */
interface RankingCase {
  best: QualityFact;
  keywords: string[];
  lang: "en" | "ja" | "ko";
  /** Descriptions of the partial matches; each is stored `copies` times. */
  partials: string[];
}

export const RANKING: RankingCase[] = [
  {
    lang: "en",
    best: { name: "rank-db-migration-deploy", description: "Database migration runs in the deploy pipeline", body: "The pipeline waits for it." },
    keywords: ["database", "migration", "deploy"],
    partials: ["Database sizes are reviewed quarterly", "Migration of the wiki to the new host", "Deploy freeze during the holidays"],
  },
  {
    lang: "en",
    best: { name: "rank-payment-webhook-retry", description: "Payment webhooks are retried with backoff", body: "The provider gives up after three days." },
    keywords: ["payment", "webhook", "retry"],
    partials: ["Payment methods shown at checkout", "Webhook signing secrets are rotated", "Retry budget of the search client"],
  },
  {
    lang: "en",
    best: { name: "rank-cache-redis-eviction", description: "Redis cache eviction uses allkeys-lru", body: "Set in the redis config, checked at start." },
    keywords: ["cache", "redis", "eviction"],
    partials: ["Cache warmup after each release", "Redis runs as a managed service", "Eviction notices are sent by the landlord team"],
  },
  {
    lang: "ja",
    best: { name: "rank-ja-payment-retry", description: "決済の通知は再送される", body: "三日後に止まる。" },
    keywords: ["決済", "通知", "再送"],
    partials: ["決済手段の一覧を表示する", "通知の文面は法務が確認する", "再送ボタンは管理画面にある"],
  },
  {
    lang: "ko",
    best: { name: "rank-ko-payment-retry", description: "결제 알림은 재전송된다", body: "사흘 후에 멈춘다." },
    keywords: ["결제", "알림", "재전송"],
    partials: ["결제 수단 목록을 보여준다", "알림 문구는 법무팀이 확인한다", "재전송 버튼은 관리 화면에 있다"],
  },
];
