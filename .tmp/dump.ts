import * as z from "zod/v4";
import { facts } from "../src/facts/index.js";
import { advertisedInputSchema } from "../src/mcp/arguments.js";
for (const t of facts.tools) console.log(t.name, JSON.stringify({description: t.description, inputSchema: z.toJSONSchema(advertisedInputSchema(t.inputSchema))}));
