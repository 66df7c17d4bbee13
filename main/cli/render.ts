import cliProgress from 'cli-progress';
import type { DrainSummary, EngineEvent } from '../engine/engine.js';
import { formatBytes, formatEta } from '../../shared/format.js';
import { whenAt } from '../../shared/when.js';
import { printable, printableJson } from './printable.js';
import type { StopSignal } from './exit-status.js';

/**
 * Shows engine events: a progress bar per file being uploaded and one for the whole queue on a
 * terminal; one line per state change otherwise; one JSON object per event with `json`.
 * Returns a function that stops the display.
 */
export function attachDisplay(
  on: (l: (e: EngineEvent) => void) => () => void,
  mode: 'tty' | 'lines' | 'json',
  out: NodeJS.WriteStream,
): () => void {
  if (mode === 'json') return on((e) => out.write(`${printableJson(e)}\n`));
  if (mode === 'lines') {
    return on((e) => {
      const line = eventLine(e);
      if (line) out.write(line);
      else if (e.type === 'capture' && e.error && e.state !== 'queued')
        out.write(`capture "${printable(e.label)}": ${printable(e.error)}\n`);
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
          name: printable(f.fileName),
          done: formatBytes(f.bytesSent),
          total: formatBytes(f.bytesTotal),
          speed: formatBytes(f.bytesPerSecond),
          eta: formatEta(f.etaSeconds),
        });
      }
    } else {
      const line = eventLine(e);
      if (line) multi.log(line);
      const bar = e.type === 'file' && e.state !== 'uploading' ? bars.get(e.fileId) : undefined;
      if (bar && e.type === 'file') {
        multi.remove(bar);
        bars.delete(e.fileId);
      }
    }
  });
  return () => {
    off();
    multi.stop();
  };
}

/** The line an event prints outside the progress bars (completions, failures, scheduled retries, parts storage lost, warnings), or undefined. */
function eventLine(e: EngineEvent): string | undefined {
  if (e.type === 'file' && e.state === 'completed') return `completed  ${printable(e.fileName)}\n`;
  if (e.type === 'file' && e.state === 'failed')
    return `FAILED     ${printable(e.fileName)}: ${printable(e.error ?? '')}\n`;
  if (e.type === 'activity' && (e.entry.kind === 'retry-scheduled' || e.entry.kind === 'registration-retry')) {
    return `retrying   ${printable(e.entry.subject)}: ${printable(e.entry.message)}\n`;
  }
  // Storage's own list lacked parts it had acknowledged (engine/file-upload.ts): said once, as the app's queue does.
  if (e.type === 'activity' && e.entry.kind === 'parts-lost')
    return `LOST       ${printable(e.entry.subject)}: ${printable(e.entry.message)}\n`;
  if (e.type === 'blocked' && e.message) return `STOPPED    ${printable(e.message)}\n`;
  if (e.type === 'fatal') return `STOPPED    ${printable(e.message)}\n`;
  if (e.type === 'warning') return `warning: ${printable(e.message)}\n`;
  return undefined;
}

/**
 * The exit status of a drain (documented in `drain --help` and the README): 0 when every file
 * completed; 1 when something needs a person (failed files, refused or unknown registrations,
 * paused or cancelled files, files waiting for a card pulled out mid-upload: only putting it back
 * moves them, or the queue blocked by credentials the service refuses: only corrected settings
 * move it); 2 when the queue database cannot be written (a local fault); 3 when what is left goes
 * on by itself (scheduled retries, captures not yet registered).
 */
export function drainExitCode(s: DrainSummary): number {
  if (s.fatal) return 2;
  if (s.failed.length || s.needsAttention.length || s.paused.length || s.cancelled.length || s.cardRemoved || s.blocked)
    return 1;
  if (s.waiting.length || s.queued.length) return 3;
  return 0;
}

/**
 * The one line a command stopped by `signal` ends with (docs/cli.md "Stopped by a signal"): the
 * files completed and not yet, the captures not registered yet, and those whose add-capture got
 * no answer within the stop's grace (registration unknown: `resolve` decides), from the queue as
 * the stop left it (`s`, engine.summary()); the parts stored are kept and a drain carries on.
 */
