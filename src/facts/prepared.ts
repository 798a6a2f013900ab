// Facts' statements run prepared under am_facts_* names (src/db/sql/prepared.ts).
import { preparedIn } from "../db/sql/prepared.js";

export const prepared = preparedIn("facts");
