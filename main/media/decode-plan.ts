import { createFile, DataStream, Endianness, MP4BoxBuffer } from 'mp4box';
import { open } from 'node:fs/promises';
import { thumbnailTime } from '../../shared/thumbnail-time.js';
import { headerBoxes } from './metadata.js';

// What the window needs to decode one frame of a recording without a <video> element: the
// video track's decoder configuration (WebCodecs' VideoDecoderConfig: codec string, coded size,
// the avcC/hvcC box as `description`) and where in the file the samples from the keyframe at or
// before the thumbnail's time to that time lie. The window's decoding worker
// (renderer/src/thumbnail-worker.ts) fetches exactly those bytes from the loopback media server
// (media-server.ts) and decodes them off the page's main thread. Reading the plan costs the
// service the file's `moov` box, which the intake reads anyway (metadata.ts).

/** One coded video sample of a plan: its bytes in the file and its times (µs). */
interface PlanSample {
  /** Byte offset in the file. */
  offset: number;
  /** Bytes. */
  size: number;
  /** A keyframe (sync sample): decodable on its own. */
  key: boolean;
  /** Presentation time in µs. */
  timestampUs: number;
  durationUs: number;
}

/**
 * How to decode the thumbnail's frame of a video file: the decoder's configuration, the samples
 * to decode in decode order (a keyframe first), and the presentation time wanted (`atUs`): the
 * frame to draw is the last one at or before it.
 */
export interface DecodePlan {
  /** RFC 6381 codec string, as WebCodecs takes it (avc1.4d402a, hvc1.1.6.L153.B0 …). */
  codec: string;
  codedWidth: number;
  codedHeight: number;
  /** The codec's configuration box (avcC, hvcC, vpcC, av1C) without its header, base64; absent when the track has none. */
  description?: string;
  samples: PlanSample[];
  atUs: number;
}

/** A file that holds no video a thumbnail can be taken from: its content says so, so the verdict lasts. */
export class NoPictureError extends Error {}

/** The most bytes a plan decodes up to its time; beyond, its keyframe alone is decoded (a 5.7K recording's GOP is tens of MiB). */
const MAX_PLAN_BYTES = 8 * 1024 * 1024;

/**
 * The decode plan of the video at `path` (opened read-only): its first video track, the samples
 * from the last keyframe at or before shared/thumbnail-time.ts thumbnailTime (a second in) to that
 * time, or that keyframe alone when they come to more than `maxBytes`. Throws NoPictureError when
 * the file is not an MP4 container (no `moov`: random bytes, an unfinished recording) or holds no
 * video track; Error when its header cannot be parsed (the window may still try Chromium's
 * `<video>`) or the file cannot be read.
 */
export async function decodePlan(path: string, maxBytes = MAX_PLAN_BYTES): Promise<DecodePlan> {
  const fh = await open(path, 'r');
  let boxes: Buffer | undefined;
  try {
    boxes = await headerBoxes(fh, (await fh.stat()).size);
  } finally {
    await fh.close();
  }
  if (!boxes) throw new NoPictureError('No preview: not an MP4 container, or an unfinished recording');
  const mp4 = createFile();
  let info: ReturnType<typeof mp4.getInfo> | undefined;
  mp4.onReady = (i) => (info = i);
  mp4.onError = () => undefined;
  mp4.appendBuffer(
    MP4BoxBuffer.fromArrayBuffer(
      boxes.buffer.slice(boxes.byteOffset, boxes.byteOffset + boxes.byteLength) as ArrayBuffer,
      0,
    ),
  );
  mp4.flush();
  if (!info) throw new Error('The MP4 header could not be read');
  const track = info.videoTracks[0];
  if (!track) throw new NoPictureError('No preview: it holds no picture');
  const samples = mp4.getTrackSamplesInfo(track.id);
  if (samples.length === 0) throw new NoPictureError('No preview: its video track holds no frame');
  const scale = samples[0]!.timescale;
  // The recording's length as a <video> element says it (the movie's, over all its tracks).
  const seconds = info.timescale ? info.duration / info.timescale : track.duration / track.timescale;
  const target = thumbnailTime(seconds) * scale;
  // The last keyframe shown at or before the target, else the first one.
  let key = -1;
  for (let i = 0; i < samples.length; i++) if (samples[i]!.is_sync && (key < 0 || samples[i]!.cts <= target)) key = i;
  if (key < 0) key = 0;
  // Every sample decoded at or before the target (a frame is decoded no later than shown), up to the next keyframe.
  const picked = [samples[key]!];
  for (let i = key + 1; i < samples.length && !samples[i]!.is_sync && samples[i]!.dts <= target; i++)
    picked.push(samples[i]!);
  const bytes = picked.reduce((n, s) => n + s.size, 0);
  const chosen = bytes > maxBytes ? picked.slice(0, 1) : picked;
  const us = (t: number) => Math.round((t * 1_000_000) / scale);
  const entry = mp4.getTrackById(track.id).mdia.minf.stbl.stsd.entries[0] as unknown as Record<
    string,
    { write(s: DataStream): void } | undefined
  >;
  const config = entry.avcC ?? entry.hvcC ?? entry.vpcC ?? entry.av1C;
  let description: string | undefined;
  if (config) {
    const stream = new DataStream(undefined, 0, Endianness.BIG_ENDIAN);
    config.write(stream);
    // The box as written starts with its 8-byte header; the decoder takes its body.
    description = Buffer.from(stream.buffer as ArrayBuffer, 8).toString('base64');
  }
  return {
    codec: track.codec,
    codedWidth: track.video?.width ?? track.track_width,
    codedHeight: track.video?.height ?? track.track_height,
    ...(description ? { description } : {}),
    samples: chosen.map((s) => ({
      offset: s.offset,
      size: s.size,
      key: s.is_sync,
      timestampUs: us(s.cts),
      durationUs: us(s.duration),
    })),
    atUs: Math.round((target * 1_000_000) / scale),
  };
}
