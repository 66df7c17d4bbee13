import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UNSAFE_CHARS, printable, printableJson } from '../../shared/printable.js';
import type { DrainSummary, EngineEvent } from '../engine/engine.js';
import type { ActivityEntry } from '../queue/activity.js';
import { SupportLog } from '../support/log-file.js';
import { tempDir, useWorkDir } from '../testing/kit.js';
import { enqueueRegistered, oneFileRequest, queueIn } from '../testing/queue-rows.js';
import { activityLine } from './log.js';
import { attachDisplay, summaryLines } from './render.js';
import { statusJsonDocument } from '../status/status-document.js';
import { statusOutput } from './status.js';

// Every output of the CLI and the support log, fed strings from the whole Unicode range (lone
// surrogates included, the controls and bidirectional characters drawn often) where a file name,
// an id or a message from the gateway, storage or a card goes: no C0, C1 or bidirectional control,
// and no line or paragraph separator, comes out raw (shared/printable.ts); a line stays one line,
// and JSON says the same strings back.

const work = useWorkDir('output-escaping');

/** One UTF-16 unit of UNSAFE_CHARS, or any code point at all (0 to U+10FFFF, surrogate halves alone too). */
const unsafe = fc.constantFrom(
  ...[
    ...Array.from({ length: 0x20 }, (_, i) => i),
    ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i),
    0x61c,
    0x200e,
    0x200f,
    0x2028,
    0x2029,
    0x202a,
    0x202b,
    0x202c,
    0x202d,
    0x202e,
    0x2066,
    0x2067,
    0x2068,
    0x2069,
  ].map((c) => String.fromCharCode(c)),
);
const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c));
/** A string as an answer or a card may hold it. */
const hostile = fc.string({ unit: fc.oneof(unsafe, anyCodePoint), maxLength: 24 });
const RUNS = { numRuns: 60 };

/** The UNSAFE_CHARS characters of `text` (none may be there), as U+XXXX. */
const rawIn = (text: string) =>
  [...text.matchAll(UNSAFE_CHARS)].map((m) => `U+${m[0].charCodeAt(0).toString(16).padStart(4, '0')}`);
/** What one output writes, its lines' own ends taken off. */
const lines = (written: string) => written.replace(/\n$/, '').split('\n');
const eachLineClean = (written: string) => {
  for (const line of lines(written)) expect(rawIn(line)).toEqual([]);
};

describe('the one escaping (shared/printable.ts)', () => {
  it('printable: nothing unsafe comes out, one line, and what was safe is left as it was', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const out = printable(s);
        expect(rawIn(out)).toEqual([]);
        expect(out.replace(/\\(u[0-9a-f]{4}|[nrtbf])/g, '')).toBe(
          s.replace(UNSAFE_CHARS, '').replace(/\\(u[0-9a-f]{4}|[nrtbf])/g, ''),
        );
        expect(printable(out)).toBe(out);
      }),
      RUNS,
    );
  });

  it('printableJson: nothing unsafe comes out, every control as a \\u sequence, and it parses back to the same value', () => {
    fc.assert(
      fc.property(fc.dictionary(hostile, fc.oneof(hostile, fc.array(hostile, { maxLength: 3 }))), (v) => {
        const out = printableJson(v);
        expect(rawIn(out)).toEqual([]);
        expect(out).not.toMatch(/(^|[^\\])(\\\\)*\\[bfnrt]/);
        expect(JSON.parse(out)).toEqual(v);
      }),
      RUNS,
    );
  });

  it('printableJson indented (plan show): only its own line ends are raw, and it parses back to the same value', () => {
    fc.assert(
      fc.property(fc.dictionary(hostile, fc.oneof(hostile, fc.array(hostile, { maxLength: 3 }))), (v) => {
        const out = printableJson(v, undefined, 2);
        expect(rawIn(out.replaceAll('\n', ''))).toEqual([]);
        expect(out.split('\n').length).toBe(JSON.stringify(v, null, 2).split('\n').length);
        expect(JSON.parse(out)).toEqual(v);
      }),
      RUNS,
    );
  });
});

