// memory_recall's call: the statement is the function am_recall
// (sql/functions/am_recall.sql), which says what each parameter is. Each row
// comes back as one JSON object; the parameters are recallParams' (read.ts).
export const RECALL_CALL = `
  select r from am_recall($1::text[], $2::text[], $3::boolean[], $4::boolean, $5::text[], $6::text, $7::text, $8::text,
                          $9::int, $10::int, $11::int, $12::int, $13::text[], $14::int, $15::text[], $16::text[]) as r`;
