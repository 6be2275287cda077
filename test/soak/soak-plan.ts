import type { Address } from 'viem'
import { createRandom } from '../../src/domain/seeded-random.js'
import type { FaultPlan, OutageKind } from '../helpers/fault-proxy.js'

/** The service's API: about one request in eight fails, each kind in turn. */
export const apiFaults: FaultPlan = { meanGap: 8 }

/** The chains' JSON-RPC (viem retries a request once): about one request in twenty-five. */
export const rpcFaults: FaultPlan = { meanGap: 25 }

/** One window during which the API (`on: 'api'`) or a chain's RPC (`on`: its chain id) fails every request. */
export type PlannedOutage = { on: 'api' | number; kind: OutageKind; atMs: number; durationMs: number }

/**
 * The outages of a run of `durationMs` real ms (pure, seeded), at seeded instants of the middle 80 % of the run, never
 * two at once on one proxy:
 * - RPC: about one every 15 s (at least two), over the chains in turn, `refuse` and `hang` alternating so that each
 *   chain gets both, 1 to 4 s each; a run of a minute or more also gets one `hang` of `longHangMs` on the first chain,
 *   longer than the RPC client's timeout;
 * - API: about one `unavailable` window a minute (at least one) of `apiOutageMs`, longer than the client's retries last.
 */
export function planOutages({
  seed,
  durationMs,
  chainIds,
  longHangMs = 11_000,
  apiOutageMs = 5_000,
}: {
  seed: number
  durationMs: number
  chainIds: readonly number[]
  longHangMs?: number
  apiOutageMs?: number
}): PlannedOutage[] {
  const random = createRandom(seed ^ 0x5eed)
  const from = durationMs * 0.1
  const span = durationMs * 0.8
  const planned: PlannedOutage[] = []
  const overlaps = (candidate: PlannedOutage) =>
    planned.some(
      (other) =>
        other.on === candidate.on &&
        candidate.atMs < other.atMs + other.durationMs + 500 &&
        other.atMs < candidate.atMs + candidate.durationMs + 500,
    )
  /** Places a window of this kind somewhere free on `on` (gives up after 20 draws). */
  const place = (on: PlannedOutage['on'], kind: OutageKind, windowMs: () => number) => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const length = windowMs()
      const candidate: PlannedOutage = { on, kind, atMs: Math.round(from + random() * Math.max(0, span - length)), durationMs: length }
      if (overlaps(candidate)) continue
      planned.push(candidate)
      return
    }
  }
  const firstChain = chainIds[0]
  if (durationMs >= 60_000 && firstChain !== undefined) place(firstChain, 'hang', () => longHangMs)
  const rpcCount = Math.max(2, Math.round(durationMs / 15_000))
  for (let index = 0; index < rpcCount; index++) {
    const chainId = chainIds[index % chainIds.length]
    if (chainId === undefined) break
    // refuse, hang, ... over the chains in turn, shifted at each round so that every chain gets both
    const kind = (index + Math.floor(index / chainIds.length)) % 2 === 0 ? 'refuse' : 'hang'
    place(chainId, kind, () => Math.round(1_000 + random() * 3_000))
  }
  const apiCount = Math.max(1, Math.round(durationMs / 60_000))
  for (let index = 0; index < apiCount; index++) place('api', 'unavailable', () => apiOutageMs)
  return planned.sort((a, b) => a.atMs - b.atMs)
}

export type SoakConfigParameters = {
  apiUrl: string
  rpcUrls: ReadonlyMap<number, string>
  journalFile: string
  /** Environment variable holding the bot's key. */
  keyEnv: string
  /** Sandbox seconds the run lasts: the DCA spreads its budget over them. */
  runSeconds: number
  tokens: { usdc: Address; weth: Address; baseUsdc: Address }
  /** The sandbox's P2P counterparty (fills OTC orders naming it). */
  counterparty: Address
  /** An address that never fills: its OTC orders expire and are posted again. */
  idleTaker: Address
}

