// The last visible step of a start: where the service is, said once in the log
// (for machines) and once in the banner (for a person), and the console's
// address left in the embedded data folder for a second process it refuses.
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { Config } from "../config/index.js";
import { describeDatabase } from "../db/core/open.js";
import { announceConsole } from "../db/embedded/data-dir-holder.js";
import { type EmbeddedLeftover, leftoverStartNote } from "../db/embedded/leftover.js";
import { oauthMcpUrl as oauthMcpUrlOf } from "../oauth/routes.js";
import type { FirstStart } from "../auth/first-start.js";
import { banner, oauthBanner, startupDescription } from "./banner.js";
import type { Teardown } from "./teardown.js";

export interface Addresses {
  url: string;
  mcpUrl: string;
  /** The connector URL for OAuth clients (claude.ai, ChatGPT…), when OAUTH_MODE is set. */
  oauthMcpUrl: string | undefined;
}

/** PUBLIC_URL, else the address listened on (a wildcard address as localhost). */
export function addressesOf(config: Config, address: AddressInfo): Addresses {
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = config.publicUrl ?? `http://${hostForUrl === "0.0.0.0" || hostForUrl === "[::]" ? "localhost" : hostForUrl}:${address.port}`;
  return { url, mcpUrl: `${url}/mcp`, oauthMcpUrl: oauthMcpUrlOf(config) };
}

interface Announcement {
  addresses: Addresses;
  first: FirstStart;
  /** An embedded database beside a service on Postgres, moved or not. */
  leftover: EmbeddedLeftover | undefined;
  /** No human agent and no owner created: nobody can sign in to the console. */
  nobodySignsIn: boolean;
  /** The service holds the embedded data folder (it serves the CLI socket). */
  holdsDataDir: boolean;
  interactive: boolean;
  print: (text: string) => void;
}

export async function announce(config: Config, logger: Logger, teardown: Teardown, a: Announcement): Promise<void> {
  const { url, mcpUrl, oauthMcpUrl } = a.addresses;
  logger.info({ url: mcpUrl, ...startupDescription(config) }, "agent-memory listening");
  if (a.holdsDataDir) {
    // A second process refused the embedded database names this console, not the one its own settings give.
    const unannounce = await announceConsole(config.dataDir, `${url}/console`);
    teardown.push("the console's address in the data folder", unannounce);
  }
  const { leftover } = a;
  const leftoverNote = leftover && leftoverStartNote(leftover, describeDatabase(config));
  if (leftoverNote) logger[leftoverNote.level](leftoverNote.fields, leftoverNote.message);
  a.print(
    banner(mcpUrl, config, a.first.token, a.interactive ? "shown" : a.first.tokenFile, { leftover, nobodySignsIn: a.nobodySignsIn }) +
      (oauthMcpUrl ? oauthBanner(oauthMcpUrl) : ""),
  );
}
