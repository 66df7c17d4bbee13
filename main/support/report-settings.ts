import type { SettingKey } from '../../shared/settings-table.js';
import { SETTING_KEYS, isSecretSetting, sealedName } from '../../shared/settings-table.js';

// The settings as a support report shows them (docs/decisions/0019-support-log-report.md): which are
// secrets is the settings table's own mark (shared/settings-table.ts `secret`), not a guess from
// a name; scrub.ts's names stay the net for what the table does not declare (sign-in tokens).

/** What a secret shows in a report: whether it is set, never its value. */
function secretShown(value: unknown): '(set)' | '(not set)' {
  return value === undefined || value === null || value === '' ? '(not set)' : '(set)';
}

/**
 * The table's settings in `given` (values by setting name, as flags, variables or the store give
 * them, parsed or not) as a report shows them, in the table's order: a secret only as "(set)" or
 * "(not set)", any other value as given, null when not given. Keys not in the table are left out.
 */
export function reportedSettings(given: Partial<Record<SettingKey, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    SETTING_KEYS.filter((k) => k in given).map((k) => [
      k,
      isSecretSetting(k) ? secretShown(given[k]) : (given[k] ?? null),
    ]),
  );
}

/** Whether `key` names a secret by the table's mark: a secret setting (`password`) or its sealed form (`sealedPassword`). */
export function isTableSecret(key: string): boolean {
  return isSecretSetting(key) || SETTING_KEYS.some((k) => isSecretSetting(k) && sealedName(k) === key);
}