/**
 * The soak's bot: every built-in strategy a bot runs (dca, ladder, rebalancer, otc-poster twice, example), tuned so
 * that a few sandbox minutes already place, fill, expire, re-place and cancel orders of every mode.
 */
export function soakConfigYaml({
  apiUrl,
  rpcUrls,
  journalFile,
  keyEnv,
  runSeconds,
  tokens,
  counterparty,
  idleTaker,
}: SoakConfigParameters): string {
  const dcaOrders = Math.max(1, Math.floor(runSeconds / 240))
  const chains = [...rpcUrls].map(([chainId, url]) => `  "${chainId}": { rpcUrls: ["${url}"] }`)
  return [
    'mode: paper',
    'venue:',
    `  url: "${apiUrl}"`,
    // a held request costs 3 s, not the default 15
    '  timeoutMs: 3000',
    '  retries: 3',
    '  requestsPerSecond: 20',
    'chains:',
    ...chains,
    `wallet: { privateKeyEnv: ${keyEnv} }`,
    `db: "${journalFile}"`,
    'feed: { intervalMs: 1000 }',
    'reconcile: { intervalMs: 1000 }',
    'risk:',
    '  maxOpenOrdersPerStrategy: 10',
    'executor:',
    '  approvalPolicy: exact',
    'strategies:',
    '  - name: dca-weth',
    '    use: dca',
    '    config:',
    '      chainId: 1',
    `      srcToken: "${tokens.usdc}"`,
    `      destToken: "${tokens.weth}"`,
    '      budget: "600000000"',
    `      periodSeconds: ${Math.max(240, dcaOrders * 240)}`,
    `      orders: ${dcaOrders}`,
    '      slicesPerOrder: 2',
    '      checkIntervalSeconds: 15',
    '      guard:',
    '        source: market',
    '        maxPrice: { srcAmount: "4000000000", destAmount: "1000000000000000000" }',
    '        action: pause',
    '  - name: weth-ladder',
    '    use: ladder',
    '    config:',
    '      chainId: 1',
    '      side: sell',
    `      base: { address: "${tokens.weth}", decimals: 18 }`,
    `      quote: { address: "${tokens.usdc}", decimals: 6 }`,
    '      lowerPrice: "1900"',
    '      upperPrice: "2020"',
    '      levels: 4',
    '      spacing: linear',
    '      sizePerLevel: "50000000000000000"',
    // re-placed every two sandbox minutes
    '      validitySeconds: 120',
    '      onFill: flip',
    '      cancelOnStop: true',
    '  - name: usdc-rebalancer',
    '    use: rebalancer',
    '    config:',
    '      chains:',
    `        - { chainId: 1, token: "${tokens.usdc}", weight: 60 }`,
    `        - { chainId: 8453, token: "${tokens.baseUsdc}", weight: 40 }`,
    '      bandBps: 200',
    '      minTradeAmount: "1000000000"',
    '  - name: otc-filled',
    '    use: otc-poster',
    '    config:',
    '      chainId: 1',
    `      makerAsset: "${tokens.weth}"`,
    '      makerAmount: "500000000000000000"',
    `      takerAsset: "${tokens.usdc}"`,
    `      taker: "${counterparty}"`,
    '      premiumBps: 50',
    '      expirySeconds: 120',
    '      cancelOnStop: true',
    '  - name: otc-reposted',
    '    use: otc-poster',
    '    config:',
    '      chainId: 1',
    `      makerAsset: "${tokens.weth}"`,
    '      makerAmount: "200000000000000000"',
    `      takerAsset: "${tokens.usdc}"`,
    `      taker: "${idleTaker}"`,
    '      premiumBps: 100',
    // expires and is posted again every sandbox minute
    '      expirySeconds: 60',
    '      cancelOnStop: true',
    '  - name: take-profit',
    '    use: example',
    '    config:',
    '      chainId: 1',
    `      srcToken: "${tokens.usdc}"`,
    `      destToken: "${tokens.weth}"`,
    '      amount: "100000000"',
    '      minDestAmount: "1"',
    '      maxSlippageBps: 100',
    '',
  ].join('\n')
}
