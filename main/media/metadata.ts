import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { createFile, MP4BoxBuffer } from 'mp4box';
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import type { MediaFacts } from '../intake/intake.js';

/**
 * What the app reads from a recording. `createdAt` ISO 8601 UTC (the MP4 header's creation time,
 * which carries no zone and is UTC by the format's definition), `durationSeconds` and
 * `frameRate` from the container, `width`/`height` in pixels of the video track; `camera` from
 * the Insta360 trailer of an `.insv`.
 */
export interface MediaMetadata {
  createdAt?: string;
  durationSeconds?: number;
  frameRate?: number;
  width?: number;
  height?: number;
  camera?: { model?: string; serialNumber?: string; firmware?: string };
}

const MAX_MOOV = 64 * 1024 * 1024;
// Top-level boxes walked before `moov` is given up for: a camera file has three or four (ftyp,
// moov, mdat, free or uuid), a fragmented one a moof/mdat pair per fragment after its moov. Each
// step reads 16 bytes; without a bound a damaged file of 8-byte boxes takes one read per 8 bytes
// of its size (docs/media-readers.md).
const MAX_TOP_LEVEL_BOXES = 4096;

async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}

/**
 * Finds the top-level `ftyp` and `moov` boxes by walking box headers (never reading `mdat`, which
 * for a camera file comes first and is gigabytes long) and returns them back to back. At most
 * MAX_TOP_LEVEL_BOXES steps, each moving forward by at least a box header (8 bytes); undefined when
 * no `moov` is found within them. Throws when `ftyp` or `moov` is larger than 64 MiB. Also read by
 * the thumbnails' decode plan (decode-plan.ts).
 */
export async function headerBoxes(fh: FileHandle, fileSize: number): Promise<Buffer | undefined> {
  const found: Buffer[] = [];
  let pos = 0;
  for (let step = 0; step < MAX_TOP_LEVEL_BOXES && pos + 8 <= fileSize; step++) {
    const head = await readAt(fh, pos, 16);
    let size = head.readUInt32BE(0);
    const type = head.toString('latin1', 4, 8);
    let headerLen = 8;
    if (size === 1) {
      size = Number(head.readBigUInt64BE(8));
      headerLen = 16;
    } else if (size === 0) size = fileSize - pos;
    if (size < headerLen || !/^[\x20-\x7e]{4}$/.test(type)) break; // not a box: the end of the MP4 part (an Insta360 trailer follows)
    if (type === 'ftyp' || type === 'moov') {
      if (size > MAX_MOOV) throw new Error(`The ${type} box is ${size} bytes, more than this reader accepts`);
      found.push(await readAt(fh, pos, size));
      if (type === 'moov') return Buffer.concat(found);
    }
    pos += size;
  }
  return undefined;
}

/** Parses the MP4 container (ISO BMFF; INSV files are MP4 too) with mp4box.js. Throws when it is not one. */
async function readContainer(fh: FileHandle, fileSize: number): Promise<Omit<MediaMetadata, 'camera'>> {
  const boxes = await headerBoxes(fh, fileSize);
  if (!boxes) throw new Error('No moov box: not an MP4 container, or an unfinished recording');
  const mp4 = createFile();
  let info: ReturnType<typeof mp4.getInfo> | undefined;
  let error: string | undefined;
  mp4.onReady = (i) => (info = i);
  mp4.onError = (_module: string, message: string) => (error = message);
  const ab = boxes.buffer.slice(boxes.byteOffset, boxes.byteOffset + boxes.byteLength) as ArrayBuffer;
  mp4.appendBuffer(MP4BoxBuffer.fromArrayBuffer(ab, 0));
  mp4.flush();
  if (!info) throw new Error(`The MP4 header could not be read${error ? `: ${error}` : ''}`);
  const video = info.videoTracks[0];
  const created =
    info.created instanceof Date && !Number.isNaN(info.created.getTime()) && info.created.getUTCFullYear() > 1970
      ? info.created
      : undefined;
  const frameRate =
    video && video.samples_duration ? (video.nb_samples * video.timescale) / video.samples_duration : undefined;
  return {
    createdAt: created?.toISOString(),
    durationSeconds: info.timescale ? info.duration / info.timescale : undefined,
    frameRate: frameRate ? Math.round(frameRate * 100) / 100 : undefined,
    width: video?.video?.width,
    height: video?.video?.height,
  };
}

