import { randomBytes, timingSafeEqual } from 'node:crypto'
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'
import type { Address, Hex } from 'viem'
import type { LocalAccount } from 'viem/accounts'
import { signRfqOrder } from '../../src/chain/sign-rfq-order.js'
import { type MakerCredentials, makerAuthHeaderNames, signMakerRequest } from '../../src/protocol/maker-auth.js'
import { type FirmRequest, firmOrderToWire, firmRequestSchema } from '../../src/protocol/maker-wire.js'
import { packNonceAndMeta } from '../../src/protocol/nonce-and-meta.js'
import { fillFromGrid, type PriceGrid } from '../../src/protocol/price-grid.js'
import { buildRfqOrderTypedData, type RfqOrder } from '../../src/protocol/rfq-order.js'
import { tokenAddress, tokenCatalogue } from '../../src/sandbox/chains/catalogue.js'

/** How `/prices` answers: normally, or failing in one of the ways the service must survive. */
export type PricesMode = 'ok' | 'crossed' | 'error' | 'timeout' | 'non-json'

/** How `/firm` answers: normally, or with one kind of bad order the service must refuse. */
export type FirmMode =
  | 'ok'
  | 'error'
  | 'timeout'
  | 'forbidden'
  | 'no-order'
  | 'wrong-signer'
  | 'wrong-taker'
  | 'wrong-user'
  | 'expired'
  | 'worse-price'

export type ScriptedMakerToken = { symbol: string; address: Address; decimals: number }
export type ScriptedMakerPair = { base: string; quote: string }

export type ScriptedMakerOptions = {
  chainId: number
  /** The RFQ contract of the chain (the orders' EIP-712 domain). */
  rfq: Address
  /** Holds the maker's funds, has approved the RFQ contract, signs the orders. */
  account: LocalAccount
  /** Signs for `wrong-signer`. */
  impostor: LocalAccount
  tokens: Record<string, ScriptedMakerToken>
  pairs: Record<string, ScriptedMakerPair>
  prices: Record<string, PriceGrid>
  blacklist?: readonly Address[]
  /** When set, every request must carry valid X-AUTH headers. */
  credentials?: MakerCredentials
  /** Path prefix of every endpoint (part of the signed path). */
  basePath?: string
  /** How long `timeout` modes hold the answer. */
  stallMs?: number
}

export type ScriptedMaker = {
  /** Base URL to register with the sandbox (includes the path prefix). */
  url: string
  /** Requests per endpoint path (`/prices`, `/firm`, …), counted after authentication. */
  served: Record<string, number>
  /** Requests refused for missing, stale or wrong X-AUTH headers. */
  rejectedAuth: number
  firmRequests: FirmRequest[]
  /** Orders answered by `/firm`, in wire form. */
  firmOrders: Record<string, string | number>[]
  pricesMode: PricesMode
  firmMode: FirmMode
  prices: Record<string, PriceGrid>
  blacklist: Address[]
  close: () => Promise<void>
}

const toleranceMs = 30_000

/**
 * A small maker serving the market-maker interface from a configurable book, for the sandbox's consumer tests. It
 * verifies the sandbox's signed requests with maker-auth, prices firm requests with fillFromGrid (as the service
 * does), signs RFQ orders with a development account, and misbehaves on demand (`pricesMode`, `firmMode`).
 */
