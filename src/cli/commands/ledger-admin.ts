// ledger action set | unset | list, and ledger void: the operator's side of the
// ledger's write permission (docs/ledger-permissions.md).
import type { Command } from "commander";
import { getAgent } from "../../auth/store.js";
import { loadConfig } from "../../config/index.js";
import { type ActionScope, keyText, listActionScopes, openClaimsOfAction, setActionScope, unsetActionScope, voidLedger } from "../../ledger/index.js";
import { withDatabase } from "../context.js";
import { iso, table, type Output } from "../output.js";
import { action } from "../run.js";

const actionJson = (a: ActionScope) => ({ action: a.action, scope: a.scope, setBy: a.setBy, setAt: iso(a.setAt) });

export function registerLedgerAdminCommands(ledger: Command): void {
  const actions = ledger.command("action").description("which scope each ledger action belongs to (only writers of that scope may claim or record it)");

  actions
    .command("set")
    .description("put an action in a scope")
    .argument("<action>", "ledger action, e.g. deploy_prod")
    .requiredOption("--scope <scope>", "the scope whose writers may claim, record and release it")
    .option("--as <name>", "who made the change, for the record (default: cli)")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output, actionName: string, opts: { scope: string; as?: string }) => {
        const { set, open } = await withDatabase(out.io, async (db) => {
          const set = await setActionScope(db, { action: actionName, scope: opts.scope, setBy: opts.as ?? "cli" });
          return { set, open: await openClaimsOfAction(db, set.action) };
        });
        const claims = open.map((c) => `  ${keyText({ action: set.action, target: c.target })} held by ${c.holder} until ${iso(c.expiresAt)}`);
        out.result(
          { action: actionJson(set), openClaims: open.map((c) => ({ target: c.target, holder: c.holder, expiresAt: iso(c.expiresAt) })) },
          () =>
            `${set.action} now belongs to scope "${set.scope}": only agents that may write "${set.scope}" can claim, record or release it.` +
            (claims.length > 0
              ? `\nOpen claims on it (their holders may still record or release them until they expire; void one with 'agent-memory ledger void' if it must not go on):\n${claims.join("\n")}`
              : ""),
        );
      }),
    );

  actions
    .command("unset")
    .description("return an action to the default scope (LEDGER_DEFAULT_SCOPE)")
    .argument("<action>", "ledger action")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output, actionName: string) => {
        const defaultScope = loadConfig(out.io.env).ledger.defaultScope;
        const removed = await withDatabase(out.io, (db) => unsetActionScope(db, actionName, defaultScope));
        out.result({ action: actionJson(removed), defaultScope }, () => `${removed.action} belongs to the default scope "${defaultScope}" again (was "${removed.scope}").`);
      }),
    );

  actions
    .command("list")
    .description("list the actions that have a scope of their own")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output) => {
        const defaultScope = loadConfig(out.io.env).ledger.defaultScope;
        const rows = await withDatabase(out.io, (db) => listActionScopes(db));
        out.result({ defaultScope, actions: rows.map(actionJson) }, () =>
          [
            table(["action", "scope", "set by", "set at"], rows.map((a) => [a.action, a.scope, a.setBy, iso(a.setAt)])),
            `Any other action belongs to "${defaultScope}" (LEDGER_DEFAULT_SCOPE).`,
          ].join("\n"),
        );
      }),
    );

  ledger
    .command("void")
    .description("void the current record (or claim) of an action and target: a new 'voided' event in the chain, by a human, with a reason; the key is open again")
    .argument("<action>", "ledger action")
    .argument("<target>", "ledger target")
    .requiredOption("--reason <text>", "why it is voided (kept in the ledger)")
    .requiredOption("--as <human>", "the human agent voiding it (agent-memory agent add NAME --kind human)")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output, actionName: string, target: string, opts: { reason: string; as: string }) => {
        const policy = loadConfig(out.io.env).ledger;
        const result = await withDatabase(out.io, async (db) => {
          const operator = await getAgent(db, opts.as);
          return voidLedger(db, { agentId: operator.id, name: operator.name }, { action: actionName, target, reason: opts.reason }, policy);
        });
        const voided = result.voided.record ?? result.voided.claim;
        const what = result.voided.record ? `the record by ${result.voided.record.actor} (ledger #${result.voided.record.seq})` : `the claim of ${result.voided.claim!.holder}`;
        out.result(
          {
            seq: result.seq,
            at: iso(result.at),
            action: voided.action,
            target: voided.target,
            voided: result.voided.record ? "record" : "claim",
            voidedActor: result.voided.record ? result.voided.record.actor : result.voided.claim!.holder,
            reason: result.reason,
          },
          () => `Voided ${what} of ${keyText(voided)} (ledger #${result.seq}). It can be claimed and recorded again.`,
        );
      }),
    );
}
