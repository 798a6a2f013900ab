// Structured JSON logs. Secrets never reach a log line: request serializers keep
// only method, url and address (no headers), and the redaction list covers the
// places a token could otherwise travel.
import pino, { type Logger } from "pino";

export const REDACT_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  "headers.authorization",
  "authorization",
  "token",
  "*.token",
  "authInfo",
  "*.authInfo",
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const logger = pino(
    {
      level,
      base: { service: "agent-memory" },
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
  // stdout on a terminal that was closed: every write fails with EIO. Unhandled, that
  // 'error' is an uncaught exception, and on the way out pino's exit hook retries the
  // line forever (sonic-boom's flushSync sleeps 100 ms and retries, whatever the error),
  // so the process hangs holding the embedded database. Nobody can read these lines
  // any more: drop them, as pino does itself on EPIPE.
  if (!destination) {
    destinationOf(logger).on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EIO") muteLogger(logger);
      else if (error.code !== "EPIPE") throw error; // as without this listener
    });
  }
  return logger;
}

/** Drops every later line and any line still pending, without writing anything (pino's own answer to EPIPE). */
export function muteLogger(logger: Logger): void {
  logger.level = "silent"; // child loggers keep their level: the destination drops their lines
  const stream = destinationOf(logger);
  for (const method of ["write", "end", "flushSync", "destroy"]) if (typeof stream[method] === "function") stream[method] = () => true;
  stream.on("error", () => {}); // a write already in flight still fails
}

function destinationOf(logger: Logger): Record<string, unknown> & NodeJS.EventEmitter {
  return (logger as unknown as Record<symbol, Record<string, unknown> & NodeJS.EventEmitter>)[pino.symbols.streamSym]!;
}
