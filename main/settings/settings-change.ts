import { createHmac, randomBytes } from 'node:crypto';
import type { GatewayConfig } from '../api/gateway.js';
import type { UploadQueue } from '../queue/queue.js';
import { clearRetryTimes } from '../queue/writer.js';

const FINGERPRINT = 'settingsFingerprint';
const SALT = 'settingsFingerprintSalt';

/**
 * Makes everything that waits for a retry time due at once when the queue is opened with other
 * settings than last time (an address, the API key, the project or the account): work that waited
 * on an unreachable or misconfigured service must not wait out the old backoff once the settings
 * are corrected. Queued captures and pending files lose their retry time; attempts
 * are kept. Only a keyed hash of the settings is stored (HMAC-SHA256, a random key per queue), never
 * a secret. Answers how many captures and files became due. Throws SqliteError when the queue
 * cannot be written.
 */
export function dueOnSettingsChange(queue: UploadQueue, config: GatewayConfig): { captures: number; files: number } {
  // Read, then written: begun immediate, so another process's commit in between waits, never fails.
  return queue.writeTransaction(() => {
    let salt = queue.meta.get<string>(SALT);
    if (!salt) {
      salt = randomBytes(16).toString('hex');
      queue.meta.set(SALT, salt);
    }
    const { baseUrl, authUrl, apiKey, projectId, email, password } = config;
    const print = createHmac('sha256', salt)
      .update(JSON.stringify([baseUrl, authUrl, apiKey, projectId, email, password]))
      .digest('hex');
    const previous = queue.meta.get<string>(FINGERPRINT);
    if (previous === print) return { captures: 0, files: 0 };
    queue.meta.set(FINGERPRINT, print);
    if (previous === undefined) return { captures: 0, files: 0 }; // first run with a fingerprint: nothing to compare
    return clearRetryTimes(queue.db);
  })();
}
