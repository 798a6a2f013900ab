// The handoff ledger's defaults.
import * as z from "zod/v4";
import { SCOPE_PATTERN } from "../scope-name.js";
import { intFrom } from "./parse.js";

export const ledgerEnv = z.object({
  LEDGER_DEFAULT_SCOPE: z
    .string()
    .trim()
    .optional()
    .default("shared")
    .refine((v) => SCOPE_PATTERN.test(v), { message: "LEDGER_DEFAULT_SCOPE must be a scope name (lowercase letters, digits, _ or -), e.g. shared" }),
  LEDGER_MAX_OPEN_CLAIMS_PER_AGENT: intFrom("LEDGER_MAX_OPEN_CLAIMS_PER_AGENT", 100, 1, 1_000_000),
});

export interface LedgerConfig {
  ledger: {
    /** The scope of actions with no explicit mapping (ledger_actions). */
    defaultScope: string;
    /** Open (unexpired) claims one agent may hold at a time. */
    maxOpenClaimsPerAgent: number;
  };
}

export function ledgerConfig(e: z.output<typeof ledgerEnv>): LedgerConfig {
  return { ledger: { defaultScope: e.LEDGER_DEFAULT_SCOPE, maxOpenClaimsPerAgent: e.LEDGER_MAX_OPEN_CLAIMS_PER_AGENT } };
}
