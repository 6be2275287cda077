import { readFile, writeFile } from 'node:fs/promises'
import { BaseError } from '../errors/base.js'
import { KeystoreFormatError, type KeystoreJson } from './keystore.js'

/** Writes a keystore readable by its owner only; never overwrites an existing file. */
export async function writeKeystoreFile(path: string, keystore: KeystoreJson): Promise<void> {
  try {
    await writeFile(path, `${JSON.stringify(keystore, null, 2)}\n`, { mode: 0o600, flag: 'wx' })
  } catch (cause) {
    const exists = (cause as NodeJS.ErrnoException).code === 'EEXIST'
    throw new KeystoreFileError(exists ? `a file already exists at ${path}` : `cannot write the keystore to ${path}`, {
      code: (cause as NodeJS.ErrnoException).code,
      hint: exists ? 'Choose another path; an existing keystore is never overwritten.' : 'Check that the directory exists and is writable.',
    })
  }
}

/**
 * The parsed JSON of a keystore file. The parser's own message is not passed on: for a file that is not JSON (a
 * raw key saved by mistake) it would quote the file's first characters.
 */
export async function readKeystoreFile(path: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (cause) {
    throw new KeystoreFileError(`cannot read the keystore at ${path}`, {
      code: (cause as NodeJS.ErrnoException).code,
      hint: 'Check the keystore path in the configuration.',
    })
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new KeystoreFormatError([`${path}: not JSON`])
  }
}

/** A keystore file cannot be read or written. Fatal: the user fixes the path or the permissions. */
export class KeystoreFileError extends BaseError {
  override name = 'KeystoreFileError' as const
  constructor(reason: string, { code, hint }: { code: string | undefined; hint: string }) {
    super(`Keystore file: ${reason}`, { details: code === undefined ? {} : { code }, hint, errorClass: 'fatal' })
  }
}
