import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useWorkDir } from '../testing/kit.js';
import { openQueueDatabase } from './db.js';
import { readPlan, writePlan } from './plans.js';
import { recentPlacements, withQueueFileReadOnly } from './reader.js';
import { enqueueOne, oneFileRequest, queueIn } from '../testing/queue-rows.js';

// The capture plan kept in queue.db (migration 18): written whole in one transaction, read back as
// written, and read by another process while the writer holds the queue.

const work = useWorkDir('plans-test');
const days = [
  {
    camera: 'IAEAN00000XXXX',
    day: 'monday',
    walks: [
      { structure: 's1', design: 'd1', type: 'interior' as const },
      { structure: 's2', type: 'exterior' as const },
    ],
  },
  { camera: null, day: '2026-11-23', walks: [{ structure: 's1', design: 'd2', type: 'interior' as const }] },
];

describe('the capture plan in the queue', () => {
  it('is empty in a new queue, then read back as written, and replaced whole', () => {
    const file = join(work, 'a.db');
    const { db } = openQueueDatabase(file);
    expect(readPlan(db)).toEqual({ autoRegister: false, days: [], updatedAt: null });
    const at = new Date('2026-11-22T18:00:00Z');
    expect(writePlan(db, { autoRegister: true, days }, at)).toEqual({
      autoRegister: true,
      days,
      updatedAt: '2026-11-22T18:00:00.000Z',
    });
    // Another process reads it while this one holds the queue (status, `plan show`).
    expect(withQueueFileReadOnly(file, (q) => readPlan(q.db)).days).toEqual(days);
    writePlan(db, { autoRegister: false, days: [days[1]!] });
    expect(readPlan(db)).toMatchObject({ autoRegister: false, days: [days[1]] });
    writePlan(db, { autoRegister: false, days: [] });
    expect(readPlan(db).days).toEqual([]);
    db.close();
  });

  it('refuses the same camera and day twice and keeps the plan it had', () => {
    const { db } = openQueueDatabase(join(work, 'b.db'));
    writePlan(db, { autoRegister: false, days });
    expect(() =>
      writePlan(db, { autoRegister: false, days: [days[1]!, { ...days[1]!, walks: days[0]!.walks }] }),
    ).toThrow(/UNIQUE/);
    expect(readPlan(db).days).toEqual(days);
    db.close();
  });
});

describe("the registration table's recent places", () => {
  it('one per structure and design, the most recent first, with the type last used there', () => {
    const q = queueIn(join(work, 'recent'));
    const add = (n: number, structure: string, design: string | undefined, type: 'interior' | 'exterior') => {
      const rec = { path: `/card/r${n}.mp4`, size: 1000 + n };
      const request = { ...oneFileRequest(rec), structure, type, ...(design ? { design } : {}) };
      enqueueOne(q, `r${n}`, request, rec);
    };
    add(1, 's1', 'd1', 'interior');
    add(2, 's1', 'd2', 'interior');
    add(3, 's2', undefined, 'exterior');
    add(4, 's1', 'd1', 'exterior');
    expect(recentPlacements(q.db, 'p1')).toEqual([
      { structure: 's1', design: 'd1', type: 'exterior' },
      { structure: 's2', type: 'exterior' },
      { structure: 's1', design: 'd2', type: 'interior' },
    ]);
    expect(recentPlacements(q.db, 'another project')).toEqual([]);
    q.db.close();
  });
});
