// Completion lookups by prefix (completion/complete), as SQL text: each is one
// range of a "C"-collated index (byte order, where a prefix is one contiguous
// range whatever the database's collation) and reads at most PREFIX_LOOKUP rows.
import { COMPLETION_MAX_VALUES } from "../../limits.js";

/** Values a completion looks up at most: an answer's cap, plus one that tells whether more exist. */
export const PREFIX_LOOKUP = COMPLETION_MAX_VALUES + 1;

// Every string that starts with $1 sorts below $1 || U+10FFFF (the highest code
// point, highest in UTF-8 too).
const inRange = (column: string) => `${column} collate "C" >= $1 and ${column} collate "C" < $1 || chr(1114111)`;

/** Values of `column` from the prefix $1 on, in byte order, where `where` holds (in terms of `t.`). */
export function valuesByPrefix(table: string, column: string, where = "true"): string {
  return `
  select ${column} from ${table} t
   where ${where} and ${inRange(`t.${column}`)}
   order by ${column} collate "C" limit ${PREFIX_LOOKUP}`;
}

/**
 * The distinct values of `column` from the prefix $1 on: a loose index scan,
 * one index probe per distinct value found, ending at the prefix's range.
 * `where` (in terms of `t.`) narrows every probe, e.g. to one action.
 */
export function distinctByPrefix(table: string, column: string, where = "true"): string {
  return `
  with recursive d(v) as (
    (select t.${column} collate "C" from ${table} t where ${where} and ${inRange(`t.${column}`)} order by t.${column} collate "C" limit 1)
    union all
    select (select t.${column} collate "C" from ${table} t where ${where} and ${inRange(`t.${column}`)} and t.${column} collate "C" > d.v order by t.${column} collate "C" limit 1)
      from d where d.v is not null)
  select v as ${column} from d where v is not null limit ${PREFIX_LOOKUP}`;
}
