// What the built-in authorization server (src/oauth/authorization-server.ts, our
// own code) takes from the SDK: the wire schemas and types of OAuth client
// metadata and tokens. v2 ships no authorization server (v1's is frozen in
// @modelcontextprotocol/server-legacy, which this service does not use).
import { OAuthClientMetadataSchema } from "@modelcontextprotocol/core";

export { OAuthClientMetadataSchema };
export type { OAuthClientInformationFull, OAuthMetadata, OAuthProtectedResourceMetadata, OAuthTokens } from "@modelcontextprotocol/server";
