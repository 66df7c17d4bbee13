import { afterEach, beforeEach } from 'vitest';
import type { UploadQueue } from '../queue/queue.js';
import { tempQueue } from './kit.js';

/** A queue of its own for each test (see useQueueEachTest); read its fields inside a test or hook. */
export interface QueueEachTest {
  /** The current test's queue, migrated to the current version. */
  readonly queue: UploadQueue;
  /** The folder (absolute) holding its `queue.db`, deleted after the test. */
  readonly dir: string;
}

/**
 * Registers the hooks of a test file whose every test starts from an empty queue: a fresh
 * tempQueue(`prefix`) in `beforeEach`, closed and deleted in `afterEach`. Call it at the file's top
 * level (or a describe's); the returned fields throw when read outside a test.
 */
export function useQueueEachTest(prefix: string): QueueEachTest {
  let current: ReturnType<typeof tempQueue> | undefined;
  beforeEach(() => {
    current = tempQueue(prefix);
  });
  afterEach(() => {
    current?.close();
    current = undefined;
  });
  const now = (): ReturnType<typeof tempQueue> => {
    if (!current) throw new Error('the per-test queue is used outside a test');
    return current;
  };
  return {
    get queue() {
      return now().queue;
    },
    get dir() {
      return now().dir;
    },
  };
}
