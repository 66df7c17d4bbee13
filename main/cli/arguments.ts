import { InvalidArgumentError } from 'commander';
import ms from 'ms';

// The parsers of the command's arguments and option values (main/cli/index.ts), apart so the
// command's definition stays readable.

/** A duration such as 90s, 45m or 8h (ms's units; a plain number is seconds), in ms, above 0. Throws commander's InvalidArgumentError. */
export const duration = (v: string): number => {
  const n = /^\d+(\.\d+)?$/.test(v) ? Number(v) * 1000 : ms(v as ms.StringValue);
  if (!Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError('a duration such as 90s, 45m or 8h (plain numbers are seconds)');
  return n;
};
/** A queue row number given on the command line: a whole number of 1 or more. Throws Error naming it. */
export const rowId =
  (what: string) =>
  (v: string): number => {
    if (!/^[1-9]\d*$/.test(v))
      throw new Error(`${what} ${JSON.stringify(v)} is not a number shown by capture-uploader status`);
    return Number(v);
  };
