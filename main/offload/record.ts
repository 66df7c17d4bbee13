import type Database from 'better-sqlite3';
import type { OffloadedFile, OffloadResult } from './offload.js';

/** An offload as the queue keeps it (migration 8): one card copied, with its files' hashes. */
export interface OffloadRecord {
  id: number;
  card: string;
  cardName: string;
  destination: string;
  /** ISO 8601. */
  startedAt: string;
  finishedAt: string;
  /** Number of recordings and their total bytes. */
  fileCount: number;
  bytes: number;
  verified: boolean;
  mhlPath: string | null;
  files: Pick<OffloadedFile, 'source' | 'copy' | 'size' | 'mtimeMs' | 'xxh64' | 'verified' | 'error'>[];
}

/**
 * Records an offload and each of its files' XXH64 in the queue (issue 19 #3, #7), in one
 * transaction; answers the offload's row id. Values go in as bound parameters.
 */
export function recordOffload(db: Database.Database, r: OffloadResult): number {
  const insert = db.prepare(
    `INSERT INTO offloads (card_path, card_name, destination, started_at, finished_at, files, bytes, verified, mhl_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const file = db.prepare(`INSERT INTO offload_files (offload_id, source_path, copy_path, size, mtime_ms, xxh64, verified, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  return db.transaction(() => {
    const id = Number(insert.run(r.card, r.cardName, r.destination, r.startedAt, r.finishedAt, r.files.length, r.bytes, r.verified ? 1 : 0, r.mhlPath ?? null).lastInsertRowid);
    for (const f of r.files) file.run(id, f.source, f.copy, f.size, f.mtimeMs, f.xxh64 ?? null, f.verified ? 1 : 0, f.error ?? null);
    return id;
  })();
}

interface OffloadRow {
  id: number;
  card_path: string;
  card_name: string;
  destination: string;
  started_at: string;
  finished_at: string;
  files: number;
  bytes: number;
  verified: number;
  mhl_path: string | null;
}
interface FileRow {
  source_path: string;
  copy_path: string;
  size: number;
  mtime_ms: number;
  xxh64: string | null;
  verified: number;
  error: string | null;
}

/** Every offload recorded in the queue, oldest first, with its files in the order they were copied. */
export function listOffloads(db: Database.Database): OffloadRecord[] {
  const rows = db.prepare('SELECT * FROM offloads ORDER BY id').all() as OffloadRow[];
  const files = db.prepare('SELECT * FROM offload_files WHERE offload_id = ? ORDER BY id');
  return rows.map((r) => ({
    id: r.id,
    card: r.card_path,
    cardName: r.card_name,
    destination: r.destination,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    fileCount: r.files,
    bytes: r.bytes,
    verified: r.verified === 1,
    mhlPath: r.mhl_path,
    files: (files.all(r.id) as FileRow[]).map((f) => ({
      source: f.source_path,
      copy: f.copy_path,
      size: f.size,
      mtimeMs: f.mtime_ms,
      ...(f.xxh64 ? { xxh64: f.xxh64 } : {}),
      verified: f.verified === 1,
      ...(f.error ? { error: f.error } : {}),
    })),
  }));
}
