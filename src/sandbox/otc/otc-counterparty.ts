import type { Address, Hash } from 'viem'
import type { Logger } from '../../log/logger.js'
import type { Clock } from '../../time/clock.js'
import { sendFixtureCall } from '../chains/send.js'
import { getContractArtifact } from '../contracts/compile.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import { activateCounterparty, ensureCounterpartyFunds } from './fund-counterparty.js'
import { isOtcCounterparty, otcCounterpartyAddresses } from './otc-counterparty-accounts.js'
import type { StoredOtcOrder } from './otc-order.js'

export type OtcCounterpartyParameters = {
  clock: Clock
  logger: Logger
  /** Sandbox ms between an order becoming PENDING and the counterparty's fill. Default 2000. */
  fillDelayMs?: number
}

const retryDelayMs = 5_000
const maxAttempts = 3

/**
 * The simulated P2P counterparty: sandbox accounts that fill, with a real `fillOrder` on the RFQ contract, the
 * PENDING P2P orders naming one of them as `taker`. The tracker has already checked the order (signature at
 * posting, expiry, maker balance and allowance); a fill the contract still refuses is retried a few times.
 */
export class OtcCounterparty {
  readonly #clock: Clock
  readonly #logger: Logger
  readonly #fillDelayMs: number
  readonly #prepared = new Map<number, Promise<void>>()
  readonly #attempts = new Map<string, { failures: number; retryAtMs: number }>()

  constructor({ clock, logger, fillDelayMs = 2_000 }: OtcCounterpartyParameters) {
    this.#clock = clock
    this.#logger = logger
    this.#fillDelayMs = fillDelayMs
  }

  /**
   * Impersonates the counterparties on a chain, funds them with every token and approves the RFQ contract. Runs once
   * per chain, when the first order naming a counterparty is tracked there, so sandboxes without P2P orders pay nothing.
   */
  prepare(chain: ChainVenue): Promise<void> {
    let prepared = this.#prepared.get(chain.chainId)
    if (!prepared) {
      prepared = (async () => {
        for (const account of otcCounterpartyAddresses()) {
          await activateCounterparty(chain, account)
          for (const token of chain.tokens) {
            await ensureCounterpartyFunds(chain, account, token.address, 1n).catch((error: unknown) => {
              // e.g. a permit-only token, which cannot be approved to the RFQ contract
              this.#logger.debug(
                { err: error, account, token: token.symbol, chainId: chain.chainId },
                'OTC counterparty cannot hold this token',
              )
            })
          }
        }
      })()
      this.#prepared.set(chain.chainId, prepared)
      // A failed preparation (a node going down) is tried again by the next fill.
      prepared.catch(() => this.#prepared.delete(chain.chainId))
    }
    return prepared
  }

  /** Resolves once every preparation started so far has ended (for shutdown). */
  async settled(): Promise<void> {
    await Promise.allSettled(this.#prepared.values())
  }

  /** Orders of `live` that are due for a fill by a counterparty now. */
  dueOrders(live: readonly StoredOtcOrder[]): StoredOtcOrder[] {
    const nowMs = this.#clock.now()
    return live.filter((stored) => {
      if (stored.state !== 'PENDING' || !namesCounterparty(stored)) return false
      if (stored.pendingSince === undefined || nowMs - stored.pendingSince < this.#fillDelayMs) return false
      const attempts = this.#attempts.get(stored.orderHash)
      return !attempts || (attempts.failures < maxAttempts && nowMs >= attempts.retryAtMs)
    })
  }

  /** Fills the due orders one after the other; returns how many fills were mined. */
  async fillDue(chain: ChainVenue, live: readonly StoredOtcOrder[]): Promise<number> {
    if (!live.some(namesCounterparty)) return 0
    // Funding starts with the first such order and overlaps its fill delay.
    const prepared = this.prepare(chain)
    const due = this.dueOrders(live)
    if (due.length === 0) {
      prepared.catch((error: unknown) => this.#logger.warn({ err: error, chainId: chain.chainId }, 'OTC counterparty setup failed'))
      return 0
    }
    await prepared
    let filled = 0
    for (const stored of due) {
      try {
        const hash = await this.#fill(chain, stored)
        filled++
        this.#logger.info({ orderHash: stored.orderHash, chainId: chain.chainId, transactionHash: hash }, 'OTC counterparty filled order')
      } catch (error) {
        const failures = (this.#attempts.get(stored.orderHash)?.failures ?? 0) + 1
        this.#attempts.set(stored.orderHash, { failures, retryAtMs: this.#clock.now() + retryDelayMs })
        this.#logger.warn({ err: error, orderHash: stored.orderHash, chainId: chain.chainId, failures }, 'OTC counterparty fill failed')
      }
    }
    return filled
  }

  async #fill(chain: ChainVenue, stored: StoredOtcOrder): Promise<Hash> {
    const { order, signature } = stored
    const taker: Address = order.taker
    const remainingTaker = order.takerAmount - stored.filledTakerAmount
    if (!(await ensureCounterpartyFunds(chain, taker, order.takerAsset, remainingTaker))) {
      throw new Error(`the counterparty cannot obtain takerAsset ${order.takerAsset}: not a token of the sandbox`)
    }
    const abi = getContractArtifact('RfqSettlement').abi
    const rfq = chain.fixture.contracts.rfq
    if (stored.filledTakerAmount === 0n) {
      return sendFixtureCall(chain.clients, { from: taker, to: rfq, abi, functionName: 'fillOrder', args: [order, signature] })
    }
    return sendFixtureCall(chain.clients, {
      from: taker,
      to: rfq,
      abi,
      functionName: 'partialFillOrder',
      args: [order, signature, remainingTaker],
    })
  }
}

function namesCounterparty(stored: StoredOtcOrder): boolean {
  return stored.type === 'P2P' && isOtcCounterparty(stored.order.taker)
}
