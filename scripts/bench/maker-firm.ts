import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { benchMakerTokens, createRequestSigner, loadFigures, runLoad, startBenchMakerServerProcess } from './maker-prices.js'
import type { BenchResult } from './summary.js'

/**
 * POST /firm with authentication: each request asks a different USDC amount (so no two bodies, hence no two
 * signatures, are alike), the server prices it from the grid, signs an RFQ order with the maker key and answers it.
 * 32 connections for 10 s; the figure is signed orders per second.
 */
export async function benchMakerFirm({ connections = 32, durationSeconds = 10 } = {}): Promise<BenchResult> {
  const server = await startBenchMakerServerProcess()
  try {
    const sign = createRequestSigner()
    const path = '/maker/1/firm'
    let counter = 0
    const body = () =>
      JSON.stringify({
        makerAsset: benchMakerTokens.WETH.address,
        takerAsset: benchMakerTokens.USDC.address,
        takerAmount: String(1_000_000_000 + (counter++ % 1_000_000_000)),
        userAddress: developmentAccounts[3]?.address,
        takerAddress: developmentAccounts[4]?.address,
      })
    const result = await runLoad(server.url, connections, durationSeconds, {
      method: 'POST',
      path,
      setupRequest: (request) => {
        const text = body()
        return { ...request, body: text, headers: { ...request.headers, 'content-type': 'application/json', ...sign('POST', path, text) } }
      },
    })
    return loadFigures('maker POST /firm throughput (auth on)', 'orders/s', '>= 500 signed orders/s', connections, result)
  } finally {
    await server.close()
  }
}
