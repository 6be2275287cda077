import { BaseError } from '../../errors/base.js'

/**
 * The venue answered with an order that is not the journal's (another hash or owner under the stored id). Operational:
 * the order is left as it is and reported; nothing of the foreign order is recorded.
 */
export class VenueOrderMismatchError extends BaseError {
  override name = 'VenueOrderMismatchError' as const
  constructor(details: { orderId: string; venueId: string; journalHash: string | null; venueHash: string; venueOwner: string }) {
    super(`the venue's order ${details.venueId} is not journal order ${details.orderId}`, {
      details,
      hint: 'Check that the bot talks to the venue it submitted the order to.',
      errorClass: 'operational',
    })
  }
}

/**
 * A fill, an OTC order or a Market transaction is on a chain the reconciler has no client for. Operational: configure
 * the chain; the order is reconciled on the next run that has it.
 */
export class ReconcileChainMissingError extends BaseError {
  override name = 'ReconcileChainMissingError' as const
  constructor({ orderId, chainId }: { orderId: string; chainId: number }) {
    super(`no chain client for chain ${chainId} (order ${orderId})`, {
      details: { orderId, chainId },
      hint: `add chain ${chainId} to the configured chains`,
      errorClass: 'operational',
    })
  }
}

/**
 * The venue reports a fill without a figure the chain cannot supply either (a native leg with a null amount).
 * Operational: nothing is recorded for the order until the venue reports the figure.
 */
export class FillFigureMissingError extends BaseError {
  override name = 'FillFigureMissingError' as const
  constructor({ orderId, txHash, leg }: { orderId: string; txHash: string; leg: 'spent' | 'received' }) {
    super(`fill ${txHash} of order ${orderId}: no ${leg} amount from the venue, and no Transfer log on the chain`, {
      details: { orderId, txHash, leg },
      errorClass: 'operational',
    })
  }
}

/**
 * The venue calls an OTC order FULFILLED while the RFQ contract's OrderFilled logs account for less than its taker
 * amount (an RPC node behind the venue). Retryable: the order keeps its status until the logs catch up.
 */
export class OtcFillsBehindError extends BaseError {
  override name = 'OtcFillsBehindError' as const
  constructor(details: { orderId: string; orderHash: string; filledTakerAmount: bigint; takerAmount: bigint }) {
    super(
      `OTC order ${details.orderId} is FULFILLED at the venue, but the chain shows ${details.filledTakerAmount} of ${details.takerAmount}`,
      {
        details,
        errorClass: 'retryable',
      },
    )
  }
}

/** The deployment resource names no RFQ contract on the OTC order's chain. Operational: the order cannot be checked there. */
export class RfqContractMissingError extends BaseError {
  override name = 'RfqContractMissingError' as const
  constructor({ chainId }: { chainId: number }) {
    super(`the deployment resource names no RFQ contract (augustusRFQ) on chain ${chainId}`, {
      details: { chainId },
      errorClass: 'operational',
    })
  }
}
