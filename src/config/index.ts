// The one place that reads the environment. Everything else receives a Config.
// Parsing fails fast with a message naming each bad variable, so a typo in a
// deployment shows up at start-up rather than as odd behaviour later.
//
// Each area declares its variables, its slice of Config and the mapping between
// them in src/config/ (core, http, content, ledger, console, oauth, tracing, embeddings); this file
// puts them together. Adding a variable: its area's file, .env.example and
// docs/configuration.md (test/config/config-docs.test.ts checks all three).
import * as z from "zod/v4";
import { type ConsoleConfig, consoleConfig, consoleEnv } from "./console.js";
import { type ContentConfig, contentConfig, contentEnv } from "./content.js";
import { checkReadReplicas, type CoreConfig, coreConfig, coreEnv } from "./core.js";
import { checkEmbeddings, type EmbeddingsConfig, embeddingsConfig, embeddingsEnv } from "./embeddings.js";
import { type HttpConfig, httpConfig, httpEnv } from "./http.js";
import { type LedgerConfig, ledgerConfig, ledgerEnv } from "./ledger.js";
import { checkOAuth, type OAuthConfig, oauthConfig, oauthEnv } from "./oauth.js";
import { type TracingConfig, tracingConfig, tracingEnv } from "./tracing.js";

export type { OAuthConfig } from "./oauth.js";

const EnvSchema = z
  .object({
    ...coreEnv.shape,
    ...httpEnv.shape,
    ...contentEnv.shape,
    ...ledgerEnv.shape,
    ...consoleEnv.shape,
    ...oauthEnv.shape,
    ...tracingEnv.shape,
    ...embeddingsEnv.shape,
  })
  .superRefine(checkOAuth)
  .superRefine(checkReadReplicas)
  .superRefine(checkEmbeddings);

/**
 * Every variable loadConfig reads, with the value it takes when the variable is
 * unset, written as .env.example writes it ("" for none, lists comma-separated).
 * test/config/config-docs.test.ts keeps .env.example and
 * docs/configuration.md in step with it.
 */
export function envDefaults(): Record<string, string> {
  const parsed: Record<string, unknown> = EnvSchema.parse({});
  return Object.fromEntries(
    Object.keys(EnvSchema.shape).map((key) => {
      const value = parsed[key];
      return [key, value === undefined ? "" : Array.isArray(value) ? value.join(",") : String(value)];
    }),
  );
}

export interface Config extends CoreConfig, HttpConfig, ContentConfig, LedgerConfig, ConsoleConfig, TracingConfig, EmbeddingsConfig {
  oauth: OAuthConfig;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const key = issue.path.join(".");
      return issue.code === "custom" || issue.message.includes(key) ? `- ${issue.message}` : `- ${key}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}\nSee .env.example for every setting and its default.`);
  }
  const e = parsed.data;
  return { ...coreConfig(e), ...httpConfig(e), ...contentConfig(e), ...ledgerConfig(e), ...consoleConfig(e), ...oauthConfig(e), ...tracingConfig(e), ...embeddingsConfig(e) };
}
