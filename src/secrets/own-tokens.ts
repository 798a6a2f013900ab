// The formats of this service's own secrets, in one place: the code that makes
// them (src/auth/tokens.ts, src/oauth/secrets.ts, src/ledger/claim-id.ts) and the secret guard, which
// refuses to store them (a token recalled by another agent is that agent's
// way in), read the same prefixes.

/** Agent tokens and OAuth access tokens. */
export const AGENT_TOKEN_PREFIX = "amk_";
/** OAuth authorization codes. */
export const CODE_PREFIX = "amc_";
/** OAuth refresh tokens. */
export const REFRESH_PREFIX = "amr_";
/** Ledger claim ids: what a worker that holds a claim passes to renew, record or release it. */
export const CLAIM_ID_PREFIX = "aml_";

/** Every prefix of the service's secrets, the reserved client-secret prefix (ams_) included. */
export const OWN_SECRET_PREFIXES = [AGENT_TOKEN_PREFIX, CODE_PREFIX, REFRESH_PREFIX, CLAIM_ID_PREFIX, "ams_"] as const;

/** The random part of each: 32 bytes in base64url. */
export const OWN_SECRET_BODY_CHARS = 43;
