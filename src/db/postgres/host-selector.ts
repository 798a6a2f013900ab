// Which host of a multi-host DATABASE_URL to connect to: one whose session has
// the asked-for attribute (libpq's rule for target_session_attrs). The answer is
// kept until a connection to that host breaks or misses its deadline, the host
// refuses a write as read-only (a failover, a switchover), or the heartbeat finds
// it silent; the next connection then looks again, so the service follows a
// promoted standby without a restart, also when the old primary hangs instead
// of refusing.
//
// Never the stale primary: after a failover the old primary may come back and
// accept writes too (a restart after a crash, as operators and scripts do). The
// promoted standby runs on a newer timeline than its old primary, so of several
// writable hosts the one on the newest timeline is chosen, and the others are
// reported as stale (survey(): /readyz, the log, /metrics). A service already on
// the new primary stays there; one started afterwards never chooses the old one.
import pg from "pg";
import { deadlineFor } from "./deadline.js";
import { describeHosts, type HostList, type PgHost, type SessionAttrs } from "../../config/host-list.js";

interface SessionState {
  inRecovery: boolean;
  readOnly: boolean;
  /** The timeline the host's WAL is on (1, then one more at each promotion); undefined on a standby. */
  timeline: number | undefined;
}

/**
 * After a search found no acceptable host, calls fail at once for this long
 * instead of each probing every host again: during a failover every call would
 * otherwise pay a connection attempt per host.
 */
const NO_HOST_MEMORY_MS = 250;
/** How often the chosen host is asked whether it still answers (a frozen host refuses nothing: only silence tells). */
const HEARTBEAT_MS = 1_000;
/** A survey (every host probed, for /readyz and /metrics) is reused for this long. */
const SURVEY_REUSE_MS = 5_000;

export interface ChosenHost extends PgHost {
  /** Increases each time the choice is dropped: connections from older choices are closed, not reused. */
  generation: number;
}

/** What each listed host was found to be, and the writable ones on an older timeline than the chosen one. */
export interface HostSurvey {
  at: Date;
  hosts: Array<{ host: string; state: string }>;
  /** Writable hosts behind the newest timeline: an old primary back after a failover. Never used. */
  stale: string[];
}

/** No host is acceptable right now (SQLSTATE 08001: the service answers "retry"). */
export class NoAcceptableHostError extends Error {
  readonly code = "08001";
}

type Probe = { host: PgHost; state?: SessionState; error?: unknown };

export class HostSelector {
  private chosen: ChosenHost | undefined;
  private searching: Promise<ChosenHost> | undefined;
  private failedAt = 0;
  private failure: Error | undefined;
  private generationCounter = 0;
  private heartbeat: NodeJS.Timeout | undefined;
  private beating = false;
  /** The heartbeat's own connection, to the chosen host of `generation`. */
  private pulse: { client: pg.Client; generation: number } | undefined;
  private lastSurvey: { at: number; survey: Promise<HostSurvey> } | undefined;

  constructor(
    private readonly list: HostList,
    private readonly connectTimeoutMs: number,
    private readonly setting: string,
    /** Told when a search finds a stale writable host (once per search). */
    private readonly onStale?: (survey: HostSurvey) => void,
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

  /** A connection to `host` broke, missed its deadline or found it read-only: look again on the next connection. */
  forget(host: PgHost): void {
    if (this.chosen && this.chosen.host === host.host && this.chosen.port === host.port) {
      this.chosen = undefined;
      this.generationCounter++;
    }
  }

  /** Every host probed now (or within SURVEY_REUSE_MS): their states, and the stale writable ones. */
  survey(): Promise<HostSurvey> {
    if (this.lastSurvey && Date.now() - this.lastSurvey.at < SURVEY_REUSE_MS) return this.lastSurvey.survey;
    const survey = this.probeAll().then((probes) => surveyOf(probes));
    this.lastSurvey = { at: Date.now(), survey };
    return survey;
  }

  /** Stops the heartbeat (the pool is closing). */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    await this.endPulse();
  }

  private async search(): Promise<ChosenHost> {
    const attrs = this.list.sessionAttrs;
    const probes = await this.probeAll();
    const survey = surveyOf(probes);
    this.lastSurvey = { at: Date.now(), survey: Promise.resolve(survey) };
    if (survey.stale.length > 0) this.onStale?.(survey);
    const found = pickFrom(attrs, probes);
    if (found) return this.choose(found);
    const seen = probes.map(({ host, state, error }) => `${describeHosts([host])} ${state ? describeState(state) : `unreachable (${(error as Error).message})`}`).join("; ");
    this.failure = new NoAcceptableHostError(`No host in ${this.setting} accepts a target_session_attrs=${attrs} session right now: ${seen}.`);
    this.failedAt = Date.now();
    throw this.failure;
  }

