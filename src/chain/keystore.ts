import { createCipheriv, createDecipheriv, pbkdf2, randomBytes, randomUUID, scrypt, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'
import { bytesToHex, type Hex, hexToBytes, keccak256 } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { z } from 'zod'
import { BaseError } from '../errors/base.js'
import { checkPrivateKey } from './private-key.js'

// Web3 Secret Storage v3: a key derived from the password (scrypt, or pbkdf2 in files made by other tools) encrypts
// the private key with aes-128-ctr under its first 16 bytes; keccak256(last 16 bytes ‖ ciphertext) is the MAC that
// tells a wrong password from a right one.

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>
const pbkdf2Async = promisify(pbkdf2)

const hexString = (bytes?: number) =>
  z
    .string()
    .regex(
      bytes === undefined ? /^(0x)?([0-9a-fA-F]{2})+$/ : new RegExp(`^(0x)?[0-9a-fA-F]{${bytes * 2}}$`),
      `expected ${bytes ?? 'some'} bytes of hex`,
    )
    .transform((value) => Buffer.from(value.replace(/^0x/, ''), 'hex'))

const scryptParamsSchema = z
  .object({
    dklen: z.literal(32),
    salt: hexString(),
    // Bounded so that a hostile file cannot make decryption take gigabytes or hours.
    n: z
      .number()
      .int()
      .min(2)
      .max(2 ** 20)
      .refine((n) => (n & (n - 1)) === 0, 'expected a power of 2'),
    r: z.number().int().min(1).max(64),
    p: z.number().int().min(1).max(64),
  })
  // RFC 7914 requires N < 2^(16·r), and OpenSSL (node:crypto) refuses anything else. Every tool's default
  // (r = 8) is far inside; the Web3 Secret Storage document's own scrypt example (r = 1, N = 2^18) is not.
  .refine(({ n, r }) => Math.log2(n) < 16 * r, { message: 'N must be below 2^(16·r) (RFC 7914)', path: ['n'] })

const pbkdf2ParamsSchema = z.object({
  dklen: z.literal(32),
  salt: hexString(),
  c: z.number().int().min(1).max(10_000_000),
  prf: z.literal('hmac-sha256'),
})

const cryptoSchema = z.intersection(
  z.object({
    cipher: z.literal('aes-128-ctr'),
    cipherparams: z.object({ iv: hexString(16) }),
    ciphertext: hexString(32),
    mac: hexString(32),
  }),
  z.discriminatedUnion('kdf', [
    z.object({ kdf: z.literal('scrypt'), kdfparams: scryptParamsSchema }),
    z.object({ kdf: z.literal('pbkdf2'), kdfparams: pbkdf2ParamsSchema }),
  ]),
)

/** A v3 keystore file; some tools write the `Crypto` member capitalised. */
export const keystoreSchema = z
  .looseObject({
    version: z.literal(3),
    id: z.string().optional(),
    address: z
      .string()
      .regex(/^(0x)?[0-9a-fA-F]{40}$/)
      .optional(),
    crypto: cryptoSchema.optional(),
    Crypto: cryptoSchema.optional(),
  })
  .refine((file) => (file.crypto ?? file.Crypto) !== undefined, 'expected a crypto member')

/** The JSON written to a keystore file. */
export type KeystoreJson = {
  version: 3
  id: string
  /** Lowercase hex without 0x, as other tools write it. */
  address: string
  crypto: {
    cipher: 'aes-128-ctr'
    cipherparams: { iv: string }
    ciphertext: string
    kdf: 'scrypt'
    kdfparams: { dklen: 32; salt: string; n: number; r: number; p: number }
    mac: string
  }
}

export type CreateKeystoreOptions = {
  /** scrypt cost; default 2^18 as geth's standard. Lower only for tests. */
  scryptN?: number | undefined
  scryptR?: number | undefined
  scryptP?: number | undefined
}

/** Encrypts a private key into a v3 keystore (scrypt, aes-128-ctr, keccak MAC) that geth, foundry and ethers read. */
export async function createKeystore(privateKey: Hex, password: string, options: CreateKeystoreOptions = {}): Promise<KeystoreJson> {
  const key = checkPrivateKey(privateKey)
  const [n, r, p] = [options.scryptN ?? 2 ** 18, options.scryptR ?? 8, options.scryptP ?? 1]
  const salt = randomBytes(32)
  const iv = randomBytes(16)
  const derived = await scryptAsync(password, salt, 32, { N: n, r, p, maxmem: scryptMemory(n, r, p) })
  const plaintext = Buffer.from(hexToBytes(key))
  const cipher = createCipheriv('aes-128-ctr', derived.subarray(0, 16), iv)
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()])
  const mac = macOf(derived, ciphertext)
  derived.fill(0)
  plaintext.fill(0)
  return {
    version: 3,
    id: randomUUID(),
    address: privateKeyToAddress(key).slice(2).toLowerCase(),
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: iv.toString('hex') },
      ciphertext: ciphertext.toString('hex'),
      kdf: 'scrypt',
      kdfparams: { dklen: 32, salt: salt.toString('hex'), n, r, p },
      mac: mac.toString('hex'),
    },
  }
}

