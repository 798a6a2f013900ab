// The web console.
import * as z from "zod/v4";
import { intFrom } from "./parse.js";

export const consoleEnv = z.object({
  CONSOLE_SESSION_MINUTES: intFrom("CONSOLE_SESSION_MINUTES", 720, 1, 43_200),
});

export interface ConsoleConfig {
  /** How long a web console sign-in lasts before the person signs in again. */
  consoleSessionMinutes: number;
}

export function consoleConfig(e: z.output<typeof consoleEnv>): ConsoleConfig {
  return { consoleSessionMinutes: e.CONSOLE_SESSION_MINUTES };
}