describe('every output function', () => {
  it('status, as lines and as --json: names, ids, labels and errors from anywhere', () => {
    const q = queueIn(join(work, 'status'));
    let n = 0;
    fc.assert(
      fc.property(hostile, hostile, hostile, hostile, (name, label, captureId, error) => {
        n++;
        const path = `/card/${n}-${name.replace(/\//g, '_')}.mp4`;
        const row = enqueueRegistered(
          q,
          label,
          oneFileRequest({ path, size: 1000 }),
          { path, size: 1000 },
          { captureId: `c${n}${captureId}`, uploadId: `u${n}`, totalParts: 1 },
        );
        const file = q.filesOf(row)[0]!;
        q.moveFile(file.id, ['pending'], 'pending', { error, retryAt: Date.now() + 60_000, transient: true });
      }),
      { numRuns: 30 },
    );
    for (const line of statusOutput(q, 'en-GB')) expect(rawIn(line)).toEqual([]);
    const doc = statusJsonDocument(q, 'en-GB');
    expect(rawIn(doc)).toEqual([]);
    expect((JSON.parse(doc) as { captures: unknown[] }).captures).toHaveLength(n);
    q.db.close();
  });

  it("drain's closing report and its event lines, and --json events", () => {
    fc.assert(
      fc.property(hostile, hostile, hostile, hostile, (name, label, error, message) => {
        const file = { id: 1, fileName: name, error, nextAttemptAt: Date.now() + 60_000 };
        const capture = { id: 2, label, error, state: 'registration_unknown' };
        const summary = {
          completed: [],
          failed: [file],
          paused: [],
          cancelled: [],
          waiting: [file],
          queued: [capture],
          needsAttention: [capture],
          blocked: message,
          fatal: message,
          cardRemoved: message,
        } as unknown as DrainSummary;
        for (const line of summaryLines(summary)) expect(rawIn(line)).toEqual([]);

        const entry: ActivityEntry = {
          id: 1,
          at: new Date().toISOString(),
          captureRow: 2,
          fileId: 1,
          subject: name,
          kind: 'retry-scheduled',
          message: error,
        };
        const events = [
          { type: 'file', fileId: 1, captureRow: 2, fileName: name, state: 'failed', error, transient: false, file },
          {
            type: 'file',
            fileId: 1,
            captureRow: 2,
            fileName: name,
            state: 'completed',
            error: null,
            transient: false,
            file,
          },
          { type: 'capture', captureRow: 2, label, state: 'rejected', error, capture },
          { type: 'activity', entry },
          { type: 'activity', entry: { ...entry, kind: 'parts-lost' } },
          { type: 'blocked', message },
          { type: 'fatal', message },
          { type: 'warning', message },
        ] as unknown as EngineEvent[];
        for (const mode of ['lines', 'json'] as const) {
          let written = '';
          let listener: ((e: EngineEvent) => void) | undefined;
          const out = { write: (s: string) => ((written += s), true) } as unknown as NodeJS.WriteStream;
          attachDisplay((l) => ((listener = l), () => {}), mode, out);
          for (const e of events) listener!(e);
          eachLineClean(written);
          if (mode === 'json') for (const line of lines(written)) JSON.parse(line);
        }
      }),
      RUNS,
    );
  });

  it("log's activity lines", () => {
    fc.assert(
      fc.property(
        hostile,
        hostile,
        fc.constantFrom('failed', 'outage', 'note', 'completed'),
        (subject, message, kind) => {
          const e = {
            id: 1,
            at: new Date().toISOString(),
            captureRow: null,
            fileId: 3,
            subject,
            kind,
            message,
          } as ActivityEntry;
          expect(rawIn(activityLine(e, { locale: 'en-GB' }))).toEqual([]);
          expect(rawIn(printableJson(e))).toEqual([]);
        },
      ),
      RUNS,
    );
  });

  it('the support log: messages and engine events, one JSON line each', () => {
    const t = tempDir('output-escaping-log');
    try {
      const log = new SupportLog({ dir: t.dir, source: 'cli' });
      fc.assert(
        fc.property(hostile, hostile, hostile, (name, label, error) => {
          log.message('warn', `${name}: ${error}`);
          log.event({ type: 'capture', captureRow: 1, label, state: 'rejected', error } as unknown as EngineEvent);
          log.event({ type: 'warning', message: error } as unknown as EngineEvent);
        }),
        RUNS,
      );
      const text = readdirSync(t.dir)
        .map((f) => readFileSync(join(t.dir, f), 'utf8'))
        .join('');
      const written = lines(text);
      expect(written).toHaveLength(RUNS.numRuns * 3);
      for (const line of written) {
        expect(rawIn(line)).toEqual([]);
        JSON.parse(line);
      }
    } finally {
      t.remove();
    }
  });
});
