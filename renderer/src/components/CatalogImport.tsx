import { useId, useState } from 'react';
import type { ChangeEvent } from 'react';
import { mergeCatalog, parseCatalog } from '../../../shared/catalog.js';
import type { NamedStructure } from '../../../shared/ipc.js';

/**
 * Imports the structures and designs the office sends as a CSV or JSON file (formats in shared/catalog.ts) into the settings form: imported ids take the office's names,
 * the others stay. Nothing is saved until the form is. A file that cannot be read is named with
 * its line and the reason, and changes nothing.
 */
export function CatalogImport({ value, onChange }: { value: NamedStructure[]; onChange(v: NamedStructure[]): void }) {
  const id = useId();
  const [result, setResult] = useState<{ ok: boolean; text: string }>();
  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = ''; // the same file can be chosen again after it is fixed
    if (!file) return;
    try {
      const imported = parseCatalog(await file.text(), file.name);
      onChange(mergeCatalog(value, imported));
      const designs = imported.reduce((n, s) => n + s.designs.length, 0);
      setResult({
        ok: true,
        text: `Imported ${imported.length} structure${imported.length === 1 ? '' : 's'} and ${designs} design${designs === 1 ? '' : 's'} from ${file.name}. Save to keep them.`,
      });
    } catch (err) {
      setResult({ ok: false, text: `${file.name}: ${err instanceof Error ? err.message : String(err)}` });
    }
  };
  return (
    <div className="catalog-import">
      <label htmlFor={id}>Import from the office’s file (.csv or .json)</label>
      <input id={id} type="file" accept=".csv,.json,text/csv,application/json" onChange={(e) => void onFile(e)} />
      {result && (
        <p className={result.ok ? 'ok' : 'error'} role={result.ok ? 'status' : 'alert'} data-testid="catalog-result">
          {result.text}
        </p>
      )}
      <p className="muted">
        CSV columns: structure_id, structure_name, design_id, design_name — one row per design. JSON: [{'{'} id, name,
        designs: [{'{'} id, name {'}'}] {'}'}].
      </p>
    </div>
  );
}
