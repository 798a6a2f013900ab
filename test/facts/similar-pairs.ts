// Labelled pairs of facts a team writes, for the duplicate warning (issue 15):
// rewordings of one fact, which it must list, and different facts of one
// topic, often in one phrasing, which it must not. test/facts/similar-quality.test.ts
// checks the service's measure on them; bench/similar-pairs.ts prints how the
// measures compare at each threshold (docs/hygiene.md, "Choosing the measure").
// Similarities "as written" in the comments are of the text before sql/000042.

export type Fact = [name: string, description: string];

/** Rewordings: the second is the first said again. */
export const SAME_FACT: Array<[Fact, Fact]> = [
  [["deploy-needs-migration", "Run database migrations before deploying the API"], ["migrate-before-deploy", "Always run the migrations before a deploy"]],
  [["deploy-needs-migration", "Run database migrations before deploying the API"], ["deploy-needs-migrations", "Run the database migrations before deploying"]],
  [["staging-db-lags", "The staging database replica lags behind after a failover"], ["staging-replica-lag", "Staging replica lags behind the primary after failover"]],
  [["cache-warm-rule", "Warm the cache after every deploy"], ["warm-cache-after-deploy", "Warm up the cache after each deploy"]],
  [["rotate-keys-monthly", "Rotate the signing keys on the first Monday of a month"], ["rotate-signing-keys", "Rotate signing keys on the first Monday of each month"]],
  [["ci-flaky-e2e", "The e2e suite is flaky on CI; rerun once before investigating"], ["flaky-e2e-tests", "E2E tests are flaky in CI, rerun them once before digging in"]],
  // As written: 0.38, below every threshold that keeps the different facts apart.
  [["use-pnpm", "The repo uses pnpm, not npm"], ["package-manager-pnpm", "Use pnpm as the package manager for this repo, never npm"]],
  [["api-rate-limit", "The public API is rate limited to 100 requests per minute per key"], ["rate-limit-public-api", "Public API rate limit is 100 requests a minute for each key"]],
  [["billing-worker-drain", "Drain the billing queue before restarting the workers"], ["drain-billing-queue", "Drain the billing queue before you restart billing workers"]],
  [["no-friday-deploys", "Do not deploy to production on Fridays"], ["friday-deploy-freeze", "No production deploys on Fridays"]],
  [["redis-timeout", "Redis connections time out after 30 seconds of idle"], ["redis-idle-timeout", "Idle Redis connections are closed after 30 seconds"]],
  [["backup-restore-test", "Test restoring the database backup every quarter"], ["quarterly-restore-drill", "Restore the database backup as a test each quarter"]],
  [["owner-payments", "The payments service is owned by the billing team"], ["payments-owner", "Billing team owns the payments service"]],
  [["tz-utc", "All timestamps in the database are stored in UTC"], ["timestamps-utc", "Timestamps are stored as UTC in the database"]],
  [["feature-flags-cleanup", "Remove a feature flag within two weeks of full rollout"], ["flag-removal-policy", "Feature flags must be removed two weeks after a full rollout"]],
  // As written: 0.45.
  [["node-20-required", "The service needs Node.js 20 or newer"], ["min-node-version", "Node 20+ is required to run the service"]],
  // As written: 0.41.
  [["staging-reset-sunday", "The staging database is wiped every Sunday night"], ["staging-weekly-reset", "Staging DB gets reset each Sunday night"]],
  [["oncall-escalation", "Escalate to the on-call lead after 15 minutes without a fix"], ["escalate-after-15-min", "If there is no fix within 15 minutes, escalate to the on-call lead"]],
  [["s3-bucket-eu", "Customer uploads are stored in the eu-west-1 S3 bucket"], ["uploads-bucket-region", "Customer uploads live in the S3 bucket in eu-west-1"]],
  [["pr-needs-two-reviews", "Every pull request needs two approving reviews before merge"], ["two-reviews-per-pr", "Pull requests need two approvals before they can be merged"]],
  [["logs-retention-30d", "Application logs are kept for 30 days"], ["log-retention", "We keep application logs for 30 days"]],
  [["webhook-retries", "Webhooks are retried 5 times with exponential backoff"], ["webhook-retry-policy", "Failed webhooks retry five times with exponential backoff"]],
  [["search-reindex-nightly", "The search index is rebuilt every night at 3am"], ["nightly-search-reindex", "Search index rebuild runs nightly at 3am"]],
  [["secrets-in-vault", "Store secrets in Vault, never in environment files"], ["no-secrets-in-env", "Never put secrets in env files; keep them in Vault"]],
  [["mobile-release-train", "Mobile apps ship on a two-week release train"], ["mobile-release-cadence", "The mobile app is released every two weeks on a train"]],
];

