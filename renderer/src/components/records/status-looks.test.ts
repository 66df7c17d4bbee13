import { describe, expect, it } from 'vitest';
import { OTHER_MARKS, statusLooks } from './status-looks.js';

// Each progress status its own look (progress-records-interface.md §2: other values than the two
// given exist): never two statuses of one list alike, until the six looks are spent.

describe('statusLooks', () => {
  it('keeps the two known looks and gives each other status a colour and a mark of its own', () => {
    const look = statusLooks(['In Progress', 'Completed', 'Delayed', 'Not Started', 'On Hold']);
    expect(look('Completed')).toEqual({ className: 'completed', mark: '✓' });
    expect(look('In Progress')).toEqual({ className: 'in-progress', mark: '◐' });
    const others = ['Delayed', 'Not Started', 'On Hold'].map(look);
    expect(new Set(others.map((l) => l.className)).size).toBe(3);
    expect(new Set(others.map((l) => l.mark)).size).toBe(3);
    expect(others.map((l) => l.mark)).toEqual(OTHER_MARKS.slice(0, 3));
  });

  it('past six others, and for a status not listed, the neutral colour with its first letter', () => {
    const many = Array.from({ length: 8 }, (_, i) => `Status ${String.fromCharCode(65 + i)}`);
    const look = statusLooks(many);
    expect(new Set(many.slice(0, 6).map((s) => look(s).className)).size).toBe(6);
    expect(look(many[6]!)).toEqual({ className: 'other-status', mark: 'S' });
    expect(look('awaiting review')).toEqual({ className: 'other-status', mark: 'A' });
  });
});
