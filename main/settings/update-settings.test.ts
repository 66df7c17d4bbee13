import { describe, expect, it } from 'vitest';
import type { KeyValueStore } from './settings.js';
import { UPDATES_KEY, UpdateSettingsStore } from './update-settings.js';

const memory = (): KeyValueStore & { raw: Map<string, unknown> } => {
  const raw = new Map<string, unknown>();
  return { raw, get: (k) => raw.get(k), set: (k, v) => raw.set(k, v) };
};

describe('UpdateSettingsStore', () => {
  it('is off (empty feed) until a feed address is saved, and keeps it apart from the other settings', () => {
    const store = memory();
    store.raw.set('settings', { mode: 'local' });
    const updates = new UpdateSettingsStore(store);
    expect(updates.get()).toEqual({ feedUrl: '' });
    expect(updates.save({ feedUrl: ' https://updates.example.com/capture-uploader/ ' })).toEqual({
      feedUrl: 'https://updates.example.com/capture-uploader',
    });
    expect(store.raw.get(UPDATES_KEY)).toEqual({ feedUrl: 'https://updates.example.com/capture-uploader' });
    expect(store.raw.get('settings')).toEqual({ mode: 'local' });
    expect(updates.save({ feedUrl: '' })).toEqual({ feedUrl: '' });
  });

  it('refuses an address without its scheme, naming the fix, and stores nothing', () => {
    const store = memory();
    expect(() => new UpdateSettingsStore(store).save({ feedUrl: 'updates.example.com/capture' })).toThrow(
      /update feed address cannot be used: it must start with https:\/\//,
    );
    expect(store.raw.size).toBe(0);
  });

  it('reads a hand-edited entry that is no web address as updates off', () => {
    const store = memory();
    store.raw.set(UPDATES_KEY, { feedUrl: 'not an address' });
    expect(new UpdateSettingsStore(store).get()).toEqual({ feedUrl: '' });
    store.raw.set(UPDATES_KEY, { feedUrl: 42 });
    expect(new UpdateSettingsStore(store).get()).toEqual({ feedUrl: '' });
  });
});
