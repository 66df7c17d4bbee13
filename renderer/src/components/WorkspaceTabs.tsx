/** The workspaces of the top bar, in order: id and label. */
const TABS = [
  ['upload', 'Upload'],
  ['progress', 'Progress'],
  ['assets', 'Assets'],
  ['plan', 'Plan'],
  ['settings', 'Settings'],
] as const;
/** A workspace's id. */
export type Tab = (typeof TABS)[number][0];

/** The top bar's workspace tabs (WAI-ARIA tabs: arrow keys move between tabs, Home and End to the ends). */
export function WorkspaceTabs({ tab, setTab }: { tab: Tab; setTab: (t: Tab) => void }) {
  return (
    <nav
      role="tablist"
      aria-label="Workspaces"
      onKeyDown={(e) => {
        const i = TABS.findIndex(([t]) => t === tab);
        const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: TABS.length - 1 }[e.key];
        if (next === undefined) return;
        e.preventDefault();
        const [t] = TABS[(next + TABS.length) % TABS.length]!;
        setTab(t);
        document.getElementById(`tab-${t}`)?.focus();
      }}
    >
      {TABS.map(([t, label]) => (
        <button
          key={t}
          id={`tab-${t}`}
          role="tab"
          aria-selected={tab === t}
          tabIndex={tab === t ? 0 : -1}
          onClick={() => setTab(t)}
        >
          {label}
        </button>
      ))}
    </nav>
  );
}
