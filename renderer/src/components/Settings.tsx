import { useState } from 'react';
import type { NamedStructure } from '../../../shared/ipc.js';
import { useApp } from '../store.js';
import { LibrarySettings } from './card/LibrarySettings.js';
import { LoginStartSetting } from './LoginStartSetting.js';
import { SettingFields, formValues, initialForm } from './SettingFields.js';
import { SettingsNotices } from './SettingsNotices.js';
import { StructuresEditor } from './StructuresEditor.js';
import { UpdateFeedSetting } from './UpdateFeedSetting.js';
import { ProgressSignIn } from './records/ProgressSignIn.js';

/**
 * First-run and settings screen: the settings table's fields (SettingFields: addresses, account,
 * project, how uploads run), and named structures
 * and designs (typed, or imported from the office's file); once set up, the card imports,
 * start at login and the update feed; the local test service is offered after the form, as the secondary choice.
 */
export function Settings({ firstRun, onDone }: { firstRun: boolean; onDone(): void }) {
  const settings = useApp((s) => s.settings)!;
  const save = useApp((s) => s.saveSettings);
  const useLocal = useApp((s) => s.useLocalService);
  const [form, setForm] = useState(() => initialForm(settings));
  const [structures, setStructures] = useState<NamedStructure[]>(settings.structures);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await fn();
      onDone();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  const submit = () =>
    run(() =>
      save({
        ...formValues(form),
        structures: structures
          .filter((s) => s.id && s.name)
          .map((s) => ({ ...s, designs: s.designs.filter((d) => d.id && d.name) })),
      }),
    );
  return (
    <main className="settings">
      <SettingsNotices firstRun={firstRun} settings={settings} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <h2>Capture service</h2>
        <SettingFields form={form} view={settings} onChange={setForm} />
        <StructuresEditor value={structures} onChange={setStructures} />
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button className="primary" type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Save and sign in'}
        </button>
      </form>
      {settings.configured && <ProgressSignIn />}
      {settings.configured && <LibrarySettings />}
      {settings.configured && <LoginStartSetting />}
      {settings.configured && <UpdateFeedSetting />}
      {settings.localServiceAvailable && !(settings.mode === 'local' && settings.configured) && (
        <section className="local-choice" aria-label="Try without an account">
          <p className="muted">
            No account yet? Everything can be tried on this computer: uploads then stay here and reach no platform.
          </p>
          <button type="button" disabled={busy} onClick={() => void run(useLocal)}>
            Use the local test service
          </button>
        </section>
      )}
    </main>
  );
}
