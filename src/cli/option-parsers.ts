import { InvalidArgumentError } from 'commander'

/** `--from` / `--to`: an ISO 8601 time or unix milliseconds. */
export function parseTime(value: string): number {
  const time = /^\d+$/.test(value) ? Number(value) : Date.parse(value)
  if (!Number.isFinite(time)) throw new InvalidArgumentError(`expected an ISO 8601 time or unix milliseconds, received "${value}"`)
  return time
}

/** `--seed`: a whole number. */
export function parseSeed(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`expected a whole number, received "${value}"`)
  return Number(value)
}
