import autocannon from 'autocannon'
import { createWalletClient, erc20Abi, http, maxUint256, publicActions } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { deltaAddress } from '../../src/protocol/addresses.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { defineLocalChain } from '../../src/sandbox/chains/clients.js'
import { loadContractArtifacts } from '../../src/sandbox/contracts/compile.js'
import { agentProfiles } from '../../src/sandbox/delta/agents.js'
import { type RunningSandbox, startSandbox } from '../../src/sandbox/start-sandbox.js'
import { type BenchResult, summarize } from './summary.js'

type BenchOptions = {
  /** Orders submitted per run. */
  orders?: number
  runs?: number
  connections?: number
}

/**
 * POST /v2/delta/orders throughput on one chain: orders from the ten development accounts are quoted, built and
 * signed outside the timed part, then submitted over `connections` concurrent connections. Each run's figure is
 * submissions per second (every one verified: signature, deadline, allowance and balance on the chain).
 */
export async function benchSandboxDeltaSubmit({ orders = 2000, runs = 3, connections = 32 }: BenchOptions = {}): Promise<BenchResult> {
  loadContractArtifacts()
  const sandbox = await startSandbox({ chainIds: [1], market: 'still' })
  try {
    await approveUsdcToDelta(sandbox)
    await submitAll(sandbox, await signOrders(sandbox, 200), connections) // warm-up: JIT, connections, owner keys
    const samples: number[] = []
    for (let run = 0; run < runs; run++) {
      const bodies = await signOrders(sandbox, orders)
      const started = performance.now()
      await submitAll(sandbox, bodies, connections)
      samples.push(orders / ((performance.now() - started) / 1000))
    }
    return summarize('sandbox POST /v2/delta/orders throughput', 'submissions/s', samples, {
      target: '>= 300 submissions/s',
      orders: String(orders),
      connections: String(connections),
    })
  } finally {
    await sandbox.stop()
  }
}

const usdcMainnet = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'

function wallets(sandbox: RunningSandbox) {
  const rpcUrl = sandbox.chains[0]?.rpcUrl ?? ''
  return developmentAccounts.map(({ privateKey }) =>
    createWalletClient({ account: privateKeyToAccount(privateKey), chain: defineLocalChain(1, rpcUrl), transport: http(rpcUrl) }).extend(
      publicActions,
    ),
  )
}

async function approveUsdcToDelta(sandbox: RunningSandbox): Promise<void> {
  for (const wallet of wallets(sandbox)) {
    const hash = await wallet.writeContract({
      address: usdcMainnet,
      abi: erc20Abi,
      functionName: 'approve',
      args: [deltaAddress, maxUint256],
    })
    await wallet.waitForTransactionReceipt({ hash })
  }
}

/** `count` signed submissions (10 USDC → WETH each, no agent admitted so the engine leaves them waiting). */
async function signOrders(sandbox: RunningSandbox, count: number): Promise<string[]> {
  const query = new URLSearchParams({
    chainId: '1',
    srcToken: usdcMainnet,
    destToken: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
    amount: '10000000',
    srcDecimals: '6',
    destDecimals: '18',
  })
  const price = await call(sandbox, 'GET', `/v2/delta/prices?${query}`)
  const deadline = Math.floor(sandbox.venue.clock.now() / 1000) + 3600
  const owners = wallets(sandbox)
  const bodies: string[] = []
  for (let index = 0; index < count; index++) {
    const wallet = owners[index % owners.length]
    if (!wallet) throw new Error('no development account')
    const built = await call(sandbox, 'POST', '/v2/delta/orders/build', {
      route: price.route,
      side: 'SELL',
      owner: wallet.account.address,
      deadline,
    })
    const toSign = built.toSign as { domain: never; types: { Order: never; Bridge: never }; value: never }
    const signature = await wallet.signTypedData({
      domain: toSign.domain,
      types: toSign.types,
      primaryType: 'Order',
      message: toSign.value,
    })
    bodies.push(
      JSON.stringify({
        chainId: 1,
        order: toSign.value,
        signature,
        partner: 'bench',
        excludeAgents: agentProfiles.map((agent) => agent.name),
      }),
    )
  }
  return bodies
}

async function submitAll(sandbox: RunningSandbox, bodies: readonly string[], connections: number): Promise<void> {
  let next = 0
  const result = await autocannon({
    url: sandbox.url,
    connections: Math.min(connections, bodies.length),
    amount: bodies.length,
    requests: [
      {
        method: 'POST',
        path: '/v2/delta/orders',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] }),
      },
    ],
  })
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`POST /v2/delta/orders failed under load: ${result.non2xx} non-2xx answers, ${result.errors} errors`)
  }
}

async function call(sandbox: RunningSandbox, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  })
  const json = (await response.json()) as Record<string, unknown>
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`)
  return json
}
