import { describe, expect, it } from 'vitest';
import { CatalogError, mergeCatalog, parseCatalog } from './catalog.js';

const csv = [
  'Structure ID,Structure Name,Design ID,Design Name',
  's1,Tower A,d1,Level 1',
  's1,Tower A,d2,"Level 2, east"',
  's2,Annex,,',
  '',
].join('\r\n');

describe('parseCatalog', () => {
  it('reads a CSV with one row per design, quoted values and a structure without designs', () => {
    expect(parseCatalog(csv, 'office.csv')).toEqual([
      {
        id: 's1',
        name: 'Tower A',
        designs: [
          { id: 'd1', name: 'Level 1' },
          { id: 'd2', name: 'Level 2, east' },
        ],
      },
      { id: 's2', name: 'Annex', designs: [] },
    ]);
  });

  it('names the CSV line that is wrong', () => {
    const bad = (text: string) => () => parseCatalog(text, 'x.CSV');
    expect(
      bad('structure_id,structure_name,design_id,design_name\ns1,Tower A,d1,Level 1\ns1,Tower B,d2,Level 2\n'),
    ).toThrow(new CatalogError('Line 3: structure s1 is named "Tower B" here but "Tower A" above.'));
    expect(bad('structure_id,structure_name,design_id,design_name\ns1,Tower A,d1,\n')).toThrow(
      'Line 2: a design needs both design_id and design_name',
    );
    expect(bad('structure_id,structure_name,design_id,design_name\n,Tower A,,\n')).toThrow(
      'Line 2: structure_id and structure_name are both needed.',
    );
    expect(bad('id,name\ns1,Tower A\n')).toThrow(
      'Line 1: the header needs the columns structure_id, structure_name, design_id, design_name; missing',
    );
  });

  it('reads JSON as an array or under "structures", and names the entry that is wrong', () => {
    const list = [{ id: 's1', name: 'Tower A', designs: [{ id: 'd1', name: 'Level 1' }] }];
    expect(parseCatalog(JSON.stringify(list), 'a.json')).toEqual(list);
    expect(parseCatalog(JSON.stringify({ structures: list }), 'a.json')).toEqual(list);
    expect(() =>
      parseCatalog(JSON.stringify([{ id: 's1', name: 'Tower A', designs: [{ id: '', name: 'L1' }] }]), 'a.json'),
    ).toThrow(/^Entry \[0\]\.designs\[0\]\.id: /);
    expect(() => parseCatalog('{"structures": [', 'a.json')).toThrow(/^Not valid JSON/);
    expect(() => parseCatalog(JSON.stringify([...list, ...list]), 'a.json')).toThrow(
      'Entry [1]: structure s1 appears twice.',
    );
    expect(() => parseCatalog('x', 'a.xlsx')).toThrow('a.xlsx: only .csv and .json files can be imported.');
  });
});

describe('mergeCatalog', () => {
  it('lets the office names win by id, keeps the others and adds new ones at the end', () => {
    const current = [
      { id: 's1', name: 'Old name', designs: [] },
      { id: 's9', name: 'Kept', designs: [] },
      { id: '', name: 'half typed', designs: [] },
    ];
    const imported = parseCatalog(csv, 'office.csv');
    expect(mergeCatalog(current, imported).map((s) => `${s.id}:${s.name}:${s.designs.length}`)).toEqual([
      's1:Tower A:2',
      's9:Kept:0',
      's2:Annex:0',
    ]);
  });
});
