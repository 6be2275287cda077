const interned = new Map<string, string>()

/**
 * One string object per distinct text. A Map or Set keyed by interned strings finds a key it is asked for with the same
 * object by identity, without comparing the characters: quote request keys (≈ 100 characters) are looked up several
 * times per replayed quote. For the keys of a bounded set (requests), which stay for the process's life.
 */
export function internString(text: string): string {
  const known = interned.get(text)
  if (known !== undefined) return known
  interned.set(text, text)
  return text
}
