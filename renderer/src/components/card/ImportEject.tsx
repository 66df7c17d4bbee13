import type { ImportView } from '../../../../shared/ipc.js';
import { useState } from 'react';
import { useApp } from '../../store.js';

/**
 * **Eject** beside "Card safe to remove" (main/card/eject.ts), and under it what it did, or what
 * to do when the card is busy.
 */
export function ImportEject({ view }: { view: ImportView }) {
  const eject = useApp((s) => s.ejectImport);
  const [ejecting, setEjecting] = useState(false);
  const [ejected, setEjected] = useState<{ ejected: boolean; message: string } | null>(null);
  const onEject = async () => {
    setEjecting(true);
    setEjected(await eject(view.id));
    setEjecting(false);
  };
  return (
    <div className="card-eject">
      <button
        aria-label={`Eject ${view.cardName}`}
        disabled={ejecting || ejected?.ejected === true}
        onClick={() => void onEject()}
      >
        Eject
      </button>
      {ejected && (
        <p
          role={ejected.ejected ? 'status' : 'alert'}
          className={ejected.ejected ? 'card-safe' : 'card-keep'}
          data-testid="card-eject"
        >
          {ejected.message}
        </p>
      )}
    </div>
  );
}
