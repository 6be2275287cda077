import type { Address, Hex } from 'viem'
import type { SigningAccount } from '../../chain/sign-token-permit.js'
import { type FirmOrder, type FirmRequest, firmOrderToWire, firmRequestSchema } from '../../protocol/maker-wire.js'
import { buildRfqOrderTypedData, type RfqOrder } from '../../protocol/rfq-order.js'
import type { Clock } from '../../time/clock.js'
import { buildFirmOrder, findFirmPair, priceFirmRequest } from '../firm-quote.js'
import type { MakerBook } from '../maker-book.js'

// POST /firm (section 4 of the maker document): parse, find the pair, refuse while off, answer a blacklisted user
// with a success without `order`, price from the grid, sign the RFQ order, let the owner check and record it, and
// only then answer with it.

export type FirmQuoteRecord = {
  chainId: number
  orderHash: Hex
  order: FirmOrder
  request: FirmRequest
  /** Clock ms. */
  quotedAt: number
}

export type FirmContext = {
  book: MakerBook
  chainId: number
  rfq: Address
  account: SigningAccount
  clock: Clock
  firmExpirySeconds: number
  random: () => bigint
  /** The order's EIP-712 digest under this chain's RFQ domain (see rfq-order-digest.ts). */
  orderDigest: (order: RfqOrder) => Hex
  recordFirmQuote?: ((record: FirmQuoteRecord) => void) | undefined
  checkFirm?: ((request: FirmRequest, order: FirmOrder) => string | undefined) | undefined
}

/** What to answer: a status and a JSON body (already serialized for a success). */
export type FirmAnswer = { status: number; body: string } | { status: number; error: string; failure?: unknown }

export async function answerFirm(context: FirmContext, rawBody: Uint8Array | undefined): Promise<FirmAnswer> {
  if (rawBody === undefined || rawBody.byteLength === 0)
    return { status: 400, error: 'expected a JSON body (content-type application/json)' }
  let json: unknown
  try {
    json = JSON.parse(Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8'))
  } catch (cause) {
    return { status: 400, error: `malformed JSON body: ${String((cause as Error).message).slice(0, 200)}` }
  }
  const parsed = firmRequestSchema.safeParse(json)
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 10).map((issue) => `${issue.path.map(String).join('.') || '(body)'}: ${issue.message}`)
    return { status: 400, error: `invalid firm request: ${problems.join('; ')}` }
  }
  const request = parsed.data
  const { book, chainId } = context
  const snapshot = book.snapshot(chainId)
  const match = findFirmPair(snapshot, request)
  if (match === undefined) {
    return {
      status: 400,
      error: `unknown pair: no pair of makerAsset ${request.makerAsset.toLowerCase()} and takerAsset ${request.takerAsset.toLowerCase()} on chain ${chainId}`,
    }
  }
  if (snapshot.offReason !== undefined) return { status: 503, error: `maker is off: ${snapshot.offReason}` }
  if (blacklistOf(snapshot.blacklist).has(request.userAddress.toLowerCase())) {
    return { status: 200, body: JSON.stringify({ message: 'user is blacklisted' }) }
  }
  const amounts = priceFirmRequest(snapshot.prices[match.pairId], match, request)
  if (!amounts.ok) return { status: 400, error: amounts.error }

  const quotedAt = context.clock.now()
  const unsigned = buildFirmOrder({
    request,
    amounts,
    maker: context.account.address,
    nonce: context.random(),
    expiry: BigInt(Math.floor(quotedAt / 1000) + context.firmExpirySeconds),
  })
  const orderHash = context.orderDigest(unsigned)
  // A local key signs the digest directly: hashing the typed data a second time is the slow part of signing.
  const signature = context.account.sign
    ? await context.account.sign({ hash: orderHash })
    : await context.account.signTypedData(buildRfqOrderTypedData(unsigned, { chainId, verifyingContract: context.rfq }))
  const order: FirmOrder = { ...unsigned, expiry: Number(unsigned.expiry), signature: signature.toLowerCase() as Hex }

  let refusal: string | undefined
  try {
    refusal = context.checkFirm?.(request, order)
  } catch (failure) {
    return { status: 500, error: 'internal error: the firm quote could not be checked; no order was issued', failure }
  }
  if (refusal !== undefined) return { status: 400, error: refusal }
  try {
    context.recordFirmQuote?.({ chainId, orderHash, order, request, quotedAt })
  } catch (failure) {
    return { status: 500, error: 'internal error: the firm quote could not be recorded; no order was issued', failure }
  }
  return { status: 200, body: JSON.stringify({ order: firmOrderToWire(order) }) }
}

/** The blacklist as a set of lowercase addresses, built once per book version (the book replaces the array). */
const blacklistSets = new WeakMap<readonly Address[], Set<string>>()
function blacklistOf(blacklist: readonly Address[]): Set<string> {
  let set = blacklistSets.get(blacklist)
  if (set === undefined) {
    set = new Set(blacklist.map((address) => address.toLowerCase()))
    blacklistSets.set(blacklist, set)
  }
  return set
}
