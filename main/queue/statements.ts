import type Database from 'better-sqlite3';

/**
 * A prepared-statement cache for one connection: `sql(text)` prepares `text` once and hands back
 * the same statement afterwards. Preparing on every call cost more than running the statement
 * at 10,000 queued files. The SQL text is the key, so only fixed texts (or texts from a small
 * set, such as `IN` lists of a few states) should go through it. Throws what `prepare` throws.
 */
export function statementCache(db: Database.Database): (text: string) => Database.Statement {
  const statements = new Map<string, Database.Statement>();
  return (text) => {
    let s = statements.get(text);
    if (!s) {
      s = db.prepare(text);
      statements.set(text, s);
    }
    return s;
  };
}
