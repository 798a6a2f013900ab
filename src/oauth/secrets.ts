// Random secrets of the authorization server. Each kind has its own prefix
// (src/secrets/own-tokens.ts) so a leaked one is recognisable (and never mistaken for an agent token); all are
// stored only as sha256 (high-entropy secrets: a fast hash suffices, lookup by
// hash needs no timing-safe comparison).
import { randomBytes } from "node:crypto";
import { hashToken } from "../auth/tokens.js";

export function newSecret(prefix = ""): string {
  return prefix + randomBytes(32).toString("base64url");
}

export const hashSecret = hashToken;
