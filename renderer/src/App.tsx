import { useEffect, useState } from 'react';
import { APP_NAME } from '../../shared/app-info.js';
import { CardOffer } from './components/card/CardOffer.js';
import { DesignBanner } from './components/DesignBanner.js';
import { DropZone } from './components/DropZone.js';
import { Notices } from './components/Notices.js';
import { QueueList } from './components/QueueList.js';
import { RegisterPanel } from './components/register/RegisterPanel.js';
import { AssetsView } from './components/records/AssetsView.js';
import { WorkspaceBoundary } from './components/WorkspaceBoundary.js';
import type { Tab } from './components/WorkspaceTabs.js';
import { WorkspaceTabs } from './components/WorkspaceTabs.js';
import { onShowInQueue } from './components/records/queue-link.js';
import { ProgressWorkspace } from './components/records/ProgressWorkspace.js';
import { PlanPanel } from './components/plan/PlanPanel.js';
import { ServiceBanner } from './components/ServiceBanner.js';
import { Settings } from './components/Settings.js';
import { useApp } from './store.js';
import { useServiceEvents } from './use-service-events.js';

/** The application's top-level screen: first run, settings, or the upload screen. */
export function App() {
  const settings = useApp((s) => s.settings);
  const [tab, setTab] = useState<Tab>('upload');
  // A capture linked from the office's day view: the Upload tab, where the queue scrolls to it.
  useEffect(() => onShowInQueue(() => setTab('upload')), []);

  const configured = settings?.configured ?? false;
  useServiceEvents(configured);

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
        {configured && <WorkspaceTabs tab={tab} setTab={setTab} />}
        {settings.mode === 'local' && configured && <span className="badge">Local test service</span>}
      </header>
      <div className="screen">
        <ServiceBanner />
        {showSettings ? (
          <Settings firstRun={!configured} onDone={settingsDone} />
        ) : tab === 'progress' ? (
          <>
            {/* On every workspace: the field's sheets are stale whatever the office is looking at. */}
            <DesignBanner />
            <WorkspaceBoundary key="progress" name="Progress">
              <ProgressWorkspace />
            </WorkspaceBoundary>
          </>
        ) : tab === 'assets' ? (
          <>
            <DesignBanner />
            <WorkspaceBoundary key="assets" name="Assets">
              <AssetsView />
            </WorkspaceBoundary>
          </>
        ) : tab === 'plan' ? (
          <WorkspaceBoundary key="plan" name="Plan">
            <PlanPanel />
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
