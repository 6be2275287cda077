import { BaseError } from '../../errors/base.js'
import { firmResponseSchema } from '../../protocol/maker-wire.js'
import { checkFirmOrder, type FirmExpectation, type FirmFill } from './check-firm-order.js'
import { MakerRequestError, requestMaker } from './maker-request.js'
import type { RegisteredMaker } from './registered-maker.js'

/** The maker's firm quote cannot back the route. Operational: the user re-quotes (the maker is out of routing meanwhile). */
export class FirmQuoteError extends BaseError {
  override name = 'FirmQuoteError'
  /** The maker refused the user (no order, or 403): cached as blacklisted. */
  readonly blacklisted: boolean

  constructor(message: string, { blacklisted = false, cause }: { blacklisted?: boolean; cause?: unknown } = {}) {
    super(message, { cause, errorClass: 'operational' })
    this.blacklisted = blacklisted
  }
}

export type RequestFirmFillParameters = Omit<FirmExpectation, 'taker'>

/**
 * Asks the maker for a firm order (`POST /firm`, signed, a few seconds' timeout) for the route's trade, over-ordering
 * slightly as the service does (SELL: takerAmount = source × 1.01; BUY: makerAmount = destination × 1.0001, rounded
 * up), and checks the answer. A failure marks the maker failed; a missing order or a 403 blacklists the user.
 */
export async function requestFirmFill(maker: RegisteredMaker, expected: RequestFirmFillParameters): Promise<FirmFill> {
  const { user } = expected
  const refusedUser = () => new FirmQuoteError(`maker ${maker.name} does not quote for ${user} (blacklisted)`, { blacklisted: true })
  if (maker.isBlacklisted(user)) throw refusedUser()
  const taker = maker.chain.fixture.contracts.marketRouter
  const body = {
    makerAsset: expected.destToken.toLowerCase(),
    takerAsset: expected.srcToken.toLowerCase(),
    ...(expected.side === 'SELL'
      ? { takerAmount: ceilDiv(expected.amount * 101n, 100n).toString() }
      : { makerAmount: ceilDiv(expected.amount * 10_001n, 10_000n).toString() }),
    userAddress: user.toLowerCase(),
    takerAddress: taker.toLowerCase(),
  }
  let answer: Awaited<ReturnType<typeof requestMaker<typeof firmResponseSchema>>>
  try {
    answer = await requestMaker(maker.endpoint, {
      method: 'POST',
      path: '/firm',
      body,
      schema: firmResponseSchema,
      timeoutMs: maker.timing.firmTimeoutMs,
      signal: maker.signal,
    })
  } catch (cause) {
    if (cause instanceof MakerRequestError && cause.status === 403) {
      maker.blacklistUser(user, 'POST /firm answered 403')
      throw refusedUser()
    }
    const reason = cause instanceof BaseError ? cause.shortMessage : (cause as Error).message
    maker.markFailed(`firm quote: ${reason}`)
    throw new FirmQuoteError(`maker ${maker.name}: ${reason}`, { cause })
  }
  maker.logMessage('/firm', answer.message)
  if (!answer.order) {
    maker.blacklistUser(user, 'POST /firm answered without order')
    throw refusedUser()
  }
  const check = await checkFirmOrder(maker.chain, answer.order, { ...expected, taker })
  if (!check.ok) {
    maker.markFailed(`firm quote: ${check.reason}`)
    throw new FirmQuoteError(`maker ${maker.name}: ${check.reason}`)
  }
  return check.fill
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator
}
