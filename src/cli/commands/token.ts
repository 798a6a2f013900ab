// token issue | list | revoke
import type { Command } from "commander";
import ms from "ms";
import { issueToken, listTokens, revokeToken, type TokenRecord } from "../../auth/store.js";
import { withDatabase } from "../context.js";
import { iso, table, UsageError, type Output } from "../output.js";
import { action } from "../run.js";
import { agentJson } from "./agent.js";

const tokenJson = (t: TokenRecord) => ({
  id: t.id,
  agent: t.agent,
  hint: t.hint,
  createdAt: iso(t.createdAt),
  expiresAt: t.expiresAt ? iso(t.expiresAt) : null,
  revokedAt: t.revokedAt ? iso(t.revokedAt) : null,
  lastUsedAt: t.lastUsedAt ? iso(t.lastUsedAt) : null,
  oauthGrant: t.oauthGrant,
});

/**
 * `ms` reads a bare number as milliseconds, so `--expires-in 30` would make a
 * token that expired before it was stored (where 30 days was meant).
 * A number without a unit is refused, saying which unit to add, rather than
 * guessed at: days (the console's field) and seconds are both plausible readings.
 */
function parseExpiresIn(value: string | undefined): Date | null {
  if (value === undefined) return null;
  const bare = /^\s*(\d+\.?\d*|\.\d+)\s*$/.exec(value)?.[1];
  if (bare !== undefined) {
    throw new UsageError(`--expires-in needs a unit: "${bare}" alone would mean ${bare} milliseconds. Write e.g. ${bare}d for days or ${bare}h for hours.`);
  }
  const duration = ms(value as ms.StringValue);
  if (typeof duration !== "number" || !Number.isFinite(duration) || duration <= 0) {
    throw new UsageError(`--expires-in must be a positive duration such as 12h, 30d or 1y, got "${value}"`);
  }
  return new Date(Date.now() + duration);
}

function tokenStatus(t: TokenRecord): string {
  if (t.revokedAt) return "revoked";
  if (t.expiresAt && t.expiresAt.getTime() <= Date.now()) return "expired";
  return "active";
}

export function registerTokenCommands(program: Command): void {
  const token = program.command("token").description("manage bearer tokens");

  token
    .command("issue")
    .description("issue a new token for an agent (the secret is shown once)")
    .argument("<agent>", "agent name")
    .option("--expires-in <duration>", "lifetime with a unit: 12h, 30d, 1y (m is minutes; a bare number is refused) (default: no expiry)")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output, agentName: string, opts: { expiresIn?: string }) => {
        const expiresAt = parseExpiresIn(opts.expiresIn);
        const issued = await withDatabase(out.io, (db) => issueToken(db, agentName, expiresAt));
        out.result({ agent: agentJson(issued.agent), token: issued.token, tokenInfo: tokenJson(issued.record) }, () =>
          [
            `Token ${issued.record.id} for "${agentName}"${expiresAt ? `, expires ${iso(expiresAt)}` : ", no expiry"}. Shown only now:`,
            ``,
            `  ${issued.token}`,
          ].join("\n"),
        );
      }),
    );

  token
    .command("list")
    .description("list tokens (never their secrets), optionally for one agent")
    .argument("[agent]", "agent name")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output, agentName: string | undefined) => {
        const tokens = await withDatabase(out.io, (db) => listTokens(db, agentName));
        out.result({ tokens: tokens.map(tokenJson) }, () =>
          table(
            ["ID", "AGENT", "HINT", "STATUS", "CREATED", "EXPIRES", "LAST USED", "GRANT"],
            tokens.map((t) => [
              String(t.id),
              t.agent,
              t.hint,
              tokenStatus(t),
              iso(t.createdAt),
              iso(t.expiresAt) || "never",
              iso(t.lastUsedAt) || "never",
              t.oauthGrant ? `${t.oauthGrant.id} (${t.oauthGrant.client})` : "-",
            ]),
          ),
        );
      }),
    );

  token
    .command("revoke")
    .description("revoke a token: it stops working immediately")
    .argument("<id>", "token id (see token list)")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output, idText: string) => {
        if (!/^\d+$/.test(idText)) throw new UsageError(`Token id must be a number (see "token list"), got "${idText}"`);
        const revoked = await withDatabase(out.io, (db) => revokeToken(db, Number(idText)));
        out.result({ token: tokenJson(revoked), alreadyRevoked: revoked.alreadyRevoked }, () =>
          revoked.alreadyRevoked
            ? `Token ${revoked.id} of "${revoked.agent}" was already revoked at ${iso(revoked.revokedAt)}; nothing changed.`
            : revoked.oauthGrant
            ? `Token ${revoked.id} of "${revoked.agent}" revoked, with OAuth grant ${revoked.oauthGrant.id} (${revoked.oauthGrant.client}): every token of that grant stops; the client must be authorized again.`
            : `Token ${revoked.id} of "${revoked.agent}" revoked.`,
        );
      }),
    );
}
