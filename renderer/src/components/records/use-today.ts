import { useEffect, useState } from 'react';
import { localDay } from './calendar.js';

// How often the day is read again besides midnight and focus (ms): a timer set for midnight fires
// late, or not at all, across a sleep; this bounds how long a woken laptop shows yesterday.
const RECHECK_MS = 60_000;

/**
 * Today's local day (YYYY-MM-DD), kept true while the app stays open overnight: read again just
 * after local midnight, when the window gains focus or becomes visible (a laptop woken from
 * sleep), and every minute. Progress entries carry a date without a zone
 * (progress-records-interface.md §2), so "today" is the person's local day.
 */
export function useToday(): string {
  const [today, setToday] = useState(() => localDay());
  useEffect(() => {
    const check = () => setToday(localDay());
    const now = new Date();
    const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1, 0, 0, 1).getTime() - now.getTime();
    const atMidnight = setTimeout(check, midnight);
    const every = setInterval(check, RECHECK_MS);
    window.addEventListener('focus', check);
    document.addEventListener('visibilitychange', check);
    return () => {
      clearTimeout(atMidnight);
      clearInterval(every);
      window.removeEventListener('focus', check);
      document.removeEventListener('visibilitychange', check);
    };
  }, [today]);
  return today;
}
