import { writeFile } from 'node:fs/promises'
import { inspect } from 'node:util'
import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { createKeystore, KeystoreDecryptionError, KeystoreFormatError } from '../../src/chain/keystore.js'
import { writeKeystoreFile } from '../../src/chain/keystore-file.js'
import { loadAccount, MissingKeyError } from '../../src/chain/load-account.js'
import { InvalidPrivateKeyError } from '../../src/chain/private-key.js'
import { createLogger } from '../../src/log/logger.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

/** Keystores of throwaway keys, removed when the file ends. */
const files = createTempDirectory('deltaflow-account-')
afterAll(() => files.cleanup())
let keystoreFiles = 0

const fast = { scryptN: 2 ** 12 }

/** A logger writing JSON lines into memory. */
function memoryLogger() {
  const lines: string[] = []
  const logger = createLogger({ level: 'trace', destination: { write: (line: string) => lines.push(line) } })
  return { logger, text: () => lines.join('') }
}

async function keystoreFile(key: Hex, password: string): Promise<string> {
  const path = files.path(`key-${++keystoreFiles}.json`)
  await writeKeystoreFile(path, await createKeystore(key, password, fast))
  return path
}

/** Every rendering of the key that could leak: hex with and without 0x in both cases, the raw bytes, and any 12-digit run. */
function keyMaterial(key: Hex): string[] {
  const hex = key.slice(2)
  const bytes = Buffer.from(hex, 'hex')
  const runs = Array.from({ length: hex.length - 11 }, (_, start) => hex.slice(start, start + 12))
  return [key, hex, hex.toUpperCase(), bytes.toString('latin1'), bytes.toString('base64'), ...runs]
}

/** Everything an error shows: message, details, stack and its causes, as inspect prints them. */
function renderError(error: unknown): string {
  return `${String(error)}\n${JSON.stringify(error)}\n${inspect(error, { depth: 10 })}\n${(error as Error).stack ?? ''}`
}

function expectNoKeyMaterial(text: string, key: Hex): void {
  const lower = text.toLowerCase()
  for (const needle of keyMaterial(key)) {
    expect(lower.includes(needle.toLowerCase()), `leaked ${needle.length} characters of key material`).toBe(false)
  }
}

describe('loadAccount', () => {
  it('loads the account of DELTAFLOW_PRIVATE_KEY, with or without 0x', async () => {
    const key = generatePrivateKey()
    expect((await loadAccount({ env: { DELTAFLOW_PRIVATE_KEY: key } })).address).toBe(privateKeyToAddress(key))
    expect((await loadAccount({ env: { DELTAFLOW_PRIVATE_KEY: key.slice(2) } })).address).toBe(privateKeyToAddress(key))
  })

  it('loads the account of a keystore with its password, preferring it to the environment variable', async () => {
    const key = generatePrivateKey()
    const path = await keystoreFile(key, 'open sesame')
    const account = await loadAccount({
      keystorePath: path,
      env: { DELTAFLOW_KEYSTORE_PASSWORD: 'open sesame', DELTAFLOW_PRIVATE_KEY: generatePrivateKey() },
    })
    expect(account.address).toBe(privateKeyToAddress(key))
  })

  it('throws MissingKeyError when neither a keystore nor the variable is set', async () => {
    await expect(loadAccount({ env: {} })).rejects.toBeInstanceOf(MissingKeyError)
  })

  it('throws InvalidPrivateKeyError for a key one digit short', async () => {
    await expect(loadAccount({ env: { DELTAFLOW_PRIVATE_KEY: generatePrivateKey().slice(0, -1) } })).rejects.toThrow(
      /must be 64 hex digits \(optionally 0x-prefixed\), received 65 characters/,
    )
  })

  it('throws KeystoreDecryptionError for a wrong password', async () => {
    const path = await keystoreFile(generatePrivateKey(), 'right')
    await expect(loadAccount({ keystorePath: path, password: 'wrong' })).rejects.toBeInstanceOf(KeystoreDecryptionError)
  })

  it('throws MissingKeyError for a keystore without a password', async () => {
    const path = await keystoreFile(generatePrivateKey(), 'right')
    await expect(loadAccount({ keystorePath: path, env: {} })).rejects.toThrow(/needs a password/)
  })

  it('keeps key material out of every log line and every error of failed and successful loads', async () => {
    const key = generatePrivateKey()
    const { logger, text } = memoryLogger()
    const rawKeyFile = files.path('raw-key.json')
    await writeFile(rawKeyFile, `${key}\n`)
    const keystore = await keystoreFile(key, 'right')
    const otherKeystore = await createKeystore(key, 'right', fast)
    const renamedKeystore = files.path('renamed.json')
    await writeKeystoreFile(renamedKeystore, {
      ...otherKeystore,
      address: privateKeyToAddress(generatePrivateKey()).slice(2).toLowerCase(),
    })
    const failures: [string, () => Promise<unknown>, new (...args: never[]) => Error][] = [
      ['a key one digit short', () => loadAccount({ env: { DELTAFLOW_PRIVATE_KEY: key.slice(0, -1) }, logger }), InvalidPrivateKeyError],
      ['a key with a stray character', () => loadAccount({ env: { DELTAFLOW_PRIVATE_KEY: `${key}z` }, logger }), InvalidPrivateKeyError],
      ['a wrong keystore password', () => loadAccount({ keystorePath: keystore, password: 'wrong', logger }), KeystoreDecryptionError],
      ['a raw key saved as the keystore', () => loadAccount({ keystorePath: rawKeyFile, password: 'right', logger }), KeystoreFormatError],
      [
        'a keystore naming another address',
        () => loadAccount({ keystorePath: renamedKeystore, password: 'right', logger }),
        KeystoreDecryptionError,
      ],
    ]
    const rendered: string[] = []
    for (const [name, load, errorClass] of failures) {
      const error = await load().then(
        () => undefined,
        (caught: unknown) => caught,
      )
      expect(error, name).toBeInstanceOf(errorClass)
      rendered.push(renderError(error))
    }
    const account = await loadAccount({ keystorePath: keystore, password: 'right', logger })
    await loadAccount({ env: { DELTAFLOW_PRIVATE_KEY: key }, logger })
    logger.info({ account }, 'the account object itself')
    expect(text()).toContain(account.address)
    expect(text()).toContain('cannot load the signing account')
    expectNoKeyMaterial(text(), key)
    for (const output of rendered) expectNoKeyMaterial(output, key)
  })
})