// The Insta360 trailer (as documented by the insvtools project): the file ends with 32 unknown
// bytes, the trailer size and version (little-endian 32-bit), and this 32-character signature.
// Before it, frames are stacked back to front, each followed by a 6-byte header: version, type,
// size. Frame type 1 (info) is a protobuf whose fields 1, 2, 3 are serial number, camera, firmware.
//
// A camera writes a dozen frame types, each once, and some empty (size 0) ones among them: the walk
// takes at most MAX_FRAMES steps, ends at a header of zeros (type 0: no frame; a trailer of zeros
// would otherwise move back 6 bytes per step over its whole claimed size), and reads an info frame
// of at most MAX_INFO_FRAME bytes (a real one is a few hundred). docs/media-readers.md.
const SIGNATURE = '8db42d694ccc418790edff439fe026bf';
const TAIL = 72;
const FRAME_HEADER = 6;
const INFO_FRAME = 1;
const MAX_FRAMES = 64;
const MAX_INFO_FRAME = 64 * 1024;

/**
 * Reads the camera model, serial number and firmware from an Insta360 trailer, reading the file's
 * tail only. Undefined when there is no trailer, or it is damaged: a size field outside the file,
 * a header of zeros, a frame reaching outside the trailer, an info frame over 64 KiB, or no info
 * frame within the first 64 frames. Throws only what reading the file throws.
 */
async function readTrailer(fh: FileHandle, fileSize: number): Promise<MediaMetadata['camera']> {
  if (fileSize < TAIL) return undefined;
  const tail = await readAt(fh, fileSize - TAIL, TAIL);
  if (tail.toString('latin1', 40, 72) !== SIGNATURE) return undefined;
  const trailerSize = tail.readUInt32LE(32);
  if (trailerSize < TAIL || trailerSize > fileSize) return undefined;
  const start = fileSize - trailerSize;
  let pos = fileSize - TAIL;
  for (let step = 0; step < MAX_FRAMES && pos - FRAME_HEADER >= start; step++) {
    const h = await readAt(fh, pos - FRAME_HEADER, FRAME_HEADER);
    const type = h.readUInt8(1);
    const size = h.readUInt32LE(2);
    if (type === 0) return undefined;
    const frameStart = pos - FRAME_HEADER - size;
    if (frameStart < start) return undefined;
    if (type === INFO_FRAME)
      return size <= MAX_INFO_FRAME ? parseInfoFrame(await readAt(fh, frameStart, size)) : undefined;
    pos = frameStart;
  }
  return undefined;
}

/** The camera facts of an info frame (protobuf fields 1–3); undefined when its bytes are not a valid protobuf (a damaged frame). */
function parseInfoFrame(buf: Uint8Array): MediaMetadata['camera'] {
  try {
    return readInfoFields(buf);
  } catch {
    return undefined;
  }
}

function readInfoFields(buf: Uint8Array): MediaMetadata['camera'] {
  const r = new BinaryReader(buf);
  const out: NonNullable<MediaMetadata['camera']> = {};
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (wire === WireType.LengthDelimited && field >= 1 && field <= 3) {
      const s = r.string();
      if (field === 1) out.serialNumber = s;
      else if (field === 2) out.model = s;
      else out.firmware = s;
    } else r.skip(wire, field);
  }
  return out;
}

/**
 * Reads a recording's metadata, opening it read-only: the MP4 container (creation time,
 * duration, frame rate, size) and, for an `.insv`, the camera facts of its trailer.
 * Throws Error when the file cannot be opened or is not an MP4 container.
 */
export async function readMediaMetadata(path: string): Promise<MediaMetadata> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const container = await readContainer(fh, size);
    const camera = await readTrailer(fh, size);
    return { ...container, ...(camera ? { camera } : {}) };
  } finally {
    await fh.close();
  }
}

/** The facts capture intake uses (creation time, frame rate, camera model and serial number, duration). Throws like readMediaMetadata. */
export async function readMediaFacts(path: string): Promise<MediaFacts> {
  const m = await readMediaMetadata(path);
  return {
    createdAt: m.createdAt,
    frameRate: m.frameRate,
    cameraModel: m.camera?.model,
    serialNumber: m.camera?.serialNumber,
    durationSeconds: m.durationSeconds,
  };
}
