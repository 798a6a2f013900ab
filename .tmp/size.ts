import * as z from "zod/v4";
import { capabilities } from "../src/server/capabilities.js";
import { advertisedInputSchema } from "../src/mcp/arguments.js";
let total = 0; const tools = capabilities.flatMap((c) => c.tools);
for (const t of tools) { const s = JSON.stringify({ name: t.name, description: t.description, inputSchema: z.toJSONSchema(advertisedInputSchema(t.inputSchema)) }); total += Buffer.byteLength(s); }
console.log(total + tools.length + 1);
