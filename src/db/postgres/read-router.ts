// Reads that may be a moment old go to streaming replicas (DATABASE_READ_URL),
// the way GitLab's database load balancer does it ("sticking"): the primary's
// WAL position at the end of an agent's last write is remembered
// (agent_write_positions, returned by the token check every call makes), and a
// replica serves that agent only once it has replayed that position
// (pg_last_wal_replay_lsn()). Everything else goes to the primary.
//
// The decision per call is a comparison of numbers in memory: a background
// check reads each replica's replay position and the primary's WAL position a
// few times a second. From those it knows each replica's lag in time (how long
// ago the primary was last at a position the replica has replayed), and a
// replica further behind than DATABASE_READ_MAX_LAG_MS, or down, is not used;
// a down one is checked again later, by the background check, never by a call.
// A replica whose check does not answer within POSITION_SILENCE_MS serves no
// new reads while it is silent (a frozen host answers nothing, it refuses
// nothing), and one that has been promoted (a failover made it a primary) is
// no replica: its state says "primary" and it serves no reads.
import type { Database } from "../core/database.js";
import { isConnectionError, pgCode, PgCode } from "../core/errors.js";

/**
 * How often the replicas' and the primary's positions are read. A writer's
 * next read goes to the primary until the check has seen its write replayed:
 * this is the longest a write keeps its writer on the primary beyond the lag.
 */
const POSITION_CHECK_MS = 200;
/** A replica found down is checked again after this long (its connection attempts cost nothing to calls meanwhile). */
const DOWN_RECHECK_MS = 2000;
/** A position check unanswered this long: the replica gets no new reads until it answers (or is marked down at its deadline). */
const POSITION_SILENCE_MS = 1000;

export const REPLICA_STATES = ["up", "lagging", "down", "primary"] as const;
export type ReplicaState = (typeof REPLICA_STATES)[number];

export interface ReplicaStatus {
  name: string;
  state: ReplicaState;
  /** Seconds behind the primary (0 when caught up); undefined before the first check or when down. */
  lagSeconds: number | undefined;
}

interface Replica {
  name: string;
  db: Database;
  replayed: number | undefined;
  lagMs: number | undefined;
  down: boolean;
  /** Not in recovery: a standby that was promoted. */
  promoted: boolean;
  checkAfter: number;
  /** The position check under way, if one is, and when it began. */
  checking: Promise<void> | undefined;
  checkStarted: number;
}

export interface ReadChoice {
  db: Database;
  target: "replica" | "primary";
  /** Tells the router that a read on the replica failed in a way that says it is gone (then the read runs on the primary). */
  failed?(error: unknown): boolean;
}

/** "16/B374D848" → a number that orders as the position does (exact below 2^53, i.e. 8 PB of WAL). */
export function lsnNumber(lsn: string): number {
  const slash = lsn.indexOf("/");
  return parseInt(lsn.slice(0, slash), 16) * 2 ** 32 + parseInt(lsn.slice(slash + 1), 16);
}

