import type { QueueCapture } from '../../../../shared/ipc.js';
import { useApp } from '../../store.js';

/**
 * A capture's actions in the queue: "To front" / "Move back" while it still has files to send
 * (its uploads go first, at once), and Remove, confirmed, for the whole capture (`count` files).
 */
export function CaptureRowActions({ capture: c, done, count }: { capture: QueueCapture; done: number; count: number }) {
  const remove = useApp((s) => s.removeCapture);
  const move = useApp((s) => s.moveCapture);
  const front = (c.priority ?? 0) > 0;
  return (
    <div className="actions">
      {c.state !== 'completed' && done < count && (
        // "The site manager needs floor 3 first": its uploads go first, at once.
        <button
          className="link"
          aria-label={
            front ? `Move ${c.label} back to its place in the queue` : `Move ${c.label} to the front of the queue`
          }
          onClick={() => void move(c.id, !front)}
        >
          {front ? 'Move back' : 'To front'}
        </button>
      )}
      <button
        className="link"
        aria-label={`Remove capture ${c.label}`}
        onClick={() => {
          // The capture is the unit the platform knows: its files go together, and only here.
          if (
            window.confirm(
              `Remove "${c.label}" (${count} file${count === 1 ? '' : 's'}) from this computer's upload queue? Nothing changes at the platform.`,
            )
          ) {
            void remove(c.id);
          }
        }}
      >
        Remove
      </button>
    </div>
  );
}
