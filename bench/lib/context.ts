// What every benchmark section receives.
import type { BenchService } from "./service.js";

export interface BenchAgent {
  name: string;
  token: string;
}

export interface BenchContext {
  quick: boolean;
  /** How many facts the facts section loads. */
  factsCount: number;
  /** Entity counts for the side-by-side graph runs. */
  graphSizes: number[];
  /** Graph workloads (bench/lib/graph-corpus.ts) run at each size. */
  graphCorpora: string[];
  /** Sizes the scaling section compares the service with itself at, smallest first. */
  scalingSizes: number[];
  /** What the scale section loads through `agent-memory import`: facts, and entities (with as many relations). */
  scale: { facts: number; entities: number };
  service: BenchService;
  /** Agents created through the real CLI: writers for each scope and a human reviewer. */
  agents: { writers: BenchAgent[]; reviewer: BenchAgent; racers: BenchAgent[] };
  /** The trivial-tool floor, once measured (ms, sequential p50), for ratio columns. */
  floor?: { p50: number; p99: number; perSecond: Record<number, number> };
  /** Every figure, keyed by section, written to the JSON report. */
  results: Record<string, unknown>;
  log(line: string): void;
  /** Marks the run failed (exit code 1) with a reason, printed at the end; the run goes on. */
  fail(reason: string): void;
}
