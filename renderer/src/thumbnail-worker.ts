// The window's decoding worker (started by frame-decoder.ts): draws one frame of a video from the
// service's decode plan (main/media/decode-plan.ts) with WebCodecs, off the page's main thread.
// It fetches the plan's samples in one Range request from the loopback media server, decodes them
// from their keyframe, keeps the last frame shown at or before the plan's time, scales it to the
// thumbnail's width in an OffscreenCanvas and answers it as a JPEG `data:` URL.
import type { DecodeAnswer, DecodeJob } from './frame-decoder.js';

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<{ id: number; job: DecodeJob }>) => void) | null;
  postMessage(message: unknown): void;
};

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

scope.onmessage = (e) => {
  const { id, job } = e.data;
  void decode(job).then(
    (answer) => scope.postMessage({ id, answer }),
    (err: unknown) =>
      scope.postMessage({ id, answer: { ok: false, reason: `No preview yet: ${messageOf(err)}`, lasting: false } }),
  );
};

const fromBase64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** Decodes `job`'s frame (see the head of this file); never throws for what the file holds. */
async function decode(job: DecodeJob): Promise<DecodeAnswer> {
  if (typeof VideoDecoder === 'undefined' || typeof OffscreenCanvas === 'undefined')
    return { ok: false, reason: 'No preview yet: no WebCodecs here', lasting: false, unsupported: true };
  const config: VideoDecoderConfig = {
    codec: job.codec,
    codedWidth: job.codedWidth,
    codedHeight: job.codedHeight,
    ...(job.description ? { description: fromBase64(job.description) } : {}),
  };
  const support = await VideoDecoder.isConfigSupported(config).catch(() => ({ supported: false }));
  if (!support.supported)
    return {
      ok: false,
      reason: `No preview: its format or codec is not supported here (${job.codec})`,
      lasting: true,
      unsupported: true,
    };
  const first = Math.min(...job.samples.map((s) => s.offset));
  const end = Math.max(...job.samples.map((s) => s.offset + s.size));
  const res = await fetch(job.url, { headers: { Range: `bytes=${first}-${end - 1}` } });
  if (res.status !== 206 && res.status !== 200)
    return { ok: false, reason: `No preview yet: the file could not be read (HTTP ${res.status})`, lasting: false };
  const got = new Uint8Array(await res.arrayBuffer());
  const bytes = res.status === 200 ? got.subarray(first, end) : got;
  if (bytes.length < end - first)
    return { ok: false, reason: 'No preview: the file is shorter than its header says', lasting: true };

  // The frame kept: the last one shown at or before the plan's time, else the earliest after it.
  const kept: { frame?: VideoFrame; error?: string } = {};
  const better = (f: VideoFrame, than?: VideoFrame) =>
    !than ||
    (f.timestamp <= job.atUs
      ? than.timestamp > job.atUs || f.timestamp > than.timestamp
      : than.timestamp > job.atUs && f.timestamp < than.timestamp);
  const decoder = new VideoDecoder({
    output: (f) => {
      if (better(f, kept.frame)) {
        kept.frame?.close();
        kept.frame = f;
      } else f.close();
    },
    error: (err) => (kept.error = err.message),
  });
  try {
    decoder.configure(config);
    for (const s of job.samples)
      decoder.decode(
        new EncodedVideoChunk({
          type: s.key ? 'key' : 'delta',
          timestamp: s.timestampUs,
          duration: s.durationUs,
          data: bytes.subarray(s.offset - first, s.offset - first + s.size),
        }),
      );
    await decoder.flush();
  } catch (err) {
    kept.error ??= messageOf(err);
  } finally {
    if (decoder.state !== 'closed') decoder.close();
  }
  const frame = kept.frame;
  if (!frame)
    return {
      ok: false,
      reason: `No preview: it could not be decoded${kept.error ? ` (${kept.error})` : ''}`,
      lasting: true,
    };
  try {
    const height = Math.max(1, Math.round((job.width * frame.displayHeight) / frame.displayWidth));
    const canvas = new OffscreenCanvas(job.width, height);
    canvas.getContext('2d')!.drawImage(frame, 0, 0, job.width, height);
    const blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.85 });
    return { ok: true, jpeg: `data:image/jpeg;base64,${toBase64(new Uint8Array(await blob.arrayBuffer()))}` };
  } finally {
    frame.close();
  }
}
