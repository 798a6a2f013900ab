// OAuth for MCP clients that connect by signing in (docs/oauth.md): the mode,
// an external identity provider's coordinates, token lifetimes and the limit
// on its endpoints. Checked together with PUBLIC_URL (checkOAuth).
import * as z from "zod/v4";
import { intFrom, listFrom } from "./parse.js";

export const oauthEnv = z.object({
  OAUTH_MODE: z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "" || raw === "off") return "off" as const;
      if (raw === "builtin" || raw === "external") return raw;
      ctx.addIssue({ code: "custom", message: `OAUTH_MODE must be empty (off), builtin or external, got "${raw}"` });
      return z.NEVER;
    }),
  OAUTH_ISSUER: z.string().trim().optional().default(""),
  OAUTH_AUDIENCE: z.string().trim().optional().default(""),
  OAUTH_AGENT_CLAIM: z.string().trim().min(1).optional().default("agent"),
  OAUTH_JWKS_URL: z.string().trim().optional().default(""),
  OAUTH_HUMAN_AGENTS: listFrom(),
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: intFrom("OAUTH_ACCESS_TOKEN_TTL_SECONDS", 3600, 60, 86_400),
  OAUTH_REFRESH_TOKEN_TTL_DAYS: intFrom("OAUTH_REFRESH_TOKEN_TTL_DAYS", 30, 1, 365),
  OAUTH_RATE_LIMIT_PER_MINUTE: intFrom("OAUTH_RATE_LIMIT_PER_MINUTE", 20, 1, 1_000_000),
});

type OAuthEnv = z.output<typeof oauthEnv>;

/**
 * Checked together: OAuth needs the public origin clients reach, because every
 * URL in its metadata (and the audience of every token) is derived from it.
 */
export function checkOAuth(e: OAuthEnv & { PUBLIC_URL?: string | undefined }, ctx: z.RefinementCtx): void {
  if (e.OAUTH_HUMAN_AGENTS.length > 0 && e.OAUTH_MODE !== "external") {
    ctx.addIssue({
      code: "custom",
      message: `OAUTH_HUMAN_AGENTS names the people an external identity provider's tokens may act as; it applies only with OAUTH_MODE=external (here ${e.OAUTH_MODE}). Empty it, or set OAUTH_MODE=external.`,
    });
  }
  if (e.OAUTH_MODE === "off") return;
  const problem = publicUrlProblem(e.PUBLIC_URL);
  if (problem) ctx.addIssue({ code: "custom", message: `OAUTH_MODE=${e.OAUTH_MODE} needs PUBLIC_URL: ${problem}` });
  if (e.OAUTH_MODE === "external") {
    const issuerProblem = e.OAUTH_ISSUER ? secureUrlProblem(e.OAUTH_ISSUER) : "it is empty";
    if (issuerProblem) ctx.addIssue({ code: "custom", message: `OAUTH_MODE=external needs OAUTH_ISSUER, the identity provider's issuer URL (e.g. https://id.example.com/realms/main): ${issuerProblem}` });
    if (e.OAUTH_JWKS_URL) {
      const jwksProblem = secureUrlProblem(e.OAUTH_JWKS_URL);
      if (jwksProblem) ctx.addIssue({ code: "custom", message: `OAUTH_JWKS_URL: ${jwksProblem}` });
    }
  }
}

const LOOPBACK_HOSTNAMES = ["localhost", "127.0.0.1"];

/** https anywhere; plain http only on this machine (local use and tests). */
function secureUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not a URL`;
  }
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && LOOPBACK_HOSTNAMES.includes(url.hostname)) return undefined;
  return `"${value}" must use https (plain http is accepted only for localhost and 127.0.0.1)`;
}

function publicUrlProblem(value: string | undefined): string | undefined {
  if (!value) return "it is empty; set it to the https origin clients reach, e.g. https://memory.example.com";
  const problem = secureUrlProblem(value);
  if (problem) return problem;
  const url = new URL(value);
  if (url.pathname.replace(/\/+$/, "") !== "" || url.search || url.hash) {
    return `"${value}" must be an origin without a path (the OAuth endpoints live at its root), e.g. https://memory.example.com`;
  }
  return undefined;
}

export interface OAuthConfig {
  /** off: only static tokens; builtin: our own authorization server; external: tokens of an external identity provider. */
  mode: "off" | "builtin" | "external";
  /** External mode: the identity provider's issuer (the `iss` of its tokens). */
  issuer: string | undefined;
  /** External mode: the `aud` tokens must carry; defaults to the OAuth MCP URL. */
  audience: string | undefined;
  /** External mode: the claim whose value names the agent. */
  agentClaim: string;
  /** External mode: the JWKS URL when the issuer's metadata does not give one. */
  jwksUrl: string | undefined;
  /** External mode: agents of kind human a token's claim may name (none by default: agents of kind agent only). */
  humanAgents: string[];
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** Requests per client address per minute on /register, /token, /authorize and /revoke (the consent page's sign-in is under AUTH_FAILURES_PER_MINUTE). */
  rateLimitPerMinute: number;
  /**
   * Lets client ID metadata documents be fetched from loopback addresses over
   * http. No setting turns it on: only the tests do, to serve documents locally.
   */
  allowLoopbackMetadataDocuments: boolean;
  /** How long a metadata document may take to arrive; unset, the fetch's own bound. No setting: only the tests shorten it. */
  metadataDocumentTimeoutMs?: number | undefined;
}

export function oauthConfig(e: OAuthEnv): { oauth: OAuthConfig } {
  return {
    oauth: {
      mode: e.OAUTH_MODE,
      issuer: e.OAUTH_ISSUER || undefined,
      audience: e.OAUTH_AUDIENCE || undefined,
      agentClaim: e.OAUTH_AGENT_CLAIM,
      jwksUrl: e.OAUTH_JWKS_URL || undefined,
      humanAgents: e.OAUTH_HUMAN_AGENTS,
      accessTokenTtlSeconds: e.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlSeconds: e.OAUTH_REFRESH_TOKEN_TTL_DAYS * 86_400,
      rateLimitPerMinute: e.OAUTH_RATE_LIMIT_PER_MINUTE,
      allowLoopbackMetadataDocuments: false,
    },
  };
}
