import type { AppSecretKey, PlainAppKey, SettingValue } from '../../../shared/settings-table.js';
import { hasName, isSecretSetting, settingSpec, settingsIn } from '../../../shared/settings-table.js';
import type { SettingsView } from '../../../shared/ipc.js';

// The Settings screen's fields of the settings table (shared/settings-table.ts): one per setting
// that applies in the app, in the table's order, with its label, type and bounds. A secret is a
// password field that starts empty (its value never comes back to the window).

/** The fields' text as typed, by setting name: the app's plain settings and its secrets. */
export type SettingForm = Record<PlainAppKey | AppSecretKey, string>;

const APP_KEYS = settingsIn('app');

/** The form as it opens: each plain setting's value as the view has it, each secret empty. */
export function initialForm(view: SettingsView): SettingForm {
  return Object.fromEntries(
    APP_KEYS.map((k) => [k, isSecretSetting(k) ? '' : String(view[k as PlainAppKey])]),
  ) as SettingForm;
}

/**
 * The form's text as the settings to save (settingsInput): whole numbers as numbers, text as
 * typed (the service trims and checks it by the table's rule), a secret left empty left out (the
 * stored one kept).
 */
export function formValues(form: SettingForm): { [K in PlainAppKey]: SettingValue<K> } & {
  [K in AppSecretKey]?: string;
} {
  return Object.fromEntries(
    APP_KEYS.map((k) => {
      const text = form[k];
      if (isSecretSetting(k)) return [k, text || undefined];
      return [k, settingSpec(k).type === 'integer' ? Number(text) : text];
    }),
  ) as { [K in PlainAppKey]: SettingValue<K> } & { [K in AppSecretKey]?: string };
}

/** The input's type for a setting: a secret hidden, a whole number a number, an email an email. */
function inputType(key: PlainAppKey | AppSecretKey): string {
  if (isSecretSetting(key)) return 'password';
  const t = settingSpec(key).type;
  return t === 'integer' ? 'number' : t === 'email' ? 'email' : 'text';
}

/** The table's fields, each a labelled input bound to `form[key]`; a saved secret says so in its placeholder. */
export function SettingFields({
  form,
  view,
  onChange,
}: {
  form: SettingForm;
  view: SettingsView;
  onChange(next: SettingForm): void;
}) {
  return (
    <>
      {APP_KEYS.map((k) => {
        const s = settingSpec(k);
        const saved = isSecretSetting(k) && view[hasName(k)];
        return (
          <label key={k}>
            {s.label}
            <input
              type={inputType(k)}
              value={form[k]}
              placeholder={isSecretSetting(k) ? (saved ? 'saved — leave empty to keep it' : '') : undefined}
              onChange={(e) => onChange({ ...form, [k]: e.target.value })}
            />
          </label>
        );
      })}
    </>
  );
}
