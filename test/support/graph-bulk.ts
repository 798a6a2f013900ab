// Graph data past the per-entity bounds (graph_entities.observation_count, graph_relation_ends, graph_scope_entities), as a database holds it
// that was written before the bounds existed: the bulk statements run with the
// graph's triggers off, then the kept counts are recounted as the migration
// counted them. Tests of reads over hubs and huge entities keep their data this way.
import type { Database } from "../../src/db/core/database.js";

export async function loadPastBounds(db: Database, statements: Array<[string, unknown[]]>): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query("set local session_replication_role = replica");
    for (const [text, params] of statements) await tx.query(text, params);
    await tx.query(
      "update graph_entities e set observation_count = (select count(*) from graph_observations o where o.entity_id = e.id)",
    );
    await tx.query("delete from graph_scope_entities");
    await tx.query("insert into graph_scope_entities (scope, slot, entities) select scope, 0, count(*)::int from graph_entities group by scope");
    await tx.query("delete from graph_relation_ends");
    await tx.query(
      `insert into graph_relation_ends (scope, name_key, relations)
       select scope, k, count(*)::int from (
         select id, scope, am_graph_key(from_name) as k from graph_relations
         union
         select id, scope, am_graph_key(to_name) from graph_relations) ends
       group by scope, k`,
    );
  });
}
