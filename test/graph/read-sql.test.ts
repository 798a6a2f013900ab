// Some of the graph's read statements are assembled from builder functions
// (src/graph/relations-sql.ts, activity-sql.ts), so the final statement cannot
// be read in the source. Each one is committed here as
// a file, test/graph/__snapshots__/read-sql/<NAME>.sql: any change to a query shows
// in review as a diff of the SQL itself. After an intended change, run
//   npx vitest run test/graph/read-sql.test.ts -u
// and review the .sql diff with the code.
import { describe, expect, it } from "vitest";
import * as activitySql from "../../src/graph/activity-sql.js";
import * as readSql from "../../src/graph/read-sql.js";
import * as relationsSql from "../../src/graph/relations-sql.js";

const statements = Object.entries({ ...readSql, ...relationsSql, ...activitySql }).filter((entry): entry is [string, string] => typeof entry[1] === "string");

describe("graph read SQL, as committed text", () => {
  it("exports the reads the stores use", () => {
    expect(statements.map(([name]) => name)).toEqual(expect.arrayContaining(["SCOPE_ENTITY_COUNT", "GRAPH_PAGE", "GRAPH_SEARCH", "GRAPH_OPEN", "ENTITY_OBSERVATIONS"]));
  });

  it.each(statements)("%s matches its committed .sql file", async (name, sql) => {
    await expect(`${sql.trim()}\n`).toMatchFileSnapshot(`./__snapshots__/read-sql/${name}.sql`);
  });
});
