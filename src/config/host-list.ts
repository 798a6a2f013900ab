// libpq's multi-host connection string (postgres://u@h1:5432,h2:5433/db?target_session_attrs=read-write),
// which Patroni, pg_auto_failover and the managed services document for clients.
// node-postgres takes one host only (brianc/node-postgres#1470), so the string is
// split here into one single-host URL per host, and the session attribute the
// caller asks for is checked by the host selector (host-selector.ts).

export interface PgHost {
  host: string;
  port: number;
}

/** libpq's target_session_attrs values. */
export const SESSION_ATTRS = ["any", "read-write", "read-only", "primary", "standby", "prefer-standby"] as const;
export type SessionAttrs = (typeof SESSION_ATTRS)[number];

export interface HostList {
  hosts: PgHost[];
  sessionAttrs: SessionAttrs;
  /** The connection string for one of the hosts: the same user, password, database and parameters. */
  urlFor(host: PgHost): string;
}

const DEFAULT_PORT = 5432;
const URL_PARTS = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(.*)$/s;

export class HostListError extends Error {}

/**
 * The hosts and target_session_attrs of `url`, or undefined when it names one
 * host and asks for no session attribute: that string goes to the driver as it
 * is (sockets, `?host=`, everything node-postgres reads itself). Throws
 * HostListError, whose message says what to fix (`setting` names the variable).
 */
export function parseHostList(url: string, setting: string): HostList | undefined {
  const parts = URL_PARTS.exec(url.trim());
  if (!parts) throw new HostListError(`${setting} must start with postgres:// or postgresql://`);
  const [, scheme, userinfo, authority, rest] = parts as unknown as [string, string, string | undefined, string, string];
  const [path, query = ""] = splitOnce(rest, "?");
  const params = new URLSearchParams(query);
  const attrs = params.get("target_session_attrs") ?? "any";
  if (!(SESSION_ATTRS as readonly string[]).includes(attrs)) {
    throw new HostListError(`${setting} has target_session_attrs=${attrs}; use one of ${SESSION_ATTRS.join(", ")}.`);
  }
  if (!authority.includes(",") && attrs === "any") return undefined;
  const hosts = authority.split(",").map((entry) => hostOf(entry, setting));
  params.delete("target_session_attrs");
  const tail = `${path}${params.size > 0 ? `?${params.toString()}` : ""}`;
  const prefix = `${scheme}${userinfo !== undefined ? `${userinfo}@` : ""}`;
  const urlFor = (h: PgHost) => `${prefix}${h.host.includes(":") ? `[${h.host}]` : h.host}:${h.port}${tail}`;
  for (const h of hosts) {
    try {
      new URL(urlFor(h));
    } catch {
      throw new HostListError(`${setting} is not a valid connection URL at host ${h.host}:${h.port}: check the user, password and database parts (percent-encode special characters).`);
    }
  }
  return { hosts, sessionAttrs: attrs as SessionAttrs, urlFor };
}

function hostOf(entry: string, setting: string): PgHost {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(entry.trim());
  const port = match?.[3] === undefined ? DEFAULT_PORT : Number(match[3]);
  if (!match || port < 1 || port > 65535) {
    throw new HostListError(`${setting} has an invalid host "${entry}" in its host list: write host:port pairs separated by commas (postgres://user@host1:5432,host2:5432/db).`);
  }
  return { host: match[1] ?? match[2]!, port };
}

function splitOnce(s: string, separator: string): [string, string?] {
  const at = s.indexOf(separator);
  return at < 0 ? [s] : [s.slice(0, at), s.slice(at + 1)];
}

/** "h1:5432,h2:5433", for messages and the start-up banner. */
export function describeHosts(hosts: readonly PgHost[]): string {
  return hosts.map((h) => `${h.host.includes(":") ? `[${h.host}]` : h.host}:${h.port}`).join(",");
}
