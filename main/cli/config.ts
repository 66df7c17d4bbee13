import { serviceUrlProblem } from '../../shared/service-url.js';
import type { GatewayConfig } from '../api/gateway.js';

/** Gateway settings as flags give them; each falls back to its environment variable. */
export interface GatewayFlags {
  baseUrl?: string;
  authUrl?: string;
  apiKey?: string;
  projectId?: string;
  email?: string;
  password?: string;
}

const SOURCES: [keyof GatewayConfig, string, string][] = [
  ['baseUrl', '--base-url', 'CAPTURE_BASE_URL'],
  ['authUrl', '--auth-url', 'CAPTURE_AUTH_URL'],
  ['apiKey', '--api-key', 'CAPTURE_API_KEY'],
  ['projectId', '--project-id', 'CAPTURE_PROJECT_ID'],
  ['email', '--email', 'CAPTURE_EMAIL'],
  ['password', '--password', 'CAPTURE_PASSWORD'],
];

/**
 * The gateway configuration from flags, else from `CAPTURE_*` environment variables.
 * Throws Error naming every missing setting and how to give it, or an address without its
 * http(s):// scheme.
 */
export function resolveGatewayConfig(flags: GatewayFlags, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const out: Partial<GatewayConfig> = {};
  const missing: string[] = [];
  for (const [key, flag, variable] of SOURCES) {
    const value = flags[key] ?? env[variable];
    if (!value) {
      missing.push(`${variable} (or ${flag})`);
      continue;
    }
    const problem = key.endsWith('Url') ? serviceUrlProblem(value) : undefined;
    if (problem) throw new Error(`${variable} (or ${flag}) is not a usable address: ${problem}.`);
    out[key] = key.endsWith('Url') ? value.replace(/\/+$/, '') : value;
  }
  if (missing.length) {
    throw new Error(
      `Missing settings: ${missing.join(', ')}. Set them in the environment, or run with --demo to use the local test service.`,
    );
  }
  return out as GatewayConfig;
}
