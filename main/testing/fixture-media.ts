// The real fixtures' bytes made into other recordings for tests: the MP4 header's creation time
// set to the time a copy's file name says (main/intake/intake.ts takes the camera's clock from the
// name and names a header that disagrees with it).

/** Seconds between 1904-01-01 (the MP4 epoch) and 1970-01-01. */
const MP4_EPOCH = 2_082_844_800;

/**
 * A copy of `bytes` (an MP4 file whose movie header is version 0: 32-bit seconds since 1904) with
 * its mvhd creation time set to `digits` (`2023-11-21T20:17:00`) read as UTC. Throws Error when the
 * file has no version-0 mvhd box.
 */
export function withHeaderTime(bytes: Buffer, digits: string): Buffer {
  const copy = Buffer.from(bytes);
  const at = copy.indexOf('mvhd');
  if (at < 0 || copy[at + 4] !== 0) throw new Error('withHeaderTime: no version-0 mvhd box in these bytes');
  copy.writeUInt32BE(Date.parse(`${digits}Z`) / 1000 + MP4_EPOCH, at + 8);
  return copy;
}