export async function startScriptedMaker(options: ScriptedMakerOptions): Promise<ScriptedMaker> {
  const basePath = options.basePath ?? `/maker/${options.chainId}`
  const app = Fastify({ logger: false, forceCloseConnections: true })
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body))
  const stall = () => new Promise((resolve) => setTimeout(resolve, options.stallMs ?? 5_000).unref())
  const maker: Omit<ScriptedMaker, 'url' | 'close'> = {
    served: {},
    rejectedAuth: 0,
    firmRequests: [],
    firmOrders: [],
    pricesMode: 'ok',
    firmMode: 'ok',
    prices: options.prices,
    blacklist: [...(options.blacklist ?? [])],
  }

  const authenticate = (request: FastifyRequest, reply: FastifyReply, endpoint: string): boolean => {
    const failure = options.credentials ? authFailure(options.credentials, request) : undefined
    if (failure) {
      maker.rejectedAuth += 1
      void reply.status(401).send({ error: failure })
      return false
    }
    maker.served[endpoint] = (maker.served[endpoint] ?? 0) + 1
    return true
  }

  app.get(`${basePath}/tokens`, async (request, reply) => {
    if (!authenticate(request, reply, '/tokens')) return reply
    return {
      tokens: Object.fromEntries(
        Object.entries(options.tokens).map(([id, token]) => [
          id,
          {
            symbol: token.symbol,
            name: token.symbol,
            description: '',
            address: token.address.toLowerCase(),
            decimals: token.decimals,
            type: 'ERC20',
          },
        ]),
      ),
    }
  })
  app.get(`${basePath}/pairs`, async (request, reply) => {
    if (!authenticate(request, reply, '/pairs')) return reply
    return { pairs: Object.fromEntries(Object.entries(options.pairs).map(([id, pair]) => [id, { ...pair, liquidityUSD: 1_000_000 }])) }
  })
  app.get(`${basePath}/blacklist`, async (request, reply) => {
    if (!authenticate(request, reply, '/blacklist')) return reply
    return { blacklist: maker.blacklist.map((user) => user.toLowerCase()) }
  })
  app.get(`${basePath}/prices`, async (request, reply) => {
    if (!authenticate(request, reply, '/prices')) return reply
    switch (maker.pricesMode) {
      case 'error':
        return reply.status(500).send({ error: 'pricing engine down' })
      case 'timeout':
        await stall()
        return { prices: maker.prices }
      case 'non-json':
        return reply.type('text/html').send('<html>bad gateway</html>')
      case 'crossed':
        return { prices: Object.fromEntries(Object.keys(maker.prices).map((id) => [id, { bids: [['2000', '1']], asks: [['1999', '1']] }])) }
      default:
        return { prices: maker.prices }
    }
  })
  app.post(`${basePath}/firm`, async (request, reply) => {
    if (!authenticate(request, reply, '/firm')) return reply
    const parsed = firmRequestSchema.safeParse(JSON.parse(String(request.body)))
    if (!parsed.success) return reply.status(400).send({ error: parsed.error.issues.map((issue) => issue.message).join('; ') })
    const firm = parsed.data
    maker.firmRequests.push(firm)
    const mode = maker.firmMode
    if (mode === 'error') return reply.status(500).send({ error: 'firm quote engine down' })
    if (mode === 'forbidden') return reply.status(403).send({ error: 'user not allowed' })
    if (mode === 'timeout') await stall()
    if (mode === 'no-order' || maker.blacklist.some((user) => user.toLowerCase() === firm.userAddress.toLowerCase())) {
      return { message: 'user is blacklisted' }
    }
    const amounts = priceFirm(options, maker.prices, firm, mode === 'worse-price')
    if (typeof amounts === 'string') return reply.status(400).send({ error: amounts })
    const nowSeconds = BigInt(Math.floor(Date.now() / 1000))
    const order: RfqOrder = {
      nonceAndMeta: packNonceAndMeta({
        intendedTaker: mode === 'wrong-user' ? options.impostor.address : firm.userAddress,
        nonce: BigInt(`0x${randomBytes(12).toString('hex')}`),
      }),
      expiry: nowSeconds + (mode === 'expired' ? 10n : 180n),
      makerAsset: firm.makerAsset,
      takerAsset: firm.takerAsset,
      maker: options.account.address,
      taker: mode === 'wrong-taker' ? options.impostor.address : firm.takerAddress,
      makerAmount: amounts.makerAmount,
      takerAmount: amounts.takerAmount,
    }
    const signature: Hex =
      mode === 'wrong-signer'
        ? await options.impostor.signTypedData(buildRfqOrderTypedData(order, { chainId: options.chainId, verifyingContract: options.rfq }))
        : (await signRfqOrder(options.account, order, { mode: 'rfq', chainId: options.chainId, address: options.rfq })).signature
    const wire = firmOrderToWire({ ...order, expiry: Number(order.expiry), signature: signature.toLowerCase() as Hex })
    maker.firmOrders.push(wire)
    return { order: wire }
  })

  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  return Object.assign(maker, { url: `${address}${basePath}`, close: () => app.close() })
}

