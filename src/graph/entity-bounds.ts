// The per-entity bounds of the graph, as the database keeps them (sql/migrations/000002_graph_entity_bounds.sql:
// observations per entity, relations per name), told to the agent in words.
import { withDeadlockRetry } from "../db/core/retry.js";
import { invalid } from "../errors.js";

interface BoundDetail {
  name: string;
  count: number;
  limit: number;
}

/**
 * Runs a graph write, turning a refusal of the database's per-entity bounds
 * (the triggers am_graph_observations_added and am_graph_relations_added: observations per entity, relations per name) into a message
 * that names the entity and the limit. The statement failed whole: nothing was written.
 */
export async function withinEntityBounds<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await withDeadlockRetry(work);
  } catch (error) {
    const { constraint, detail } = (error ?? {}) as { constraint?: string; detail?: string };
    if (constraint === "graph_entity_observations_max" && detail) {
      const d = JSON.parse(detail) as BoundDetail;
      throw invalid(
        `Entity ${JSON.stringify(d.name)} would carry ${d.count} observations; an entity carries at most ${d.limit}. ` +
          "Delete observations that no longer hold (delete_observations), or put the rest on a new entity related to it. Nothing was written.",
        { entityName: d.name, limit: d.limit },
      );
    }
    if (constraint === "graph_name_relations_max" && detail) {
      const d = JSON.parse(detail) as BoundDetail;
      throw invalid(
        `${JSON.stringify(d.name)} would have ${d.count} relations; a name has at most ${d.limit}, from and to it together. ` +
          "Delete relations that no longer hold (delete_relations), or group them under intermediate entities. Nothing was written.",
        { entityName: d.name, limit: d.limit },
      );
    }
    throw error;
  }
}
