// A JSON-RPC error whose message reaches the client as written. The SDK's own
// McpError puts "MCP error <code>: " into its message, the SDK sends that
// message on the wire, and the SDK client puts the prefix in front again: an
// agent read "MCP error -32602: MCP error -32602: Invalid arguments …". The
// SDK's protocol layer sends any thrown error's `code`, `message` and `data`,
// so this error needs nothing more.
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "ProtocolError";
  }
}
