import cliProgress from 'cli-progress';
import type { DrainSummary, EngineEvent } from '../engine/engine.js';
import type { UploadQueue } from '../queue/queue.js';
import { formatBytes, formatEta } from '../../shared/format.js';

export { formatBytes, formatEta };

/** Parses a bandwidth like `500k`, `10M`, `1.5m` or plain bytes into bytes per second. Throws Error. */
export function parseBandwidth(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?(?:\/s)?$/i.exec(text.trim());
  if (!m) throw new Error(`--bandwidth ${text} is not a rate: write bytes per second, e.g. 500k or 10M`);
  const mult = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
  const n = Math.round(Number(m[1]) * mult);
  if (n <= 0) throw new Error('--bandwidth must be more than 0');
  return n;
}

/**
 * Shows engine events: a progress bar per file being uploaded and one for the whole queue on a
 * terminal; one line per state change otherwise; one JSON object per event with `json`.
 * Returns a function that stops the display.
 */
export function attachDisplay(on: (l: (e: EngineEvent) => void) => () => void, mode: 'tty' | 'lines' | 'json', out: NodeJS.WriteStream): () => void {
  if (mode === 'json') return on((e) => out.write(`${JSON.stringify(e)}\n`));
  if (mode === 'lines') {
    return on((e) => {
      if (e.type === 'file' && (e.state === 'completed' || e.state === 'failed')) {
        out.write(e.state === 'completed' ? `completed  ${e.fileName}\n` : `FAILED     ${e.fileName}: ${e.error}\n`);
      } else if (e.type === 'capture' && e.error) out.write(`capture "${e.label}": ${e.error}\n`);
      else if (e.type === 'warning') out.write(`warning: ${e.message}\n`);
    });
  }
  const multi = new cliProgress.MultiBar(
    {
      format: ' {bar} {percentage}% | {name} | {done} of {total} | {speed}/s | {eta}',
      hideCursor: true,
      clearOnComplete: false,
      stream: out,
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<number, cliProgress.SingleBar>();
  const overall = multi.create(1, 0, { name: 'all files', done: '0 B', total: '0 B', speed: '0 B', eta: '—' });
  const off = on((e) => {
    if (e.type === 'progress') {
      overall.setTotal(Math.max(1, e.overall.bytesTotal));
      overall.update(e.overall.bytesSent, {
        done: formatBytes(e.overall.bytesSent),
        total: formatBytes(e.overall.bytesTotal),
        speed: formatBytes(e.overall.bytesPerSecond),
        eta: formatEta(e.overall.etaSeconds),
      });
      for (const f of e.files) {
        let bar = bars.get(f.fileId);
        if (!bar) {
          bar = multi.create(f.bytesTotal, 0, {});
          bars.set(f.fileId, bar);
        }
        bar.update(f.bytesSent, {
          name: f.fileName,
          done: formatBytes(f.bytesSent),
          total: formatBytes(f.bytesTotal),
          speed: formatBytes(f.bytesPerSecond),
          eta: formatEta(f.etaSeconds),
        });
      }
    } else if (e.type === 'file' && (e.state === 'completed' || e.state === 'failed')) {
      multi.log(e.state === 'completed' ? `completed  ${e.fileName}\n` : `FAILED     ${e.fileName}: ${e.error}\n`);
    } else if (e.type === 'warning') multi.log(`warning: ${e.message}\n`);
  });
  return () => {
    off();
    multi.stop();
  };
}

/** The queue as text lines: each capture with its state, each file with state and percentage. */
export function statusLines(queue: UploadQueue): string[] {
  const lines: string[] = [];
  for (const c of queue.captures()) {
    lines.push(`capture ${c.id}  ${c.state.padEnd(20)} ${c.label}${c.captureId ? `  (id ${c.captureId})` : ''}`);
    if (c.error) lines.push(`    ${c.error}`);
    for (const f of queue.filesOf(c.id)) {
      const parts = queue.parts(f.id);
      const done = parts.filter((p) => p.etag).reduce((n, p) => n + p.size, 0);
      const pct = f.state === 'completed' ? 100 : f.size ? Math.floor((done / f.size) * 100) : 0;
      lines.push(`  file ${f.id}  ${f.state.padEnd(10)} ${String(pct).padStart(3)}%  ${formatBytes(f.size).padStart(9)}  ${f.fileName}`);
      if (f.error) lines.push(`      ${f.error}`);
    }
  }
  return lines;
}

/** The closing report of a drain: one line per failed file and per capture needing a decision. */
export function summaryLines(s: DrainSummary): string[] {
  const lines = [`${s.completed.length} file(s) completed, ${s.failed.length} failed, ${s.paused.length} paused.`];
  for (const f of s.failed) lines.push(`FAILED ${f.fileName} (file ${f.id}): ${f.error}`);
  for (const c of s.needsAttention) lines.push(`NEEDS ATTENTION capture ${c.id} "${c.label}" (${c.state}): ${c.error ?? ''}`);
  return lines;
}
