/** Every URL in `text` reduced to its scheme and host: credentials and keys in its user part, path or query dropped. */
export function withoutUrlSecrets(text: string): string {
  return text.replace(/\b([a-z][a-z\d+.-]*:\/\/)(?:[^\s/?#@]*@)?([^\s/?#@]+)[^\s]*/gi, '$1$2')
}

/** Every URL in `text` replaced by "[url]", host included (for answers an outsider may read). */
export function withoutUrls(text: string): string {
  return text.replace(/\b[a-z][a-z\d+.-]*:\/\/\S+/gi, '[url]')
}
