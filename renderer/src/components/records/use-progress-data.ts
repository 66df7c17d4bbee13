import { useCallback, useEffect, useState } from 'react';
import type { OutboxItemView, ProgressEntryView } from '../../../../shared/ipc.js';
import { api, unwrap } from '../../api.js';
import type { Freshness } from './ProgressHead.js';

// While offline or while entries wait, the service is tried again this often (ms).
const RETRY_MS = 15_000;

/**
 * The progress entries as the service answers them (progress.list, progress-records-interface.md):
 * the entries, how fresh they are, the outbox, why the read failed, whether a read is in flight,
 * and `load` to read again. Read at once, and again every RETRY_MS while offline or while entries wait.
 */
export function useProgressData() {
  const [entries, setEntries] = useState<ProgressEntryView[] | null>(null);
  const [fresh, setFresh] = useState<Freshness | null>(null);
  const [outbox, setOutbox] = useState<OutboxItemView[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);
  // A read in flight: Refresh says so at once, so a slow service never looks like a dead button.
  const [loading, setLoading] = useState(false);
  const load = useCallback(async () => {
    setLoading(true);
    try {
      const r = await unwrap(api['progress.list']({}));
      setEntries(r.entries);
      setFresh({ asOf: r.asOf, offline: r.offline, offlineReason: r.offlineReason, project: r.project });
      setOutbox(r.outbox);
      setLoadError(null);
    } catch (err) {
      setLoadError((err as Error).message);
    } finally {
      setLoading(false);
    }
  }, []);
  useEffect(() => void load(), [load]);
  const retrying = Boolean(fresh?.offline || loadError || outbox.some((i) => i.state === 'waiting'));
  useEffect(() => {
    if (!retrying) return;
    const timer = setInterval(() => void load(), RETRY_MS);
    return () => clearInterval(timer);
  }, [retrying, load]);
  return { entries, setEntries, fresh, setFresh, outbox, setOutbox, loadError, loading, load };
}
