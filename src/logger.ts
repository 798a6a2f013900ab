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
  return pino(
    {
      level,
      base: { service: "agent-memory" },
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
