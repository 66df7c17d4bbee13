import type { AppCore } from '../service/app-core.js';

/**
 * Registers one interior capture of `paths` from the app's side (the `capture:captures.register`
 * handler of `c`, as the window's form sends it): on the first structure the settings list and that
 * structure's first design, taken at `capturedAt` (ISO 8601). Resolves with the handler's answer;
 * throws what it throws (no structure listed: the settings are not set up).
 */
export async function registerOnFirstStructure(c: AppCore, paths: string[], capturedAt: string) {
  const structure = c.settings.view().structures[0];
  if (!structure) throw new Error('no structure listed: set the app up before registering');
  const h = c.handlers();
  return h['capture:captures.register']([
    { paths, structure: structure.id, design: structure.designs[0]!.id, type: 'interior', capturedAt },
  ]);
}
