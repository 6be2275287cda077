import { request as httpRequest } from 'node:http'
import type { Address } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { MakerBook } from '../../src/maker/maker-book.js'
import { type MakerServer, type StartMakerServerParameters, startMakerServer } from '../../src/maker/server/maker-server.js'
import { type MakerCredentials, makerAuthHeaders } from '../../src/protocol/maker-auth.js'
import type { MakerPair, MakerToken } from '../../src/protocol/maker-wire.js'
import type { PriceGrid } from '../../src/protocol/price-grid.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import type { Clock } from '../../src/time/clock.js'

// A maker server over a small fixed book, and requests to it signed as the service signs them.

export const testMakerCredentials: MakerCredentials = {
  domain: 'service.test',
  accessKey: 'access-key-7f3a91c2',
  secret: 'secret-key-5be04d18e6',
}

/** An RFQ contract address for the EIP-712 domain (no chain is needed to sign or verify). */
export const testRfqAddress: Address = '0xe92b586627ccA7a83dC919cc7127196d70f55a06'

export const testMakerAccount = privateKeyToAccount((developmentAccounts[1] as { privateKey: `0x${string}` }).privateKey)

const token = (symbol: string, address: Address, decimals: number): MakerToken => ({
  symbol,
  name: symbol,
  description: `${symbol} (test)`,
  address,
  decimals,
  type: 'ERC20',
})

export const testMakerTokens = {
  WETH: token('WETH', '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', 18),
  USDC: token('USDC', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 6),
  WBTC: token('WBTC', '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599', 8),
  DAI: token('DAI', '0x6B175474E89094C44Da98b954EedeAC495271d0F', 18),
} satisfies Record<string, MakerToken>

export const testMakerPairs: Record<string, MakerPair> = {
  'WETH/USDC': { base: 'WETH', quote: 'USDC', liquidityUSD: 250_000 },
  'WBTC/USDC': { base: 'WBTC', quote: 'USDC', liquidityUSD: 100_000 },
}

export const testMakerPrices: Record<string, PriceGrid> = {
  'WETH/USDC': {
    bids: [
      ['1999.5', '1.5'],
      ['1998.25', '10'],
    ],
    asks: [
      ['2000.5', '1.5'],
      ['2001.75', '10'],
    ],
  },
  // Bids only: the maker buys WBTC but does not sell it.
  'WBTC/USDC': { bids: [['60000', '0.5']] },
}

/** A book on `chainIds` with the test tokens, pairs and prices (DAI is listed as a token but in no pair). */
export function createTestMakerBook(chainIds: readonly number[] = [1], nowMs = 0): MakerBook {
  const book = new MakerBook(chainIds)
  for (const chainId of chainIds) book.update(chainId, { tokens: testMakerTokens, pairs: testMakerPairs, prices: testMakerPrices }, nowMs)
  return book
}

/** A maker server on loopback over `book` with auth on (unless `auth: undefined` is passed). */
export function startTestMakerServer(
  book: MakerBook,
  clock: Clock,
  overrides: Partial<StartMakerServerParameters> = {},
): Promise<MakerServer> {
  return startMakerServer({
    book,
    clock,
    chains: book.chainIds.map((chainId) => ({ chainId, basePath: `/maker/${chainId}`, rfq: testRfqAddress })),
    account: testMakerAccount,
    auth: { credentials: [testMakerCredentials] },
    ...overrides,
  })
}

export type MakerAnswer = { status: number; headers: Record<string, string | string[] | undefined>; text: string; json: unknown }

export type MakerRequestOptions = {
  method?: string
  /** Path (with the base path), optionally with a query. */
  path: string
  /** Sent exactly as given; objects as JSON. */
  body?: unknown
  /** Signs with these (and `nowMs`); absent: unsigned. */
  credentials?: MakerCredentials | undefined
  nowMs?: number
  /** Added after the auth headers; an array sends the header once per value. */
  headers?: Record<string, string | string[]>
  contentType?: string | null
}

/** One real HTTP request (node:http, so headers can repeat), signed as the service signs it. */
export function makerRequest(origin: string, options: MakerRequestOptions): Promise<MakerAnswer> {
  const method = options.method ?? 'GET'
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body)
  const queryAt = options.path.indexOf('?')
  const path = queryAt === -1 ? options.path : options.path.slice(0, queryAt)
  const query = queryAt === -1 ? '' : options.path.slice(queryAt)
  const headers: Record<string, string | string[]> = {}
  if (options.credentials !== undefined) {
    Object.assign(headers, makerAuthHeaders(options.credentials, { nowMs: options.nowMs ?? Date.now(), method, path, query, body }))
  }
  const contentType = options.contentType === undefined ? (body === undefined ? null : 'application/json') : options.contentType
  if (contentType !== null) headers['content-type'] = contentType
  Object.assign(headers, options.headers ?? {})
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(origin)
    // The path goes out exactly as given (a URL string would be normalised: `..` resolved, a bare `?` dropped).
    const outgoing = httpRequest({ host: hostname, port, path: options.path, method, headers }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('error', reject)
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        let json: unknown
        try {
          json = text ? JSON.parse(text) : undefined
        } catch {
          json = undefined
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json })
      })
    })
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}

/** A firm request body (wire form) for the test book. */
export function firmBody(
  fields: Partial<Record<'makerAsset' | 'takerAsset' | 'makerAmount' | 'takerAmount' | 'userAddress' | 'takerAddress', string>>,
) {
  return {
    makerAsset: testMakerTokens.WETH.address,
    takerAsset: testMakerTokens.USDC.address,
    userAddress: developmentAccounts[3]?.address,
    takerAddress: developmentAccounts[4]?.address,
    ...fields,
  }
}