export function stoppedLine(signal: StopSignal, s: DrainSummary): string {
  const left = s.waiting.length + s.paused.length + s.failed.length;
  const unknown = s.needsAttention.filter((c) => c.state === 'registration_unknown').length;
  const what = [`${s.completed.length} file(s) completed, ${left} not yet`];
  if (s.queued.length) what.push(`${s.queued.length} capture(s) not registered yet`);
  if (unknown) what.push(`${unknown} capture(s) whose registration is unknown (capture-uploader resolve decides each)`);
  return `Stopped by ${signal}: ${what.join(', ')}; the parts stored so far are kept. Run drain again to carry on.`;
}

/**
 * The closing report of a drain: counts, then one line per file or capture that is not done and
 * why, and last what to do: correct the settings when the service refuses the credentials, else
 * `drain --wait` when work is left; and for registrations left unknown, which no wait settles,
 * `resolve`, said last.
 */
export function summaryLines(s: DrainSummary): string[] {
  const lines = [
    `${s.completed.length} file(s) completed, ${s.failed.length} failed, ${s.paused.length} paused, ${s.waiting.length} waiting to be sent` +
      (s.cancelled.length ? `, ${s.cancelled.length} cancelled` : '') +
      '.',
  ];
  if (s.fatal) lines.push(`STOPPED ${printable(s.fatal)}`);
  if (s.blocked) lines.push(`STOPPED ${printable(s.blocked)}`);
  if (s.cardRemoved)
    lines.push(
      `CARD REMOVED ${printable(s.cardRemoved)}; \`drain --wait\` resumes by itself once it is back, under any mount path`,
    );
  for (const f of s.failed) lines.push(`FAILED ${printable(f.fileName)} (file ${f.id}): ${printable(f.error ?? '')}`);
  for (const f of s.waiting) {
    const when =
      f.nextAttemptAt !== null && f.nextAttemptAt > Date.now()
        ? `tried again at ${whenAt(f.nextAttemptAt)}`
        : 'not sent yet';
    lines.push(`WAITING ${printable(f.fileName)} (file ${f.id}): ${when}${f.error ? ` — ${printable(f.error)}` : ''}`);
  }
  for (const c of s.queued)
    lines.push(`NOT REGISTERED YET capture ${c.id} "${printable(c.label)}"${c.error ? `: ${printable(c.error)}` : ''}`);
  for (const c of s.needsAttention)
    lines.push(`NEEDS ATTENTION capture ${c.id} "${printable(c.label)}" (${c.state}): ${printable(c.error ?? '')}`);
  // Refused credentials: `drain --wait` would stop at once again; a person must correct them (as `status` says "Needs you").
  if (s.blocked) lines.push('Needs you: correct the settings named above and run drain again; nothing queued is lost.');
  else if (s.waiting.length || s.queued.length) {
    const rest = s.needsAttention.some((c) => c.state === 'registration_unknown') ? 'the rest' : 'everything';
    lines.push(`Run \`capture-uploader drain --wait\` to keep going through outages until ${rest} is sent.`);
  }
  // A registration left unknown waits for a person's word, which no wait gives: `resolve` is the step, said last.
  const unknown = s.needsAttention.filter((c) => c.state === 'registration_unknown').map((c) => c.id);
  if (unknown.length) lines.push(resolveAdvice(unknown));
  return lines;
}

/**
 * What to do about captures whose registration is unknown (§4.4 add-capture sent, its answer
 * lost): look on the platform, then `resolve` each, `--drop` where the platform has it,
 * `--register-again` where it does not. One capture is named in the commands themselves.
 */
function resolveAdvice(ids: readonly number[]): string {
  if (ids.length === 1) {
    const id = ids[0]!;
    return `Capture ${id}: whether the service registered it is unknown, and waiting cannot tell. Look for it on the platform, then run \`capture-uploader resolve ${id} --drop\` if it has it, \`capture-uploader resolve ${id} --register-again\` if not.`;
  }
  const named = `${ids.slice(0, -1).join(', ')} and ${ids.at(-1)}`;
  return `Captures ${named}: whether the service registered them is unknown, and waiting cannot tell. Look for them on the platform, then run \`capture-uploader resolve ID --drop\` for those it has, \`capture-uploader resolve ID --register-again\` for the others.`;
}
