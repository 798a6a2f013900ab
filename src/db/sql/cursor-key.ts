// The key that seals page cursors: memory_list's and the review
// queue's, whose positions may fall on facts the caller cannot read, and the
// graph's, whose positions are ids of a sequence all scopes share. Read once
// per database and kept: every replica reads the same row, so a cursor from
// one replica opens on any other.
import type { Queryable } from "../core/database.js";

const keys = new WeakMap<Queryable, Promise<Buffer>>();

export function cursorKey(db: Queryable): Promise<Buffer> {
  let key = keys.get(db);
  if (!key) {
    key = db.query<{ key: string }>("select key from am_cursor_key").then((r) => Buffer.from(r.rows[0]!.key, "hex"));
    // A failed read (database away) is not kept: the next call tries again.
    key.catch(() => keys.delete(db));
    keys.set(db, key);
  }
  return key;
}
