import { InvalidArgumentError } from 'commander'

/** One `--rpc CHAIN=URL`: the chain id (a decimal string) and the URL. */
export function splitRpc(value: string): [string, string] {
  const match = /^(\d+)=(\S+)$/.exec(value)
  if (!match?.[1] || !match[2]) throw new InvalidArgumentError(`expected CHAIN=URL such as 1=http://127.0.0.1:8545, received "${value}"`)
  return [match[1], match[2]]
}

/** Collects the repeatable `--rpc CHAIN=URL`, each checked as it is parsed. */
export function collectRpc(value: string, previous: string[]): string[] {
  splitRpc(value)
  return [...previous, value]
}
