// Structured logs: one JSON object per line for machines (containers, files, log
// shippers), or, for a person at a terminal, short readable lines made from the
// same objects by pino-pretty. Secrets never reach a log line: request
// serializers keep only method, url and address (no headers), and the redaction
// list covers the places a token could otherwise travel.
import pino, { type Logger } from "pino";
import type { PrettyOptions } from "pino-pretty";

type LogFormat = "auto" | "json" | "pretty";

const REDACT_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  "headers.authorization",
  "authorization",
  "token",
  "*.token",
  "authInfo",
  "*.authInfo",
];

/** Readable lines when asked for, or (auto) when stdout is a terminal. */
function wantsReadableLogs(format: LogFormat, stdoutIsTerminal = process.stdout.isTTY === true): boolean {
  return format === "pretty" || (format === "auto" && stdoutIsTerminal);
}

/** The service's logger in the configured format; pino-pretty is loaded only for readable lines. */
export async function createServiceLogger(level: string, format: LogFormat): Promise<Logger> {
  if (!wantsReadableLogs(format)) return createLogger(level);
  const { prettyFactory } = await import("pino-pretty");
  return createLogger(level, undefined, prettyFactory(READABLE_OPTIONS));
}

// Fields that readableMessage folds into the message, or that say nothing at a
// terminal (the start's schema details: its message counts the migrations).
const FOLDED_FIELDS = ["pid", "hostname", "service", "req", "res", "responseTime", "agent", "tools", "outcome", "migrationsApplied", "functionsApplied", "schemaVersion"];

const READABLE_OPTIONS: PrettyOptions = {
  translateTime: "SYS:HH:MM:ss",
  singleLine: true,
  ignore: FOLDED_FIELDS.join(","),
  messageFormat: (log, messageKey) => readableMessage(log, messageKey),
};

/** A request line as "POST /mcp 200 12 ms, blog-writer: memory_recall ok"; other lines keep their message. */
function readableMessage(log: Record<string, unknown>, messageKey: string): string {
  const message = String(log[messageKey] ?? "");
  const agent = typeof log.agent === "string" ? log.agent : undefined;
  const req = log.req as { method?: string; url?: string } | undefined;
  if (!req?.method || log.responseTime === undefined) return agent ? `${message} (agent ${agent})` : message;
  const status = (log.res as { statusCode?: number | null } | undefined)?.statusCode ?? "no answer";
  const tools = Array.isArray(log.tools) && log.tools.length > 0 ? `: ${log.tools.join(", ")} ${String(log.outcome ?? "")}`.trimEnd() : "";
  const who = agent ? `, ${agent}${tools}` : "";
  return `${req.method} ${req.url ?? ""} ${status} ${String(log.responseTime)} ms${who}${message === "request completed" ? "" : ` (${message})`}`;
}

/**
 * `prettify` turns each JSON line into a readable one on its way to stdout. It
 * works on pino's own destination rather than through pino-pretty's stream:
 * that stream re-throws a failed write (EIO at a closed terminal) as an
 * uncaught error, which the handler below exists to prevent.
 */
export function createLogger(level: string, destination?: pino.DestinationStream, prettify?: (line: string) => string): Logger {
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
    const stream = destinationOf(logger);
    if (prettify) {
      const write = (stream.write as (line: string) => boolean).bind(stream);
      stream.write = (line: string) => write(prettify(line));
    }
    stream.on("error", (error: NodeJS.ErrnoException) => {
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
