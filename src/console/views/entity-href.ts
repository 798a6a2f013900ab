// The link to an entity's page in the console.
import { BASE } from "./layout.js";

/**
 * An entity's page. "." and ".." cannot be a path segment (browsers resolve them
 * away, written as %2E too), so those two names go in the query instead.
 */
export const entityHref = (scope: string, name: string, offset?: number) => {
  const more: Record<string, string> = offset === undefined ? {} : { offset: String(offset) };
  if (name === "." || name === "..") return `${BASE}/graph/entity?${new URLSearchParams({ scope, name, ...more }).toString()}`;
  const query = offset === undefined ? "" : `?offset=${offset}`;
  return `${BASE}/graph/${scope}/${encodeURIComponent(name)}${query}`;
};
