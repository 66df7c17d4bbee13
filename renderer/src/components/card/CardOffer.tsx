import { useEffect } from 'react';
import { describeCard } from '../../../../shared/card-offer.js';
import { useApp } from '../../store.js';
import { ImportPanel } from './ImportPanel.js';
import './card.css';

/**
 * The cards mounted now and their imports, above the drop zone: each Insta360
 * card is offered ("Insta360 card, 48 recordings, 96 GiB: Import") until it is imported, and
 * each import shows its progress, then "Card safe to remove" or the files that failed. A card
 * whose import finished is not offered again until that import is dismissed. With "Upload straight
 * from the card" on in Settings the offer is "Upload from the card" instead: the
 * card's recordings go to the registration step at the card's own paths, with no copy, and the
 * card is not offered again while it stays mounted. A card the upload queue reads from (its
 * recordings queued from it, or waited for until it came back) is shown as in use instead of
 * offered, whatever this window remembers (main/service/cards-in-use.ts).
 */
export function CardOffer() {
  const cards = useApp((s) => s.cards);
  const imports = useApp((s) => s.imports);
  const startImport = useApp((s) => s.startImport);
  const fromCard = useApp((s) => s.uploadFromCard);
  const handedFromCard = useApp((s) => s.fromCard);
  const uploadStraight = useApp((s) => s.uploadStraight);

  // The window follows the service's card events (App, cards-slice.ts followCardEvents); this reads what it missed before.
  useEffect(() => void useApp.getState().loadCards(), []);
  // A card offered takes the focus when nothing has it: Import is the first stop, one key away.
  const firstOffered = cards.find((c) => !c.inUse && !imports.some((i) => i.card === c.root))?.root;
  useEffect(() => {
    if (!firstOffered) return;
    const active = document.activeElement;
    if (!active || active === document.body)
      document.querySelector<HTMLElement>('[data-testid="card-offer"] button')?.focus();
  }, [firstOffered]);

  const imported = new Set([...imports.map((i) => i.card), ...handedFromCard]);
  // A card the queue reads from (after a restart too) is shown as in use, never offered as new.
  const inUse = cards.filter((c) => c.inUse && !imported.has(c.root));
  const offered = cards.filter((c) => !imported.has(c.root) && !c.inUse);
  if (offered.length === 0 && inUse.length === 0 && imports.length === 0) return null;
  return (
    <section className="cards" aria-label="Cards">
      {inUse.map((c) => (
        <div key={c.root} className="banner card-in-use" data-testid="card-in-use" role="status">
          <strong>Card {c.name} in use</strong>: {inUseWords(c.inUse!)} Keep it in the reader until they finish.{' '}
          <span className="card-where">
            {describeCard(c)} at {c.root}
          </span>
        </div>
      ))}
      {offered.map((c) => (
        <div key={c.root} className="banner card-offer" data-testid="card-offer">
          <div>
            <strong>{describeCard(c)}</strong>{' '}
            <span className="card-where">
              {c.name} at {c.root}
            </span>
            {/* The sentence says which the button does: a verified copy first, or reading the card itself. */}
            <p className="card-how">
              {fromCard
                ? 'Uploads read straight from the card: keep it in the reader until they finish.'
                : 'Copied to the library folder and verified, then uploaded from the copies.'}
            </p>
          </div>
          {fromCard ? (
            <button
              className="primary"
              aria-label={`Upload from the card ${c.name}`}
              onClick={() => void uploadStraight(c.root)}
            >
              Upload from the card
            </button>
          ) : (
            <button className="primary" aria-label={`Import ${c.name}`} onClick={() => void startImport(c.root)}>
              Import
            </button>
          )}
        </div>
      ))}
      {imports.map((i) => (
        <ImportPanel key={i.id} view={i} />
      ))}
    </section>
  );
}

/** What a card in use is used for: "2 recordings upload from it.", "It is back: 1 recording waiting for it uploads from it." */
function inUseWords(u: { recordings: number; waited: boolean }): string {
  const what = `${u.recordings} recording${u.recordings === 1 ? '' : 's'}`;
  const verb = u.recordings === 1 ? 'uploads' : 'upload';
  return u.waited ? `It is back: ${what} waiting for it ${verb} from it.` : `${what} ${verb} from it.`;
}
