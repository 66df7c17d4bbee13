import type { Migration } from './migration.js';
import { migration001 } from './001-captures-files-parts.js';
import { migration002 } from './002-sheet-exports.js';
import { migration003 } from './003-retry-schedule-and-activity.js';
import { migration004 } from './004-file-identity.js';
import { migration005 } from './005-stored-bytes.js';
import { migration006 } from './006-registration-sent-at.js';
import { migration007 } from './007-replaced-by.js';
import { migration008 } from './008-offloads.js';
import { migration009 } from './009-capture-priority.js';
import { migration010 } from './010-parts-unanswered.js';
import { migration011 } from './011-part-md5s.js';
import { migration012 } from './012-foreign-key-indexes.js';
import { migration013 } from './013-awaiting-copy.js';
import { migration014 } from './014-offload-state.js';
import { migration015 } from './015-captures-in-front.js';
import { migration016 } from './016-activity-warnings.js';
import { migration017 } from './017-changed-files.js';
import { migration018 } from './018-capture-plan.js';

export type { Migration } from './migration.js';

// Numbered migrations, one file each (NNN-what.ts), applied in order, never edited once shipped
// (Signal Desktop's practice): a change to the schema is a new file and a new entry at the end.
/** Every queue migration, in ascending version order (1..LATEST_VERSION, no gap). */
export const MIGRATIONS: readonly Migration[] = [
  migration001,
  migration002,
  migration003,
  migration004,
  migration005,
  migration006,
  migration007,
  migration008,
  migration009,
  migration010,
  migration011,
  migration012,
  migration013,
  migration014,
  migration015,
  migration016,
  migration017,
  migration018,
];

/** The schema version this build writes. */
export const LATEST_VERSION = MIGRATIONS.at(-1)!.version;
