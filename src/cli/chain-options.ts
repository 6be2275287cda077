import { InvalidArgumentError } from 'commander'

/** Parses `--chains 1,8453` into distinct positive integer chain ids. */
export function parseChainIds(value: string): number[] {
  const ids = value.split(',').map((part) => part.trim())
  const parsed = ids.map((id) => Number(id))
  const bad = ids.filter((id, index) => !/^\d+$/.test(id) || !Number.isSafeInteger(parsed[index]) || (parsed[index] ?? 0) <= 0)
  if (bad.length > 0 || ids.length === 0) {
    throw new InvalidArgumentError(`expected comma-separated positive chain ids such as 1,8453, received "${value}"`)
  }
  if (new Set(parsed).size !== parsed.length) throw new InvalidArgumentError(`chain ids repeat in "${value}"`)
  return parsed
}
