import type { IHasher } from 'hash-wasm'
import { keccak256 } from 'viem'

// keccak256 for the hot hashes (an order's struct hash, digest and nonce take about ten permutations): a WebAssembly
// keccak costs a tenth of viem's JavaScript one. It is compiled on first use, in the background (importing it at
// startup would cost every command its load); until it is ready, and if it cannot load, viem hashes. Same digest.

let wasm: IHasher | undefined
let loading: Promise<void> | undefined

/** Starts compiling the WebAssembly keccak (once); resolves when it is ready or failed to load. */
export function loadKeccak(): Promise<void> {
  loading ??= import('hash-wasm')
    .then(({ createKeccak }) => createKeccak(256))
    .then(
      (hasher) => {
        wasm = hasher
      },
      () => undefined,
    )
  return loading
}

function hasher(): IHasher | undefined {
  if (wasm === undefined) void loadKeccak()
  return wasm
}

/** keccak256 of bytes, as bytes. */
export function keccak256Bytes(data: Uint8Array): Uint8Array {
  const compiled = hasher()
  return compiled ? compiled.init().update(data).digest('binary') : keccak256(data, 'bytes')
}

/** keccak256 of bytes, as 0x-prefixed hex. */
export function keccak256Hex(data: Uint8Array): `0x${string}` {
  const compiled = hasher()
  return compiled ? `0x${compiled.init().update(data).digest('hex')}` : keccak256(data)
}
