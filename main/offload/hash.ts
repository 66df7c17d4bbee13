import xxhash from 'xxhash-wasm';

/** A running XXH64 (seed 0) over bytes given in order; `digest` gives 16 lower-case hex digits. */
export interface Xxh64 {
  update(bytes: Uint8Array): void;
  digest(): string;
}

let api: ReturnType<typeof xxhash> | undefined;

/**
 * Starts an XXH64 hash, the hash ASC MHL files and the offload tools (Hedge, ShotPut Pro,
 * Silverstack) write by default. The WebAssembly module is compiled once, on first use.
 */
export async function startXxh64(): Promise<Xxh64> {
  const { create64 } = await (api ??= xxhash());
  const h = create64();
  return {
    update: (bytes) => void h.update(bytes),
    digest: () => h.digest().toString(16).padStart(16, '0'),
  };
}
