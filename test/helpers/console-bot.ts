import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import { farLadderConfig } from './far-ladder.js'
import { sandboxToken } from './sandbox.js'

export type ConsoleBotConfigParameters = {
  sandbox: RunningSandbox
  /** The journal file. */
  db: string
  /** The variables that hold the wallet's key and the console token. */
  keyEnv: string
  tokenEnv: string
  /** The console's address (default: loopback). */
  host?: string
  /** Run the `far-ladder` strategy too (default true). */
  ladder?: boolean
}

/**
 * The YAML of a paper bot on chain 1 of the sandbox with the console on a free port: `taker` sells 1,000 USDC for WETH
 * once, at the first quote (one order, one fill); `far-ladder` places four limit orders far above the market, open
 * until cancelled (unless `ladder` is false).
 */
export function consoleBotConfigText({ sandbox, db, keyEnv, tokenEnv, host, ladder = true }: ConsoleBotConfigParameters): string {
  const weth = sandboxToken(sandbox, 1, 'WETH').address
  const usdc = sandboxToken(sandbox, 1, 'USDC').address
  return [
    'mode: paper',
    `venue: { url: "${sandbox.url}", requestsPerSecond: 1000 }`,
    `chains: { "1": { rpcUrls: ["${sandbox.chains[0]?.rpcUrl}"] } }`,
    `wallet: { privateKeyEnv: ${keyEnv} }`,
    `db: "${db}"`,
    'feed: { intervalMs: 200 }',
    'reconcile: { intervalMs: 300 }',
    `ops: { ${host ? `host: "${host}", ` : ''}port: 0, console: true, auth: { tokenEnv: ${tokenEnv} } }`,
    'strategies:',
    '  - name: taker',
    '    use: example',
    `    config: { chainId: 1, srcToken: "${usdc}", destToken: "${weth}", amount: "1000000000", minDestAmount: "1" }`,
    ...(ladder ? ['  - name: far-ladder', '    use: ladder', `    config: ${JSON.stringify(farLadderConfig({ weth, usdc }))}`] : []),
  ].join('\n')
}
