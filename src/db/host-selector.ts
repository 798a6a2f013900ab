// Which host of a multi-host DATABASE_URL to connect to: the first, in the
// URL's order, whose session has the asked-for attribute (libpq's rule for
// target_session_attrs). The answer is kept until a connection to that host
// breaks or the host refuses a write as read-only (a failover, a switchover);
// the next connection then looks again, so the service follows a promoted
// standby without a restart.
import pg from "pg";
import { describeHosts, type HostList, type PgHost, type SessionAttrs } from "./hosts.js";

interface SessionState {
  inRecovery: boolean;
  readOnly: boolean;
}

/**
 * After a search found no acceptable host, calls fail at once for this long
 * instead of each probing every host again: during a failover every call would
 * otherwise pay a connection attempt per host.
 */
const NO_HOST_MEMORY_MS = 250;

export interface ChosenHost extends PgHost {
  /** Increases each time the choice is dropped: connections from older choices are closed, not reused. */
  generation: number;
}

/** No host is acceptable right now (SQLSTATE 08001: the service answers "retry"). */
export class NoAcceptableHostError extends Error {
  readonly code = "08001";
}

export class HostSelector {
  private chosen: ChosenHost | undefined;
  private searching: Promise<ChosenHost> | undefined;
  private failedAt = 0;
  private failure: Error | undefined;
  private generationCounter = 0;

  constructor(
    private readonly list: HostList,
    private readonly connectTimeoutMs: number,
    private readonly setting: string,
  ) {}

  get hosts(): readonly PgHost[] {
    return this.list.hosts;
  }

  /** The connection string for one of the hosts. */
  urlFor(host: PgHost): string {
    return this.list.urlFor(host);
  }

  get generation(): number {
    return this.generationCounter;
  }

  /** The host to open connections to, found (and remembered) if none is known. */
  pick(): Promise<ChosenHost> {
    if (this.chosen) return Promise.resolve(this.chosen);
    if (this.failure && Date.now() - this.failedAt < NO_HOST_MEMORY_MS) return Promise.reject(this.failure);
    this.searching ??= this.search().finally(() => {
      this.searching = undefined;
    });
    return this.searching;
  }

  /** A connection to `host` broke or found it read-only: look again on the next connection. */
  forget(host: PgHost): void {
    if (this.chosen && this.chosen.host === host.host && this.chosen.port === host.port) {
      this.chosen = undefined;
      this.generationCounter++;
    }
  }

  private async search(): Promise<ChosenHost> {
    const attrs = this.list.sessionAttrs;
    const states: { host: PgHost; state?: SessionState; error?: unknown }[] = [];
    for (const host of this.list.hosts) {
      try {
        const state = await this.probe(host);
        states.push({ host, state });
        // prefer-standby looks at every host first; the others take the first that fits.
        if (attrs !== "prefer-standby" && accepts(attrs, state)) return this.choose(host);
      } catch (error) {
        states.push({ host, error });
      }
    }
    if (attrs === "prefer-standby") {
      const found = states.find((s) => s.state && accepts("standby", s.state)) ?? states.find((s) => s.state);
      if (found) return this.choose(found.host);
    }
    const seen = states.map(({ host, state, error }) => `${describeHosts([host])} ${state ? describeState(state) : `unreachable (${(error as Error).message})`}`).join("; ");
    this.failure = new NoAcceptableHostError(`No host in ${this.setting} accepts a target_session_attrs=${attrs} session right now: ${seen}.`);
    this.failedAt = Date.now();
    throw this.failure;
  }

  private choose(host: PgHost): ChosenHost {
    this.failure = undefined;
    this.chosen = { ...host, generation: this.generationCounter };
    return this.chosen;
  }

  private async probe(host: PgHost): Promise<SessionState> {
    const client = new pg.Client({ connectionString: this.list.urlFor(host), connectionTimeoutMillis: this.connectTimeoutMs, application_name: "agent-memory host check" });
    client.on("error", () => undefined);
    await client.connect();
    try {
      const { rows } = await client.query<{ in_recovery: boolean; read_only: boolean }>(
        "select pg_is_in_recovery() as in_recovery, current_setting('transaction_read_only') = 'on' as read_only",
      );
      return { inRecovery: rows[0]!.in_recovery, readOnly: rows[0]!.read_only };
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

function accepts(attrs: SessionAttrs, s: SessionState): boolean {
  switch (attrs) {
    case "any":
    case "prefer-standby":
      return true;
    case "read-write":
      return !s.inRecovery && !s.readOnly;
    case "read-only":
      return s.inRecovery || s.readOnly;
    case "primary":
      return !s.inRecovery;
    case "standby":
      return s.inRecovery;
  }
}

function describeState(s: SessionState): string {
  return s.inRecovery ? "is a standby (in recovery)" : s.readOnly ? "is read-only (default_transaction_read_only)" : "is a writable primary";
}
