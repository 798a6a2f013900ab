-- What an item adds to a graph answer besides its text: the framing it gets in
-- the answer's JSON text (JSON.stringify(…, null, 2) of the reference server's
-- shapes: indentation, keys, quotes). Every graph read is cut at a character
-- budget (GRAPH_ANSWER_MAX_CHARS) in SQL, so only what an answer shows leaves
-- the database; an item costs its characters plus its frame.
--   entity       `    {\n      "name": "",\n      "entityType": "",\n      "observations": [\n      ]\n    },\n` (87)
--   observation  `        "",\n`
--   relation     `    {\n      "from": "",\n      "to": "",\n      "relationType": ""\n    },\n` (72)
create or replace function am_graph_frame(p_item text) returns integer
  language sql immutable strict parallel safe
  as $$ select case p_item when 'entity' then 90 when 'observation' then 12 when 'relation' then 75 end $$;
