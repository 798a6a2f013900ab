// Everything a start opens is pushed here the moment it is open, and closed by
// one path in reverse order: a start that fails halfway and stop() alike, so
// nothing is closed before what still uses it (HTTP before the receipts it
// records, the receipts before the database they are written to).
import type { Logger } from "pino";

export class Teardown {
  readonly #closes: Array<{ what: string; close: () => unknown }> = [];

  constructor(private readonly logger: Logger) {}

  /** `close` runs before everything pushed earlier and after everything pushed later. */
  push(what: string, close: () => unknown): void {
    this.#closes.push({ what, close });
  }

  /** Closes everything pushed, newest first; a failure is logged and the rest still close. */
  async close(): Promise<void> {
    for (let next = this.#closes.pop(); next; next = this.#closes.pop()) {
      try {
        await next.close();
      } catch (error) {
        this.logger.warn({ err: error, closing: next.what }, `closing ${next.what} failed; the rest still close`);
      }
    }
  }
}
