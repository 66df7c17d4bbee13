import { describe, expect, it } from 'vitest';
import { updateFeedProblem } from '../../shared/service-url.js';
import type { KeyValueStore } from './settings.js';
import { UpdateFeed } from './update-feed.js';
import { UPDATES_KEY } from './update-settings.js';

const memory = (): KeyValueStore & { raw: Map<string, unknown> } => {
  const raw = new Map<string, unknown>();
  return { raw, get: (k) => raw.get(k), set: (k, v) => raw.set(k, v) };
};

describe('the update feed setting', () => {
  it('takes https anywhere and plain http only to this computer', () => {
    expect(updateFeedProblem('https://updates.example.com/cu')).toBeUndefined();
    for (const local of ['http://localhost:8080/f', 'http://127.0.0.1:9/f', 'http://127.1.2.3/f', 'http://[::1]:80/f'])
      expect(updateFeedProblem(local), local).toBeUndefined();
    expect(updateFeedProblem('http://updates.example.com/cu')).toMatch(/^it must start with https:\/\/ \(plain http/);
    expect(updateFeedProblem('http://localhost.example.com/cu')).toMatch(/must start with https/);
    expect(updateFeedProblem('updates.example.com')).toMatch(/https:\/\/updates\.example\.com\/capture-uploader/);
    expect(updateFeedProblem('ftp://updates.example.com')).toMatch(/must start with https/);
  });

  it('stores and applies a good address at once, refuses a bad one with nothing stored or applied, and empty is off', async () => {
    const store = memory();
    const applied: string[] = [];
    const feed = new UpdateFeed({ store, apply: (u) => void applied.push(u) });
    const h = feed.handlers();
    expect(await h['capture:updates.get']()).toEqual({
      feedUrl: '',
      state: 'off',
      status: 'Updates are off: no update feed address is set.',
    });
    await expect(h['capture:updates.set']({ feedUrl: 'http://updates.example.com/cu' })).rejects.toThrow(
      /^The update feed address cannot be used: it must start with https:\/\//,
    );
    expect(store.raw.has(UPDATES_KEY)).toBe(false);
    expect(applied).toEqual([]);
    expect(await h['capture:updates.set']({ feedUrl: 'https://updates.example.com/cu/' })).toMatchObject({
      feedUrl: 'https://updates.example.com/cu',
    });
    expect(applied).toEqual(['https://updates.example.com/cu']);
    expect(await h['capture:updates.set']({ feedUrl: '' })).toMatchObject({ feedUrl: '' });
    expect(applied).toEqual(['https://updates.example.com/cu', '']);
    expect(store.raw.get(UPDATES_KEY)).toEqual({ feedUrl: '' });
  });

  it('reads a hand-edited http feed to another computer as off', () => {
    const store = memory();
    store.raw.set(UPDATES_KEY, { feedUrl: 'http://updates.example.com/cu' });
    expect(new UpdateFeed({ store, apply: () => {} }).view().feedUrl).toBe('');
  });
});
