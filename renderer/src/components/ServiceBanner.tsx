import { useEffect, useState } from 'react';
import type { ServiceStatus } from '../../../shared/ipc.js';
import { api } from '../api.js';

/**
 * Says when the upload service could not open its queue: what is wrong and what
 * to do, in the service's own sentences (they name the folder). Shown above every screen, so
 * Settings stays usable; an alert, since nothing uploads until it is dealt with.
 */
export function ServiceBanner() {
  const [status, setStatus] = useState<ServiceStatus | null>(null);
  useEffect(() => {
    const off = api.on('capture:event.service', setStatus);
    void api['service.status']().then((r) => r.ok && setStatus((s) => s ?? r.value));
    return off;
  }, []);
  if (!status?.queueError) return null;
  // A queue another process holds is waited for (main/service/queue-error.ts): it opens by itself.
  const waiting = /; waiting\./.test(status.queueError);
  return (
    <div className="banner failed" role="alert" data-testid="service-error">
      <div>
        <strong>{waiting ? 'Uploads wait for the queue.' : 'Uploads cannot start.'}</strong> {status.queueError}
      </div>
    </div>
  );
}
