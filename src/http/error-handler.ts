// The one Express error middleware: body-parser failures become JSON-RPC errors
// with a status that says what to fix; anything else is logged and answered 500
// without internals.
import type { ErrorRequestHandler } from "express";
import { JsonRpcCode, sendJsonRpcError } from "../mcp-endpoint/json-rpc.js";

interface HttpError {
  type?: string;
  status?: number;
  limit?: number;
}

export function errorHandler(maxBodyBytes: number): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const e = (error ?? {}) as HttpError;
    if (e.type === "entity.too.large") {
      return sendJsonRpcError(res, 413, JsonRpcCode.INVALID_REQUEST, `Request body is larger than the ${maxBodyBytes}-byte limit (MAX_BODY_BYTES). Send less per call.`);
    }
    if (e.type === "entity.parse.failed") {
      return sendJsonRpcError(res, 400, JsonRpcCode.PARSE_ERROR, "Parse error: the request body is not valid JSON.");
    }
    if (e.type === "encoding.unsupported" || e.type === "charset.unsupported") {
      return sendJsonRpcError(res, 415, JsonRpcCode.INVALID_REQUEST, "Unsupported body encoding or charset: send UTF-8 JSON.");
    }
    if (typeof e.status === "number" && e.status >= 400 && e.status < 500) {
      return sendJsonRpcError(res, e.status, JsonRpcCode.INVALID_REQUEST, "Bad request.");
    }
    req.log?.error({ err: error }, "unhandled error");
    sendJsonRpcError(res, 500, JsonRpcCode.INTERNAL_ERROR, "Internal server error.");
  };
}
