// The CLI's output goes through the one escaping of shared/printable.ts: `printable` for people's
// lines, `printableJson` for `--json`.
export { printable, printableJson } from '../../shared/printable.js';
