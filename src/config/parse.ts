// How an environment variable's text becomes a value: the three shapes every
// config part uses, each failing with a message that names the variable.
import * as z from "zod/v4";

/** A whole number from min to max; empty or unset means `def`. */
export const intFrom = (name: string, def: number, min: number, max: number) =>
  z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return def;
      const n = Number(raw);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: "custom", message: `${name} must be a whole number from ${min} to ${max}, got "${raw}"` });
        return z.NEVER;
      }
      return n;
    });

/** A whole number from min to max; empty or unset means undefined (a default decided elsewhere). */
export const optionalIntFrom = (name: string, min: number, max: number) =>
  z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return undefined;
      const n = Number(raw);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: "custom", message: `${name} must be a whole number from ${min} to ${max}, or empty for the default, got "${raw}"` });
        return z.NEVER;
      }
      return n;
    });

/** A comma-separated list, blanks dropped; unset means empty. */
export const listFrom = () =>
  z
    .string()
    .optional()
    .transform((raw) =>
      (raw ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s.length > 0),
    );

/** true/false (also 1/0, yes/no, on/off); empty or unset means `def`. */
export const boolFrom = (name: string, def: boolean) =>
  z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return def;
      if (/^(1|true|yes|on)$/i.test(raw)) return true;
      if (/^(0|false|no|off)$/i.test(raw)) return false;
      ctx.addIssue({ code: "custom", message: `${name} must be true or false, got "${raw}"` });
      return z.NEVER;
    });
