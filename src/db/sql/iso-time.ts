// Timestamps leave the database as text in one canonical form, the form of JS
// toISOString() (UTC, milliseconds), so answers, exports and the importer's
// comparisons all see exactly the same value. Splices a column name (a constant
// of the calling SQL, never input) into the expression.
export const isoTimeSql = (column: string): string => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
