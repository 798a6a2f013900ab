// grant list | revoke: the OAuth approvals (which client acts as which agent,
// approved by whom). Revoking a grant revokes every token it minted, at once.
import type { Command } from "commander";
import { listGrants, revokeGrantById, type GrantRecord } from "../../oauth/grants.js";
import { withDatabase } from "../context.js";
import { iso, table, UsageError, type Output } from "../output.js";
import { action } from "../run.js";

const grantJson = (g: GrantRecord) => ({
  id: g.id,
  clientId: g.clientId,
  clientName: g.clientName,
  agent: g.agent,
  approvedBy: g.approvedBy,
  resource: g.resource,
  createdAt: iso(g.createdAt),
  revokedAt: g.revokedAt ? iso(g.revokedAt) : null,
  revokedReason: g.revokedReason,
  lastUsedAt: g.lastUsedAt ? iso(g.lastUsedAt) : null,
  status: g.status,
});

/** The STATUS column: what an operator needs to tell a live grant from an approval the client never finished. */
function statusText(g: GrantRecord): string {
  if (g.status === "revoked") return `revoked: ${g.revokedReason ?? ""}`;
  if (g.status === "pending") return "pending: code not exchanged yet";
  if (g.status === "unused") return "unused: code expired, never exchanged";
  return "active";
}

export function registerGrantCommands(program: Command): void {
  const grant = program.command("grant").description("list and revoke OAuth grants (hosted MCP clients acting as an agent)");

  grant
    .command("list")
    .description("list grants, optionally for one agent")
    .argument("[agent]", "agent name")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output, agentName: string | undefined) => {
        const grants = await withDatabase(out.io, (db) => listGrants(db, agentName));
        out.result({ grants: grants.map(grantJson) }, () =>
          table(
            ["ID", "CLIENT", "AGENT", "APPROVED BY", "STATUS", "CREATED", "LAST USED"],
            grants.map((g) => [
              String(g.id),
              g.clientName ? `${g.clientName} (${g.clientId})` : g.clientId,
              g.agent,
              g.approvedBy,
              statusText(g),
              iso(g.createdAt),
              iso(g.lastUsedAt) || "never",
            ]),
          ),
        );
      }),
    );

  grant
    .command("revoke")
    .description("revoke a grant: its access and refresh tokens stop working immediately")
    .argument("<id>", "grant id (see grant list)")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output, idText: string) => {
        if (!/^\d+$/.test(idText)) throw new UsageError(`Grant id must be a number (see "grant list"), got "${idText}"`);
        const id = Number(idText);
        const grants = await withDatabase(out.io, async (db) => {
          await revokeGrantById(db, id);
          return listGrants(db);
        });
        const revoked = grants.find((g) => g.id === id)!;
        out.result({ grant: grantJson(revoked) }, () => `Grant ${id} (${revoked.clientName ?? revoked.clientId} as "${revoked.agent}") revoked.`);
      }),
    );
}
