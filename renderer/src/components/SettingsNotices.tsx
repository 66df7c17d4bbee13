import type { SettingsView } from '../../../shared/ipc.js';

/**
 * What the Settings screen says before its form: the welcome on the first run (offering the local
 * test service only where it is built in), and that no password can be saved on a computer without
 * secure storage.
 */
export function SettingsNotices({
  firstRun,
  settings,
}: {
  firstRun: boolean;
  settings: Pick<SettingsView, 'localServiceAvailable' | 'encryptionAvailable'>;
}) {
  return (
    <>
      {firstRun && (
        <section className="welcome">
          <h2>Welcome</h2>
          {settings.localServiceAvailable ? (
            <p>
              Enter the capture service details your administrator gave you. To try the app first without an account,
              use the local test service below the form.
            </p>
          ) : (
            // The packaged app does not contain the local test service; only a checkout of the repository has it.
            <p>Enter the capture service details your administrator gave you.</p>
          )}
        </section>
      )}
      {!settings.encryptionAvailable && (
        <p className="error" role="alert">
          This computer offers no secure storage for passwords, so the password and API key cannot be saved. Start a
          keyring (GNOME Keyring or KWallet) and reopen the app.
        </p>
      )}
    </>
  );
}
