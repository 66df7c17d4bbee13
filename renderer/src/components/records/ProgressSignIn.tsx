import { useState } from 'react';
import { useApp } from '../../store.js';

/**
 * The settings screen's check of the progress service's own sign-in
 * (progress-records-interface.md §4 /v1/users/signin) with the saved account: says in a sentence
 * whether it signed in, or why not ("Invalid credentials" in plain words, never a raw error).
 * The workspace signs in by itself when a call answers 401; this lets the person
 * check the account after changing it.
 */
export function ProgressSignIn() {
  const [result, setResult] = useState<{ signedIn: boolean; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const checkProgressSignIn = useApp((s) => s.checkProgressSignIn);
  const check = async () => {
    setBusy(true);
    setResult(await checkProgressSignIn());
    setBusy(false);
  };
  return (
    <section className="progress-signin" aria-label="Progress service sign-in">
      <h2>Progress service</h2>
      <p className="muted">
        Entries and assets are read with the API key; when the service asks for it, the app signs in with the email and
        password above.
      </p>
      <button type="button" disabled={busy} onClick={() => void check()}>
        {busy ? 'Signing in…' : 'Check progress sign-in'}
      </button>
      <p role="status" data-testid="progress-signin" className={result && !result.signedIn ? 'error' : 'muted'}>
        {result?.message ?? ''}
      </p>
    </section>
  );
}