  /** Every host at once: a search takes as long as the slowest answer, at most the connect timeout and a query's deadline. */
  private probeAll(): Promise<Probe[]> {
    return Promise.all(
      this.list.hosts.map((host) =>
        this.probe(host).then(
          (state) => ({ host, state }),
          (error: unknown) => ({ host, error }),
        ),
      ),
    );
  }

  private choose(host: PgHost): ChosenHost {
    this.failure = undefined;
    this.chosen = { ...host, generation: this.generationCounter };
    this.heartbeat ??= setInterval(() => void this.beat(), HEARTBEAT_MS).unref();
    return this.chosen;
  }

  /**
   * Asks the chosen host for a sign of life on a connection of its own, kept
   * open: silence past the connect timeout's deadline (a frozen host), a lost
   * connection, or a host no longer writable is a broken choice.
   */
  private async beat(): Promise<void> {
    const host = this.chosen;
    if (!host || this.beating) return;
    this.beating = true;
    try {
      if (this.pulse?.generation !== host.generation) {
        await this.endPulse();
        this.pulse = { client: await this.connectTo(host), generation: host.generation };
      }
      const state = await this.stateOf(this.pulse.client);
      if (!accepts(this.list.sessionAttrs, state)) throw new Error("no longer acceptable");
    } catch {
      await this.endPulse();
      this.forget(host);
    } finally {
      this.beating = false;
    }
  }

  private async endPulse(): Promise<void> {
    const pulse = this.pulse;
    this.pulse = undefined;
    await pulse?.client.end().catch(() => undefined);
  }

  private async connectTo(host: PgHost): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.list.urlFor(host),
      connectionTimeoutMillis: this.connectTimeoutMs,
      query_timeout: deadlineFor(this.connectTimeoutMs),
      keepAlive: true,
      application_name: "agent-memory host check",
    });
    client.on("error", () => undefined);
    await client.connect();
    return client;
  }

  private async probe(host: PgHost): Promise<SessionState> {
    const client = await this.connectTo(host);
    try {
      return await this.stateOf(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private async stateOf(client: pg.Client): Promise<SessionState> {
    // The timeline is the first 8 hex digits of a WAL file's name (pg_walfile_name works on a primary only).
    const { rows } = await client.query<{ in_recovery: boolean; read_only: boolean; timeline: string | null }>(
      `select pg_is_in_recovery() as in_recovery, current_setting('transaction_read_only') = 'on' as read_only,
              case when not pg_is_in_recovery() then substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8) end as timeline`,
    );
    const r = rows[0]!;
    return { inRecovery: r.in_recovery, readOnly: r.read_only, timeline: r.timeline === null ? undefined : parseInt(r.timeline, 16) };
  }
}

/** The host to choose: for sessions that write, the acceptable host on the newest timeline (the first of them in the list); else the first acceptable, as libpq does. */
function pickFrom(attrs: SessionAttrs, probes: Probe[]): PgHost | undefined {
  if (attrs === "prefer-standby") return (probes.find((p) => p.state && accepts("standby", p.state)) ?? probes.find((p) => p.state))?.host;
  const acceptable = probes.filter((p) => p.state && accepts(attrs, p.state));
  if (attrs !== "read-write" && attrs !== "primary") return acceptable[0]?.host;
  const newest = Math.max(...acceptable.map((p) => p.state!.timeline ?? 0));
  return acceptable.find((p) => (p.state!.timeline ?? 0) === newest)?.host;
}

function surveyOf(probes: Probe[]): HostSurvey {
  const writable = probes.filter((p) => p.state && accepts("read-write", p.state));
  const newest = Math.max(0, ...writable.map((p) => p.state!.timeline ?? 0));
  return {
    at: new Date(),
    hosts: probes.map((p) => ({ host: describeHosts([p.host]), state: p.state ? describeState(p.state) : `unreachable (${(p.error as Error).message})` })),
    stale: writable.filter((p) => (p.state!.timeline ?? 0) < newest).map((p) => describeHosts([p.host])),
  };
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
  const timeline = s.timeline !== undefined ? ` on timeline ${s.timeline}` : "";
  return s.inRecovery ? "is a standby (in recovery)" : s.readOnly ? `is read-only (default_transaction_read_only)${timeline}` : `is a writable primary${timeline}`;
}