export class ReadRouter {
  private readonly replicas: Replica[];
  /** The primary's WAL positions over the last moments, oldest first: what replica lag is measured against. */
  private samples: { at: number; lsn: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private next = 0;
  /** The write positions this process recorded, by agent (one number per agent that wrote). */
  private readonly ownMarks = new Map<number, number>();

  constructor(
    private readonly primary: Database,
    replicas: { name: string; db: Database }[],
    private readonly maxLagMs: number,
    private readonly onStateChange?: (replica: string, state: ReplicaState, error?: unknown) => void,
  ) {
    this.replicas = replicas.map((r) => ({ ...r, replayed: undefined, lagMs: undefined, down: false, promoted: false, checkAfter: 0, checking: undefined, checkStarted: 0 }));
  }

  /** Starts the background position checks; resolves after the first. */
  async start(): Promise<void> {
    await this.checkPositions();
    this.timer = setInterval(() => void this.checkPositions(), POSITION_CHECK_MS);
    this.timer.unref();
  }

  /** Where a read for `agent` goes: a replica that has replayed its last write (`lastWriteLsn`, from the token check), or the primary. */
  choose(agent: { agentId: number; lastWriteLsn?: string | undefined }): ReadChoice {
    const needed = Math.max(agent.lastWriteLsn ? lsnNumber(agent.lastWriteLsn) : 0, this.ownMarks.get(agent.agentId) ?? 0);
    const n = this.replicas.length;
    const now = Date.now();
    for (let i = 0; i < n; i++) {
      const replica = this.replicas[(this.next + i) % n]!;
      if (replica.down || replica.promoted || replica.replayed === undefined || replica.lagMs === undefined) continue;
      if (replica.checking && now - replica.checkStarted > POSITION_SILENCE_MS) continue;
      if (replica.lagMs > this.maxLagMs || replica.replayed < needed) continue;
      this.next = (this.next + i + 1) % n;
      return { db: replica.db, target: "replica", failed: (error) => this.readFailed(replica, error) };
    }
    return { db: this.primary, target: "primary" };
  }

  /**
   * Remembers the primary's WAL position now as the end of the agent's last
   * write. Without waiting for a flush (synchronous_commit off): a mark lost to
   * a crash costs at most one stale read, and a write call must not pay a
   * second commit's flush for it. One round trip; agentId is an integer from the token check.
   */
  async noteWrite(agentId: number): Promise<void> {
    // set_config(…, true) lasts until the statement's own transaction commits, which it governs.
    const { rows } = await this.primary.query<{ lsn: string }>(
      `with relaxed as (select set_config('synchronous_commit', 'off', true))
       insert into agent_write_positions (agent_id, lsn) select $1::bigint, pg_current_wal_insert_lsn() from relaxed
         on conflict (agent_id) do update set lsn = excluded.lsn, written_at = now()
       returning lsn::text as lsn`,
      [agentId],
      { prepareAs: "am_note_write_position" },
    );
    // Also kept here: a call of the same agent that shares a token check begun before this
    // write (verifier.ts, sharedTokenChecks) still waits for it on this process.
    const lsn = lsnNumber(rows[0]!.lsn);
    if (lsn > (this.ownMarks.get(agentId) ?? 0)) this.ownMarks.set(agentId, lsn);
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((r) => ({
      name: r.name,
      state: r.down ? "down" : r.promoted ? "primary" : r.lagMs === undefined || r.lagMs > this.maxLagMs ? "lagging" : "up",
      lagSeconds: r.down || r.promoted || r.lagMs === undefined ? undefined : r.lagMs / 1000,
    }));
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
    await Promise.all(this.replicas.map((r) => r.checking));
    await Promise.all(this.replicas.map((r) => r.db.close().catch(() => undefined)));
  }

  /**
   * A read on `replica` failed. The replica is marked down when the failure says
   * it is unreachable, and a query cancelled by a conflict with recovery (the
   * replica replaying a change the read's snapshot still needed) is retried too:
   * both are answered by running the read on the primary. True when it should be.
   */
  private readFailed(replica: Replica, error: unknown): boolean {
    if (isConnectionError(error)) {
      this.markDown(replica, error);
      return true;
    }
    return pgCode(error) === PgCode.SERIALIZATION_FAILURE;
  }

  private markDown(replica: Replica, error: unknown): void {
    if (!replica.down) this.onStateChange?.(replica.name, "down", error);
    replica.down = true;
    replica.replayed = undefined;
    replica.lagMs = undefined;
    replica.checkAfter = Date.now() + DOWN_RECHECK_MS;
  }

  private checkPositions(): Promise<void> {
    this.checking ??= this.readPositions().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async readPositions(): Promise<void> {
    const now = Date.now();
    try {
      const { rows } = await this.primary.query<{ lsn: string }>("select pg_current_wal_lsn()::text as lsn", [], { prepareAs: "am_primary_wal_lsn" });
      this.samples.push({ at: now, lsn: lsnNumber(rows[0]!.lsn) });
    } catch {
      // The primary is away: replicas are judged on the positions already seen.
    }
    // Positions older than the bound (bar the newest of them) no longer change a verdict.
    const horizon = now - this.maxLagMs * 2;
    while (this.samples.length > 1 && this.samples[1]!.at < horizon) this.samples.shift();
    // A replica that is down is checked again without holding up the others: its
    // connection attempt may take DB_CONNECT_TIMEOUT_MS.
    const checks = this.replicas.map((replica) => {
      if (replica.checking || (replica.down && Date.now() < replica.checkAfter)) return undefined;
      replica.checkStarted = Date.now();
      replica.checking = this.readReplayPosition(replica).finally(() => {
        replica.checking = undefined;
      });
      return replica.down ? undefined : replica.checking;
    });
    await Promise.all(checks);
  }

  private async readReplayPosition(replica: Replica): Promise<void> {
    try {
      const { rows } = await replica.db.query<{ lsn: string | null; in_recovery: boolean }>(
        "select pg_last_wal_replay_lsn()::text as lsn, pg_is_in_recovery() as in_recovery",
        [],
        { prepareAs: "am_replica_replay_lsn" },
      );
      const wasDown = replica.down;
      replica.down = false;
      // A promoted standby keeps its last replay position: it would look ever further behind.
      const promoted = !rows[0]!.in_recovery;
      if (promoted !== replica.promoted) {
        replica.promoted = promoted;
        this.onStateChange?.(replica.name, promoted ? "primary" : "up");
      }
      if (promoted || rows[0]!.lsn === null) {
        replica.replayed = undefined;
        replica.lagMs = undefined;
        return;
      }
      replica.replayed = lsnNumber(rows[0]!.lsn);
      replica.lagMs = this.lagOf(replica.replayed, Date.now());
      if (wasDown) this.onStateChange?.(replica.name, "up");
    } catch (error) {
      this.markDown(replica, error);
    }
  }

  /**
   * How far behind a replica that replayed up to `replayed` is: the time since
   * the newest check that found the primary at a position the replica has
   * reached (everything committed before that check is on the replica; a
   * bound from above). Caught up with the newest check: 0. Behind every check
   * remembered: at least as old as the oldest.
   */
  private lagOf(replayed: number, now: number): number {
    const newest = this.samples.at(-1);
    if (!newest || replayed >= newest.lsn) return 0;
    for (let i = this.samples.length - 2; i >= 0; i--) {
      if (this.samples[i]!.lsn <= replayed) return now - this.samples[i]!.at;
    }
    return now - this.samples[0]!.at;
  }
}