/**
 * The private key of a v3 keystore. A malformed file is a KeystoreFormatError; a wrong password (or a corrupted
 * file) a KeystoreDecryptionError. Neither carries key material.
 */
export async function decryptKeystore(json: unknown, password: string): Promise<Hex> {
  const parsed = keystoreSchema.safeParse(json)
  const crypto = parsed.success ? (parsed.data.crypto ?? parsed.data.Crypto) : undefined
  if (!parsed.success || !crypto) {
    const issues = parsed.success
      ? ['crypto: missing']
      : parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    throw new KeystoreFormatError(issues)
  }
  const derived =
    crypto.kdf === 'scrypt'
      ? await scryptAsync(password, crypto.kdfparams.salt, 32, {
          N: crypto.kdfparams.n,
          r: crypto.kdfparams.r,
          p: crypto.kdfparams.p,
          maxmem: scryptMemory(crypto.kdfparams.n, crypto.kdfparams.r, crypto.kdfparams.p),
        })
      : await pbkdf2Async(password, crypto.kdfparams.salt, crypto.kdfparams.c, 32, 'sha256')
  const expectedMac = macOf(derived, crypto.ciphertext)
  if (!timingSafeEqual(expectedMac, crypto.mac)) {
    derived.fill(0)
    throw new KeystoreDecryptionError('the password is wrong, or the file is corrupted (the MAC does not match)')
  }
  const decipher = createDecipheriv('aes-128-ctr', derived.subarray(0, 16), crypto.cipherparams.iv)
  const plaintext = Buffer.concat([decipher.update(crypto.ciphertext), decipher.final()])
  derived.fill(0)
  const key = bytesToHex(plaintext)
  plaintext.fill(0)
  let address: string
  try {
    address = privateKeyToAddress(checkPrivateKey(key))
  } catch {
    throw new KeystoreDecryptionError('the decrypted bytes are not a valid private key')
  }
  const stated = parsed.data.address
  if (stated !== undefined && stated.replace(/^0x/, '').toLowerCase() !== address.slice(2).toLowerCase()) {
    throw new KeystoreDecryptionError(`the file names address 0x${stated.replace(/^0x/, '')}, but its key belongs to ${address}`)
  }
  return key
}

function macOf(derived: Buffer, ciphertext: Buffer): Buffer {
  return Buffer.from(hexToBytes(keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext]))))
}

/** node:crypto refuses scrypt above 32 MiB unless told; scrypt needs 128·r·(N + p + 2) bytes. */
function scryptMemory(n: number, r: number, p: number): number {
  return 128 * r * (n + p + 2) + 1024 * 1024
}

/** The keystore file is not a v3 keystore. Fatal: the user points the configuration at the right file. */
export class KeystoreFormatError extends BaseError {
  override name = 'KeystoreFormatError' as const
  constructor(issues: string[]) {
    super('The keystore is not a Web3 Secret Storage v3 file', {
      details: { issues: issues.join('; ') },
      hint: 'Point the configuration at a v3 JSON keystore file (scrypt or pbkdf2, aes-128-ctr), as wallets such as cast or geth export them.',
      errorClass: 'fatal',
    })
  }
}

/** The keystore cannot be decrypted with this password. Fatal: the user supplies the right password or file. */
export class KeystoreDecryptionError extends BaseError {
  override name = 'KeystoreDecryptionError' as const
  constructor(reason: string) {
    super(`Cannot decrypt the keystore: ${reason}`, {
      hint: 'Check the keystore password (DELTAFLOW_KEYSTORE_PASSWORD or the prompt) and that the file is the one you created.',
      errorClass: 'fatal',
    })
  }
}
