// The built-in OAuth authorization server's protocol (OAUTH_MODE=builtin): the
// router (/authorize, /token, /register, /revoke), its RFC 8414 metadata and the
// errors its provider throws, from the SDK's frozen copy of v1's authorization
// server (@modelcontextprotocol/server-legacy/auth; v2 keeps resource-server
// helpers only). Storage, consent and token minting are the service's
// (src/oauth/). Its errors are that copy's classes, which its router answers;
// the resource server (resource-server.ts) has v2's.
import { OAuthClientMetadataSchema } from "@modelcontextprotocol/core";
import {
  createOAuthMetadata,
  InvalidClientError,
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidTargetError,
  mcpAuthRouter,
  metadataHandler,
} from "@modelcontextprotocol/server-legacy/auth";

export { createOAuthMetadata, InvalidClientError, InvalidClientMetadataError, InvalidGrantError, InvalidTargetError, mcpAuthRouter, metadataHandler, OAuthClientMetadataSchema };
export type { AuthorizationParams, OAuthRegisteredClientsStore, OAuthServerProvider } from "@modelcontextprotocol/server-legacy/auth";
export type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/server";