/** The other amount of a firm request from the current grid, as the service's routing computed it. */
function priceFirm(
  options: ScriptedMakerOptions,
  prices: Record<string, PriceGrid>,
  firm: FirmRequest,
  worse: boolean,
): { makerAmount: bigint; takerAmount: bigint } | string {
  const byAddress = (address: Address) =>
    Object.entries(options.tokens).find(([, token]) => token.address.toLowerCase() === address.toLowerCase())?.[0]
  const makerId = byAddress(firm.makerAsset)
  const takerId = byAddress(firm.takerAsset)
  for (const [id, pair] of Object.entries(options.pairs)) {
    const src =
      pair.base === takerId && pair.quote === makerId ? 'base' : pair.quote === takerId && pair.base === makerId ? 'quote' : undefined
    const grid = prices[id]
    if (src === undefined || grid === undefined) continue
    const base = options.tokens[pair.base]
    const quote = options.tokens[pair.quote]
    if (!base || !quote) continue
    const side = firm.takerAmount !== undefined ? 'SELL' : 'BUY'
    const amount = firm.takerAmount ?? firm.makerAmount ?? 0n
    const fill = fillFromGrid(grid, { src, side, amount, baseDecimals: base.decimals, quoteDecimals: quote.decimals })
    if (!fill.ok) return `cannot fill: ${fill.reason}`
    if (side === 'SELL') return { takerAmount: amount, makerAmount: worse ? (fill.amount * 98n) / 100n : fill.amount }
    return { makerAmount: amount, takerAmount: worse ? (fill.amount * 102n) / 100n : fill.amount }
  }
  return 'no such pair'
}

/** Why a request's X-AUTH headers are refused, or undefined when they are valid. */
function authFailure(credentials: MakerCredentials, request: FastifyRequest): string | undefined {
  const header = (name: string) => {
    const value = request.headers[name]
    return typeof value === 'string' ? value : undefined
  }
  const domain = header(makerAuthHeaderNames.domain)
  const accessKey = header(makerAuthHeaderNames.accessKey)
  const timestamp = header(makerAuthHeaderNames.timestamp)
  const signature = header(makerAuthHeaderNames.signature)
  if (!domain || !accessKey || !timestamp || !signature) return 'missing X-AUTH headers'
  if (domain !== credentials.domain || accessKey !== credentials.accessKey) return 'unknown domain or access key'
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() - Number(timestamp)) > toleranceMs) return 'stale timestamp'
  const [path = '', query] = request.url.split('?')
  const expected = signMakerRequest(credentials.secret, {
    timestamp,
    method: request.method,
    path,
    query: query === undefined ? '' : `?${query}`,
    body: request.method === 'POST' ? String(request.body ?? '') : '',
  })
  const given = Buffer.from(signature)
  const wanted = Buffer.from(expected)
  return given.length === wanted.length && timingSafeEqual(given, wanted) ? undefined : 'bad signature'
}

/** Polls `check` until it returns a value other than undefined or false; fails after `timeoutMs` (real time). */
export async function waitUntil<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 8_000, intervalMs = 50, what = 'condition' }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

/** Sandbox tokens of a chain by symbol, as a scripted maker lists them (known before the sandbox starts). */
export function catalogueMakerTokens(chainId: number, symbols: readonly string[]): Record<string, ScriptedMakerToken> {
  return Object.fromEntries(
    symbols.map((symbol) => {
      const spec = tokenCatalogue.find((candidate) => candidate.symbol === symbol)
      if (!spec) throw new Error(`no ${symbol} in the sandbox catalogue`)
      return [symbol, { symbol, address: tokenAddress(spec, chainId), decimals: spec.decimals }]
    }),
  )
}
