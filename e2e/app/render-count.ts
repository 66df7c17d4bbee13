import type { Page } from '@playwright/test';

/**
 * Counts, per row, how often React rendered the component that draws a table row, through the
 * hook React DOM reports every commit to (`__REACT_DEVTOOLS_GLOBAL_HOOK__`, the one React's
 * developer tools use; the production build calls it too). A row is a host `<tr>` with a
 * `data-key` and the `data-testid` given; the component counted is the nearest one above it whose
 * first element is that `<tr>`. A commit's fibers are walked as the developer tools walk them: a
 * subtree React did not clone this commit (its `child` is its previous version's) is skipped, and a
 * function component counts as rendered when React marked it as having performed work.
 *
 * Install before the page's first script (`page.addInitScript`, then load the page); read and reset
 * with rowRenders.
 */
export async function countRowRenders(page: Page, testId: string): Promise<void> {
  await page.addInitScript((id: string) => {
    type Fiber = {
      tag: number;
      flags: number;
      child: Fiber | null;
      sibling: Fiber | null;
      alternate: Fiber | null;
      memoizedProps: Record<string, unknown> | null;
    };
    const w = window as unknown as Record<string, unknown>;
    const counts: Record<string, number> = {};
    w.__rowRenders = counts;
    // React's fiber tags (ReactWorkTags) of components that run a function, and of an element.
    const COMPONENT = new Set([0, 11, 14, 15]);
    const HOST = 5;
    const PERFORMED_WORK = 1;
    const firstHost = (f: Fiber | null): Fiber | null => {
      while (f && f.tag !== HOST) f = f.child;
      return f;
    };
    const visit = (f: Fiber | null) => {
      for (; f; f = f.sibling) {
        const prev = f.alternate;
        if (COMPONENT.has(f.tag) && (prev === null || (f.flags & PERFORMED_WORK) !== 0)) {
          const host = firstHost(f.child);
          const props = host?.memoizedProps;
          if (host && props?.['data-testid'] === id && typeof props['data-key'] === 'string') {
            const key = props['data-key'];
            // Only the nearest component above the row (a memo wrapper and its function are one render).
            if (f.tag !== 14) counts[key] = (counts[key] ?? 0) + 1;
          }
        }
        // Not cloned in this commit: nothing under it rendered.
        if (prev !== null && f.child === prev.child) continue;
        visit(f.child);
      }
    };
    w.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
      supportsFiber: true,
      isDisabled: false,
      renderers: new Map(),
      inject: () => 1,
      onCommitFiberRoot: (_id: number, root: { current: Fiber }) => visit(root.current.child),
      onCommitFiberUnmount: () => undefined,
      onPostCommitFiberRoot: () => undefined,
      checkDCE: () => undefined,
    };
  }, testId);
}

/** The renders counted per row key since the last reset (countRowRenders); `reset` empties the counts after reading. */
export async function rowRenders(page: Page, reset = false): Promise<Record<string, number>> {
  return page.evaluate((r) => {
    const counts = (window as unknown as { __rowRenders: Record<string, number> }).__rowRenders;
    const copy = { ...counts };
    if (r) for (const k of Object.keys(counts)) delete counts[k];
    return copy;
  }, reset);
}
