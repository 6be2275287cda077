import { readFile, stat } from 'node:fs/promises'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { createKeystore, decryptKeystore, KeystoreDecryptionError, KeystoreFormatError } from '../../src/chain/keystore.js'
import { readKeystoreFile, writeKeystoreFile } from '../../src/chain/keystore-file.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

/** Keystores of throwaway keys, removed when the file ends. */
const files = createTempDirectory('deltaflow-keystore-')
afterAll(() => files.cleanup())

/** Fast scrypt for tests; the default cost is checked once below. */
const fast = { scryptN: 2 ** 12 }

// The PBKDF2-SHA-256 test vector of the Web3 Secret Storage definition (password "testpassword").
const pbkdf2SpecVector = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '6087dab2f9fdbbfaddc31a909735c1e6' },
    ciphertext: '5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46',
    kdf: 'pbkdf2',
    kdfparams: { c: 262144, dklen: 32, prf: 'hmac-sha256', salt: 'ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd' },
    mac: '517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
}

describe('createKeystore', () => {
  it('writes a v3 keystore with geth’s default scrypt cost that decrypts to the key', async () => {
    const key = generatePrivateKey()
    const keystore = await createKeystore(key, 'correct horse')
    expect(keystore).toMatchObject({
      version: 3,
      address: privateKeyToAddress(key).slice(2).toLowerCase(),
      crypto: { cipher: 'aes-128-ctr', kdf: 'scrypt', kdfparams: { dklen: 32, n: 262144, r: 8, p: 1 } },
    })
    expect(keystore.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(keystore.crypto.kdfparams.salt).toMatch(/^[0-9a-f]{64}$/)
    expect(keystore.crypto.cipherparams.iv).toMatch(/^[0-9a-f]{32}$/)
    expect(keystore.crypto.ciphertext).toMatch(/^[0-9a-f]{64}$/)
    expect(keystore.crypto.mac).toMatch(/^[0-9a-f]{64}$/)
    expect(await decryptKeystore(keystore, 'correct horse')).toBe(key)
  })

  it('uses a fresh salt and iv for every keystore of the same key', async () => {
    const key = generatePrivateKey()
    const [first, second] = await Promise.all([createKeystore(key, 'pw', fast), createKeystore(key, 'pw', fast)])
    expect(first.crypto.kdfparams.salt).not.toBe(second.crypto.kdfparams.salt)
    expect(first.crypto.cipherparams.iv).not.toBe(second.crypto.cipherparams.iv)
    expect(first.crypto.ciphertext).not.toBe(second.crypto.ciphertext)
  })

  it('never writes the key in clear', async () => {
    const key = generatePrivateKey()
    const text = JSON.stringify(await createKeystore(key, 'pw', fast))
    expect(text).not.toContain(key.slice(2))
  })
})

describe('decryptKeystore', () => {
  it('decrypts the PBKDF2 test vector of the Web3 Secret Storage definition', async () => {
    expect(await decryptKeystore(pbkdf2SpecVector, 'testpassword')).toBe(
      '0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d',
    )
  })

  it('reads the capitalised Crypto member some tools write', async () => {
    const { crypto, ...rest } = pbkdf2SpecVector
    expect(await decryptKeystore({ ...rest, Crypto: crypto }, 'testpassword')).toMatch(/^0x7a28b5ba/)
  })

  it('throws KeystoreDecryptionError for a wrong password', async () => {
    const keystore = await createKeystore(generatePrivateKey(), 'right', fast)
    await expect(decryptKeystore(keystore, 'wrong')).rejects.toBeInstanceOf(KeystoreDecryptionError)
  })

  it('throws KeystoreDecryptionError when the ciphertext was altered', async () => {
    const keystore = await createKeystore(generatePrivateKey(), 'pw', fast)
    const flipped = `${keystore.crypto.ciphertext.slice(0, -1)}${keystore.crypto.ciphertext.endsWith('0') ? '1' : '0'}`
    await expect(decryptKeystore({ ...keystore, crypto: { ...keystore.crypto, ciphertext: flipped } }, 'pw')).rejects.toThrow(
      /MAC does not match/,
    )
  })

  it('throws KeystoreDecryptionError when the file names another address than its key', async () => {
    const keystore = await createKeystore(generatePrivateKey(), 'pw', fast)
    const other = privateKeyToAddress(generatePrivateKey()).slice(2).toLowerCase()
    await expect(decryptKeystore({ ...keystore, address: other }, 'pw')).rejects.toThrow(
      /names address 0x[0-9a-f]{40}, but its key belongs to/,
    )
  })

  it('throws KeystoreFormatError naming every malformed field', async () => {
    const error = await decryptKeystore({ version: 3, crypto: { cipher: 'aes-256-gcm', kdf: 'scrypt' } }, 'pw').catch((caught) => caught)
    expect(error).toBeInstanceOf(KeystoreFormatError)
    expect(error.message).toMatch(/crypto\.cipher/)
    expect(error.message).toMatch(/crypto\.ciphertext/)
  })

  it('refuses scrypt parameters outside RFC 7914 as a format error instead of a crypto failure', async () => {
    const keystore = await createKeystore(generatePrivateKey(), 'pw', fast)
    const outside = { ...keystore, crypto: { ...keystore.crypto, kdfparams: { ...keystore.crypto.kdfparams, n: 2 ** 18, r: 1, p: 8 } } }
    await expect(decryptKeystore(outside, 'pw')).rejects.toThrow(/RFC 7914/)
  })
})

describe('keystore files', () => {
  it('writes a file only its owner can read, which reads back to the same keystore', async () => {
    const path = files.path('owner-only.json')
    const keystore = await createKeystore(generatePrivateKey(), 'pw', fast)
    await writeKeystoreFile(path, keystore)
    expect((await stat(path)).mode & 0o777).toBe(0o600)
    expect(await readKeystoreFile(path)).toEqual(keystore)
  })

  it('never overwrites an existing file', async () => {
    const path = files.path('existing.json')
    const first = await createKeystore(generatePrivateKey(), 'pw', fast)
    await writeKeystoreFile(path, first)
    await expect(writeKeystoreFile(path, await createKeystore(generatePrivateKey(), 'pw', fast))).rejects.toThrow(/already exists/)
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(first)
  })
})
