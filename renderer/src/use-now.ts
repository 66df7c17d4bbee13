import { useEffect, useState } from 'react';

/**
 * The time now (ms since epoch), renewed every `ms` while `enabled`: so what is said relative to
 * now ("Retrying now", "next try any moment") stays true while nothing else re-renders the
 * component (a retry time is never shown in the past).
 */
export function useNow(ms: number, enabled = true): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!enabled) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms, enabled]);
  return now;
}
