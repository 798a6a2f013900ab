// Which tokens authenticated successfully from which address in the last minute.
// The failed-attempt limit uses it so that one misconfigured agent behind a NAT
// or proxy cannot lock out its neighbours: tokens already working from that
// address keep working, while new guesses from it wait out the window.
import { createHash } from "node:crypto";

const key = (address: string, token: string) => `${address}|${createHash("sha256").update(token).digest("base64url")}`;

export class RecentLogins {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs = 60_000,
    /** Bounds memory whatever the traffic; the oldest entries go first. */
    private readonly maxEntries = 10_000,
  ) {}

  remember(address: string, token: string, now = Date.now()): void {
    const k = key(address, token);
    this.seen.delete(k);
    this.seen.set(k, now + this.ttlMs);
    if (this.seen.size > this.maxEntries) this.seen.delete(this.seen.keys().next().value!);
  }

  has(address: string, token: string, now = Date.now()): boolean {
    const k = key(address, token);
    const until = this.seen.get(k);
    if (until === undefined) return false;
    if (until > now) return true;
    this.seen.delete(k);
    return false;
  }
}

/** The bearer token of a request, if it has one. */
export function bearerToken(header: string | undefined): string | undefined {
  const [scheme, token] = (header ?? "").split(" ");
  return scheme?.toLowerCase() === "bearer" && token ? token : undefined;
}
