// The graph's read queries are assembled from builder functions (src/graph/read-sql.ts,
// and the activity feed's in activity-sql.ts),
// so the final statement cannot be read in the source. Each one is committed here as
// a file, test/graph/__snapshots__/read-sql/<NAME>.sql: any change to a query shows
// in review as a diff of the SQL itself. After an intended change, run
//   npx vitest run test/graph/read-sql.test.ts -u
// and review the .sql diff with the code.
import { describe, expect, it } from "vitest";
import * as activitySql from "../../src/graph/activity-sql.js";
import * as readSql from "../../src/graph/read-sql.js";

const statements = Object.entries({ ...readSql, ...activitySql }).filter((entry): entry is [string, string] => typeof entry[1] === "string");

describe("graph read SQL, as committed text", () => {
  it("exports the reads the stores use", () => {
    expect(statements.map(([name]) => name)).toEqual(expect.arrayContaining(["READ_GRAPH_PAGE", "SEARCH_NODES", "SEARCH_NODES_SHORT", "OPEN_NODES"]));
  });

  it.each(statements)("%s matches its committed .sql file", async (name, sql) => {
    await expect(`${sql.trim()}\n`).toMatchFileSnapshot(`./__snapshots__/read-sql/${name}.sql`);
  });
});
