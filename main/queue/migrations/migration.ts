import type { Database } from 'better-sqlite3';

/** One numbered schema change; `up` runs inside the transaction that sets `user_version` to `version`. */
export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}
