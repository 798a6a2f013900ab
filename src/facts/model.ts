// What a fact looks like to callers, and how database rows become that.
import type { FactEventKind, FactStatus, FactType } from "./rules.js";

export interface FactSummary {
  name: string;
  scope: string;
  type: FactType;
  status: FactStatus;
  description: string;
  /** Author of the current version. */
  author: string;
  version: number;
  createdAt: string;
  /** When the current version was stored. */
  updatedAt: string;
  /** Who moved the current version to its status (null for a draft). */
  statusBy: string | null;
  statusAt: string | null;
  /** Why (the deprecation reason for a deprecated fact). */
  statusReason: string | null;
  bodyChars: number;
}

/** A readable fact like a newly stored one (the duplicate warning). */
export interface SimilarFact {
  name: string;
  scope: string;
  status: FactStatus;
  version: number;
  description: string;
  /** pg_trgm similarity of "name description", 0-1. */
  similarity: number;
}

export interface FactVersion {
  version: number;
  description: string;
  type: FactType;
  body: string;
  author: string;
  at: string;
}

export interface FactEvent {
  kind: FactEventKind;
  version: number;
  actor: string;
  at: string;
  from: FactStatus | null;
  to: FactStatus;
  reason: string | null;
}

export interface FullFact extends FactSummary {
  body: string;
  /** A window of the versions (GET_HISTORY_VERSIONS at most), oldest first. */
  versions: FactVersion[];
  /** The events of those versions, oldest first. */
  events: FactEvent[];
  /** Only when older versions exist than the first one shown: how many. */
  earlierVersions?: number;
  /** The fact this one replaces (deprecated once this one is confirmed), as "scope/name". */
  supersedes?: string;
  /** The confirmed fact that replaced this one. */
  supersededBy?: string;
  /** Drafts that would replace this one once confirmed. */
  replacements?: string[];
  /** Tombstones: versions whose text a human removed (it reads "[redacted]"), by whom, when and why. */
  redactions?: Array<{ version: number; by: string; at: string; reason: string }>;
}

export interface SummaryRow {
  id: number;
  scope: string;
  name: string;
  description: string;
  type: FactType;
  status: FactStatus;
  version: number;
  author: string;
  created_at: Date | string;
  updated_at: Date | string;
  status_by: string | null;
  status_at: Date | string | null;
  status_reason: string | null;
  body_chars: number;
}

/** Timestamps leave the service as ISO strings (UTC, millisecond precision). */
export const isoTime = (d: Date | string): string => (d instanceof Date ? d : new Date(d)).toISOString();

export function toSummary(r: SummaryRow): FactSummary {
  return {
    name: r.name,
    scope: r.scope,
    type: r.type,
    status: r.status,
    description: r.description,
    author: r.author,
    version: r.version,
    createdAt: isoTime(r.created_at),
    updatedAt: isoTime(r.updated_at),
    statusBy: r.status_by,
    statusAt: r.status_at ? isoTime(r.status_at) : null,
    statusReason: r.status_reason,
    bodyChars: r.body_chars,
  };
}

/** The stable address of a fact, also its MCP resource URI. */
export const factUri = (scope: string, name: string): string => `memory://facts/${scope}/${name}`;
