import { describe, expect, it } from 'vitest';
import { CancelledError } from './errors.js';
import { CaptureGateway } from './gateway.js';

// A caller whose stop came before it asked to sign in (Ctrl-C or SIGTERM as a command starts) is
// answered CancelledError at once; the sign-in it would have shared must not fail later with no
// one listening, which Node reports as an unhandled rejection and ends the process with.
describe('CaptureGateway.signIn with a signal already aborted', () => {
  it('rejects with CancelledError and leaves no rejection unhandled when the sign-in then fails', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      // Port 9 on loopback: nothing listens, the sign-in fails at once (ECONNREFUSED).
      const gateway = new CaptureGateway(
        {
          baseUrl: 'http://127.0.0.1:9',
          authUrl: 'http://127.0.0.1:9',
          apiKey: 'k',
          projectId: 'p',
          email: 'a@example.com',
          password: 'pw',
        },
        { retry: { retries: 0, delayMs: () => 0 }, timeoutMs: 5_000 },
      );
      const stop = new AbortController();
      stop.abort(new Error('Stopped by SIGTERM'));
      await expect(gateway.signIn(stop.signal)).rejects.toBeInstanceOf(CancelledError);
      await new Promise((r) => setTimeout(r, 300));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
