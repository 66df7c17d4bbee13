import { useEffect, useState } from 'react';
import { APP_NAME } from '../../shared/app-info.js';
import { api } from './api.js';
import { CardOffer } from './components/card/CardOffer.js';
import { DesignBanner } from './components/DesignBanner.js';
import { DropZone } from './components/DropZone.js';
import { Notices } from './components/Notices.js';
import { QueueList } from './components/QueueList.js';
import { RegisterPanel } from './components/register/RegisterPanel.js';
import { AssetsView } from './components/records/AssetsView.js';
import { WorkspaceBoundary } from './components/WorkspaceBoundary.js';
import { onShowInQueue } from './components/records/queue-link.js';
import { ProgressWorkspace } from './components/records/ProgressWorkspace.js';
import { ServiceBanner } from './components/ServiceBanner.js';
import { Settings } from './components/Settings.js';
import { followCardEvents } from './cards-slice.js';
import { useApp } from './store.js';

const DESIGN_CHECK_MS = 15 * 60_000;

const TABS = [
  ['upload', 'Upload'],
  ['progress', 'Progress'],
  ['assets', 'Assets'],
  ['settings', 'Settings'],
] as const;
type Tab = (typeof TABS)[number][0];

/** The application's top-level screen: first run, settings, or the upload screen. */
export function App() {
  const settings = useApp((s) => s.settings);
  const [tab, setTab] = useState<Tab>('upload');
  // A capture linked from the office's day view: the Upload tab, where the queue scrolls to it.
  useEffect(() => onShowInQueue(() => setTab('upload')), []);

  useEffect(() => {
    const s = useApp.getState();
    void s.loadSettings().catch((err: unknown) => s.notify('error', String(err)));
    const offProgress = api.on('capture:event.progress', (p) => useApp.getState().applyProgress(p));
    const offRows = api.on('capture:event.rows', (p) => useApp.getState().applyRows(p));
    // Only when the queue was replaced as a whole (settings changed): read it again.
    const offQueue = api.on('capture:event.queue', () => void useApp.getState().loadQueue());
    const offNotice = api.on('capture:event.notice', (n) => useApp.getState().notify(n.level, n.message));
    const offPower = api.on('capture:event.power', (p) => useApp.getState().applyPower(p));
    const offCards = followCardEvents(useApp.getState);
    return () => {
      offCards();
      offPower();
      offProgress();
      offRows();
      offQueue();
      offNotice();
    };
  }, []);

  const configured = settings?.configured ?? false;
  useEffect(() => {
    if (!configured) return;
    const s = useApp.getState();
    void s.loadQueue();
    void s.checkDesigns();
    const timer = setInterval(() => void useApp.getState().checkDesigns(), DESIGN_CHECK_MS);
    return () => clearInterval(timer);
  }, [configured]);

  // The service's status shows even before the settings answer (a service that could not start).
  if (!settings)
    return (
      <main className="loading">
        <ServiceBanner />
        Starting…
      </main>
    );
  // Settings answers once its save and the queue's first read are done. By then the person may
  // already have gone to another tab (the tabs show as soon as the settings are configured): only a
  // person still on Settings is taken back to Upload. A full e2e run once lost an Assets click to this.
  const settingsDone = () => setTab((t) => (t === 'settings' ? 'upload' : t));
  const showSettings = !configured || tab === 'settings';
  return (
    <div className="app">
      <header className="topbar">
        <h1>{APP_NAME}</h1>
        {configured && (
          <nav
            role="tablist"
            aria-label="Workspaces"
            onKeyDown={(e) => {
              // WAI-ARIA tabs: arrow keys move between tabs, Home and End to the ends.
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
        )}
        {settings.mode === 'local' && configured && <span className="badge">Local test service</span>}
      </header>
      <div className="screen">
        <ServiceBanner />
        {showSettings ? (
          <Settings firstRun={!configured} onDone={settingsDone} />
        ) : tab === 'progress' ? (
          <WorkspaceBoundary key="progress" name="Progress">
            <ProgressWorkspace />
          </WorkspaceBoundary>
        ) : tab === 'assets' ? (
          <WorkspaceBoundary key="assets" name="Assets">
            <AssetsView />
          </WorkspaceBoundary>
        ) : (
          <main className="upload">
            <DesignBanner />
            <CardOffer />
            <DropZone />
            <RegisterPanel />
            <QueueList />
          </main>
        )}
      </div>
      <Notices />
    </div>
  );
}
