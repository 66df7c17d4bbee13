import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoreApi, UseBoundStore } from 'zustand';
import { packAssets } from '../../shared/asset-pack.js';
import type { AssetView } from '../../shared/ipc.js';
import type { OfficeState } from './office-test-api.js';
import { OfficeApi, officeStore, settle } from './office-test-api.js';

// The Assets workspace's slice of the store against a stand-in window.api: which reads it asks
// for and gives up, and which answer the drawing then shows.
const office = new OfficeApi();
let store: UseBoundStore<StoreApi<OfficeState>>;
const s = () => store.getState();
beforeAll(async () => {
  store = await officeStore(office);
});

const asset = (id: string): AssetView => ({
  _id: id,
  shape: 'Polyline',
  doNotTrack: false,
  snapshot: '2026-11-20',
  points: [
    { x: 0, y: 0 },
    { x: 4, y: 3 },
  ],
  stages: [{ _id: 'st1', percentage: 50, date: '2026-11-19' }],
});
/** The service's answer of assets `ids` (packed, as the IPC dispatch carries it), as of 09:12, from the kept copy when `offline`. */
const answer = (ids: string[], offline = false) => ({
  assets: packAssets(ids.map(asset)),
  asOf: '2026-11-26T09:12:00Z',
  offline,
  offlineReason: offline ? 'ECONNRESET' : null,
});
const lists = {
  categories: [{ id: 'c1', name: 'Ductwork' }],
  structures: [{ id: 's1', name: 'Tower A' }],
  asOf: '2026-11-25T17:40:00Z',
  offline: true,
  offlineReason: 'ECONNRESET',
};

beforeEach(async () => {
  s().closeAssets();
  await settle();
  office.calls.length = 0;
  office.cancelled.length = 0;
  office.hold('assets.list', false);
  office.answer('assets.categories', () => lists);
  office.answer('assets.list', (a) => answer([`${(a as { category: string }).category}-1`]));
  s().openAssets();
  await settle();
});

describe('the Assets workspace slice', () => {
  it('opens with nothing chosen, reads the categories and structures once, and says when they are the kept copy', () => {
    expect(office.calls.map((c) => c.name)).toEqual(['assets.categories']);
    expect(s().assetCategories.map((c) => c.name)).toEqual(['Ductwork']);
    expect(s().assetStructures).toEqual([{ id: 's1', name: 'Tower A' }]);
    expect(s().assetListsOffline).toBe('2026-11-25T17:40:00Z');
    expect([s().assetsStructure, s().assetsCategory, s().assets, s().assetsLoading]).toEqual(['', '', null, false]);
  });

  it('reads the assets once both are chosen, unpacked, with the time of the copy when offline', async () => {
    s().chooseAssetStructure('s1');
    expect(office.callsOf('assets.list')).toEqual([]);
    office.answer('assets.list', () => answer(['a1', 'a2'], true));
    s().chooseAssetCategory('c1');
    expect(s().assetsLoading).toBe(true);
    await settle();
    const [read] = office.callsOf('assets.list');
    expect(read?.args).toEqual({ structure: 's1', category: 'c1' });
    expect(read?.callId).toMatch(/^[0-9a-f-]{36}$/);
    expect(s().assets?.map((a) => [a._id, a.points.length, a.stages[0]?.percentage])).toEqual([
      ['a1', 2, 50],
      ['a2', 2, 50],
    ]);
    expect([s().assetsLoading, s().assetsOffline, s().assetsProblem]).toEqual([false, '2026-11-26T09:12:00Z', null]);
    // The same choice again reads nothing.
    s().chooseAssetCategory('c1');
    expect(office.callsOf('assets.list')).toHaveLength(1);
  });

  it('gives up the read under way when another category is chosen: its late answer never replaces the new one', async () => {
    s().chooseAssetStructure('s1');
    office.hold('assets.list');
    s().chooseAssetCategory('curtain');
    const first = office.callsOf('assets.list')[0]!;
    office.hold('assets.list', false);
    s().chooseAssetCategory('ducts');
    expect(office.cancelled).toEqual([first.callId]);
    await settle();
    expect(s().assets?.map((a) => a._id)).toEqual(['ducts-1']);
    expect([s().assetsLoading, s().assetsProblem]).toEqual([false, null]);
    // A read already answered is not cancelled again.
    s().chooseAssetCategory('');
    expect(office.cancelled).toEqual([first.callId]);
    expect([s().assets, s().assetsLoading]).toEqual([null, false]);
    // An answer already on its way when the next choice is made is not shown either.
    office.hold('assets.list');
    s().chooseAssetCategory('late');
    office.release('assets.list', answer(['late-1']));
    s().chooseAssetCategory('ducts');
    await settle();
    expect([s().assets, s().assetsLoading]).toEqual([null, true]);
    office.release('assets.list', answer(['ducts-1']));
    await settle();
    expect(s().assets?.map((a) => a._id)).toEqual(['ducts-1']);
  });

  it('says why a read failed, and gives up the read under way when the workspace closes', async () => {
    office.answer('assets.list', () => new Error('No connection to the progress service; this view needs it once.'));
    s().chooseAssetStructure('s1');
    s().chooseAssetCategory('c1');
    await settle();
    expect([s().assetsProblem, s().assets, s().assetsLoading]).toEqual([
      'No connection to the progress service; this view needs it once.',
      null,
      false,
    ]);
    office.hold('assets.list');
    s().chooseAssetCategory('c2');
    const held = office.callsOf('assets.list')[1]!;
    s().closeAssets();
    expect(office.cancelled).toEqual([held.callId]);
    await settle();
    expect([s().assetsProblem, s().assetCategories, s().assetsStructure]).toEqual([null, [], '']);
  });
});
