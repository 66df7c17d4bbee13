import { SETTINGS, settingSpec, settingsIn } from '../../shared/settings-table.js';
import type { GatewayConfig } from '../api/gateway.js';
import type { CliSettings } from './setting-flags.js';

/**
 * The settings the gateway needs (capture-upload-interface.md, sign-in and registration): the
 * command line's required ones in the table (base URL, sign-in URL, API key, project, account).
 */
const GATEWAY_KEYS = settingsIn('cli').filter((k) => 'required' in SETTINGS[k]) as (keyof GatewayConfig &
  keyof CliSettings)[];

/**
 * The gateway configuration from the command line's settings (setting-flags.ts cliSettings: each
 * from its flag, else its `CAPTURE_*` variable, already checked by the table's rule). Throws Error
 * naming every missing setting and how to give it.
 */
export function resolveGatewayConfig(settings: CliSettings): GatewayConfig {
  const missing = GATEWAY_KEYS.filter((k) => settings[k] === '').map((k) => {
    const s = settingSpec(k);
    return `${s.env} (or ${s.flag!.split(' ')[0]})`;
  });
  if (missing.length) {
    throw new Error(
      `Missing settings: ${missing.join(', ')}. Set them in the environment, or run with --demo to use the local test service.`,
    );
  }
  return Object.fromEntries(GATEWAY_KEYS.map((k) => [k, settings[k]])) as unknown as GatewayConfig;
}