/** Different facts of one topic: the second must not be listed as a copy of the first. */
export const DIFFERENT_FACTS: Array<[Fact, Fact]> = [
  [["deploy-needs-migration", "Run database migrations before deploying the API"], ["api-deploy-window", "Deploy the API only between 9 and 17"]],
  [["rollback-procedure-for-billing-workers", "Drain the billing queue then roll back the workers"], ["queue-drain-rule", "Drain the email queue every night"]],
  [["cache-warm-rule", "Warm the cache after every deploy"], ["cache-ttl", "The cache TTL for product pages is ten minutes"]],
  [["redis-timeout", "Redis connections time out after 30 seconds of idle"], ["postgres-timeout", "Postgres statements time out after 30 seconds"]],
  [["use-pnpm", "The repo uses pnpm, not npm"], ["node-version", "The repo needs Node 20 or newer"]],
  // As written: 0.49, one phrasing ("The … service is owned by the … team").
  [["owner-payments", "The payments service is owned by the billing team"], ["owner-search", "The search service is owned by the discovery team"]],
  [["tz-utc", "All timestamps in the database are stored in UTC"], ["dates-in-ui", "The UI shows dates in the user's local time zone"]],
  [["backup-restore-test", "Test restoring the database backup every quarter"], ["backup-schedule", "Database backups run every night at 2am"]],
  [["api-rate-limit", "The public API is rate limited to 100 requests per minute per key"], ["api-auth", "The public API authenticates with a bearer key per client"]],
  [["ci-flaky-e2e", "The e2e suite is flaky on CI; rerun once before investigating"], ["ci-cache", "CI caches node_modules between runs on the main branch"]],
  [["staging-db-lags", "The staging database replica lags behind after a failover"], ["staging-reset", "The staging database is reset every Sunday"]],
  [["feature-flags-cleanup", "Remove a feature flag within two weeks of full rollout"], ["flag-naming", "Feature flags are named after the team and the feature"]],
  [["node-20-required", "The service needs Node.js 20 or newer"], ["python-version", "The data scripts need Python 3.11"]],
  // As written: 0.47.
  [["staging-reset-sunday", "The staging database is wiped every Sunday night"], ["prod-backup-sunday", "The production database is backed up every Sunday night"]],
  [["oncall-escalation", "Escalate to the on-call lead after 15 minutes without a fix"], ["oncall-handover", "The on-call handover happens every Monday at 10am"]],
  [["s3-bucket-eu", "Customer uploads are stored in the eu-west-1 S3 bucket"], ["logs-bucket", "Access logs are stored in a separate S3 bucket"]],
  [["pr-needs-two-reviews", "Every pull request needs two approving reviews before merge"], ["pr-title-format", "Pull request titles start with the ticket number"]],
  [["logs-retention-30d", "Application logs are kept for 30 days"], ["metrics-retention", "Metrics are kept for 13 months"]],
  [["webhook-retries", "Webhooks are retried 5 times with exponential backoff"], ["email-retries", "Emails are retried 3 times, then dropped"]],
  [["search-reindex-nightly", "The search index is rebuilt every night at 3am"], ["search-synonyms", "Search synonyms are edited in the admin console"]],
  [["secrets-in-vault", "Store secrets in Vault, never in environment files"], ["config-in-env", "Keep feature configuration in environment files"]],
  [["mobile-release-train", "Mobile apps ship on a two-week release train"], ["web-release", "The web app is deployed continuously from main"]],
  [["run-migrations-before-deploy", "Run the migrations before every deploy of the API"], ["run-smoke-tests-after-deploy", "Run the smoke tests after every deploy of the web app"]],
  [["drain-queue-before-restart", "Drain the queue before restarting the workers"], ["warm-cache-after-restart", "Warm the cache after restarting the web servers"]],
];
