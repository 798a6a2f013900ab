// Random secrets of the authorization server. Each kind has its own prefix so a
// leaked one is recognisable (and never mistaken for an agent token); all are
// stored only as sha256 (high-entropy secrets: a fast hash suffices, lookup by
// hash needs no timing-safe comparison).
import { randomBytes } from "node:crypto";
import { hashToken } from "../auth/tokens.js";

export const CODE_PREFIX = "amc_";
export const REFRESH_PREFIX = "amr_";
export const CLIENT_SECRET_PREFIX = "ams_";

export function newSecret(prefix = ""): string {
  return prefix + randomBytes(32).toString("base64url");
}

export const hashSecret = hashToken;
