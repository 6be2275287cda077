import { withoutUrlSecrets } from '../../errors/url-secrets.js'

/**
 * `text` with each secret (a bot token, a webhook URL or its path) replaced by "[redacted]", then every URL cut to its
 * scheme and host: what may reach a log line or the outbox's last_error.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let redacted = text
  // Longest first: a URL is replaced whole before its path would be.
  for (const secret of [...secrets].filter((value) => value.length > 0).sort((a, b) => b.length - a.length)) {
    redacted = redacted.split(secret).join('[redacted]')
  }
  return withoutUrlSecrets(redacted)
}
