// The facts capability: its tools and resources, as one definition the MCP layer
// registers (src/server/capabilities.ts lists it).
import type { Capability } from "../mcp/tool.js";
import { factResource } from "./lifecycle/resources.js";
import { memoryGetTool } from "./lifecycle/tools/get.js";
import { memoryListTool } from "./lifecycle/tools/list.js";
import { memoryPromoteTool } from "./review/tools/promote.js";
import { memoryRecallTool } from "./recall/tools/recall.js";
import { memoryReviewTool } from "./review/tools/review.js";
import { reviewAppResource } from "./review/review-app/resource.js";
import { memoryStoreTool } from "./lifecycle/tools/store.js";

export const facts: Capability = {
  name: "facts",
  tools: [memoryRecallTool, memoryStoreTool, memoryGetTool, memoryListTool, memoryPromoteTool, memoryReviewTool],
  resources: [factResource],
  fixedResources: [reviewAppResource],
};

// The public surface other capabilities (snapshots, prompts) build on: the rules of a
// fact, the reads of a whole history and the writes that replay one. Never facts' SQL.
export {
  countFactsForExport,
  exportFacts,
  factHistory,
  type ExportedFact,
  type ExportFilters,
  type FactHistory,
  type StoredFactEvent,
} from "./lifecycle/history.js";
export { completeFactType, completeWritableScope } from "./lifecycle/complete.js";
export { insertFactHistories, lockFactInScope, replayCreate, replayPromotion, replayUpdate, type FactContent, type HistoryToInsert } from "./lifecycle/replay.js";
export { restoreRedactions } from "./trust/redaction.js";
export { restoreSupersessions } from "./trust/supersession.js";
export {
  DESCRIPTION_MAX_CHARS,
  FACT_EVENT_KINDS,
  FACT_STATUSES,
  FACT_TYPES,
  NAME_MAX_CHARS,
  NAME_PATTERN,
  isReconfirmation,
  transitionAllowed,
  validateBody,
  validateDescription,
  validateName,
  validateReason,
  validateType,
  type FactEventKind,
  type FactStatus,
  type FactType,
  type PromotionTarget,
} from "./rules.js";
// The row shapes of a fact's history, so that snapshots derives its own from them.
export type { FactEvent } from "./model.js";
export { healthHistory, memoryHealth, reviewsByAgent } from "./review/health.js";
// Withdrawal notices, which the start-task prompt carries as memory_recall does.
export { startNotices } from "./trust/receipts.js";
// Recall receipts for `export --receipts`.
export { exportReceipts, type ExportedReceipt } from "./trust/receipts.js";

// What the console, the CLI and the composition root call.
export { segmentOlderFacts } from "./lifecycle/cjk-backfill.js";
export { getFact } from "./lifecycle/get.js";
export { listFacts } from "./lifecycle/list.js";
export { type FactSummary, type FullFact, type SimilarFact } from "./model.js";
export { recallFacts, type RecallHit } from "./recall/recall.js";
export { recentFactEvents } from "./review/activity.js";
export { diffRows } from "./review/version-diff.js";
export { type DaySample, sampleHealthToday } from "./review/health.js";
export { reviewFact } from "./review/promote.js";
export { type ReviewItem, reviewQueue, type ReviewQueue, type StaleItem, staleQueue, type StaleQueue } from "./review/queue.js";
export { confirmationReason, DEPRECATION_NEEDS_REASON, MAX_KEYWORDS, PROMOTION_TARGETS } from "./rules.js";
export { pruneReceipts, ReceiptWriter } from "./trust/receipt-writer.js";
export { factReaders, type FactReaders } from "./trust/receipts.js";
export { parseVersionRef, redactFactVersion } from "./trust/redaction.js";
// Recall by meaning: the service's queue and query embeddings, and the CLI's backfill and status.
export { FactEmbeddings } from "./embeddings/embeddings.js";
export { embeddingStatus, prepareVectorSearch, type EmbeddingStatus } from "./embeddings/store.js";
