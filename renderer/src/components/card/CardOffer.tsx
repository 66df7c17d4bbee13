import { useEffect } from 'react';
import { describeCard } from '../../../../shared/card-offer.js';
import { useCards } from '../../card-store.js';
import { ImportPanel } from './ImportPanel.js';
import './card.css';

/**
 * The cards mounted now and their imports (issue 19 #2, #3), above the drop zone: each Insta360
 * card is offered ("Insta360 card, 48 recordings, 96 GiB: Import") until it is imported, and
 * each import shows its progress, then "Card safe to remove" or the files that failed. A card
 * whose import finished is not offered again until that import is dismissed.
 */
export function CardOffer() {
  const cards = useCards((s) => s.cards);
  const imports = useCards((s) => s.imports);
  const startImport = useCards((s) => s.startImport);

  // The store follows the service's card events itself (card-store.ts); this reads what it missed before the window opened.
  useEffect(() => void useCards.getState().load(), []);

  const imported = new Set(imports.map((i) => i.card));
  const offered = cards.filter((c) => !imported.has(c.root));
  if (offered.length === 0 && imports.length === 0) return null;
  return (
    <section className="cards" aria-label="Cards">
      {offered.map((c) => (
        <div key={c.root} className="banner card-offer" data-testid="card-offer">
          <div>
            <strong>{describeCard(c)}</strong> <span className="card-where">{c.name} at {c.root}</span>
          </div>
          <button className="primary" aria-label={`Import ${c.name}`} onClick={() => void startImport(c.root)}>
            Import
          </button>
        </div>
      ))}
      {imports.map((i) => (
        <ImportPanel key={i.id} view={i} />
      ))}
    </section>
  );
}
