// The ledger's statements run prepared under am_ledger_* names (src/db/sql/prepared.ts).
import { preparedIn } from "../db/sql/prepared.js";

export const prepared = preparedIn("ledger");
