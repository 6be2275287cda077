import { ApiError } from '../server/api-error.js'
import { marketErrors } from './market-errors.js'

// Transfer taxes of GET /prices (basis points): `…TransferFee` is charged on every transfer of the token,
// `…DexTransferFee` only on transfers into or out of a DEX. A source travels user → router (transfer tax) → pool
// (DEX tax); an output pool → router (DEX tax) → user (transfer tax).

export type TransferTaxes = {
  srcTokenTransferFee?: number | undefined
  destTokenTransferFee?: number | undefined
  srcTokenDexTransferFee?: number | undefined
  destTokenDexTransferFee?: number | undefined
}

const bps = 10_000n

export function hasTransferTaxes(taxes: TransferTaxes): boolean {
  return [taxes.srcTokenTransferFee, taxes.destTokenTransferFee, taxes.srcTokenDexTransferFee, taxes.destTokenDexTransferFee].some(
    (fee) => (fee ?? 0) > 0,
  )
}

/** What reaches the pools of `amount` sent by the user (each tax rounded in the token's favour). */
export function sourceIntoPools(amount: bigint, taxes: TransferTaxes): bigint {
  return afterTax(afterTax(amount, taxes.srcTokenTransferFee), taxes.srcTokenDexTransferFee)
}

/** What the user receives of the pools' `output`. */
export function outputToUser(output: bigint, taxes: TransferTaxes): bigint {
  return afterTax(afterTax(output, taxes.destTokenDexTransferFee), taxes.destTokenTransferFee)
}

/** The least the user must send so that `amount` reaches the pools. */
export function sourceForPools(amount: bigint, taxes: TransferTaxes): bigint {
  return beforeTax(
    beforeTax(amount, taxes.srcTokenDexTransferFee, 'srcTokenDexTransferFee'),
    taxes.srcTokenTransferFee,
    'srcTokenTransferFee',
  )
}

/** The least the pools must output so that the user receives `amount`. */
export function outputForUser(amount: bigint, taxes: TransferTaxes): bigint {
  return beforeTax(
    beforeTax(amount, taxes.destTokenTransferFee, 'destTokenTransferFee'),
    taxes.destTokenDexTransferFee,
    'destTokenDexTransferFee',
  )
}

function afterTax(amount: bigint, fee: number | undefined): bigint {
  return (amount * (bps - BigInt(fee ?? 0))) / bps
}

/** The least `x` with afterTax(x) >= amount. */
function beforeTax(amount: bigint, fee: number | undefined, name: string): bigint {
  const kept = bps - BigInt(fee ?? 0)
  if (kept === 0n) {
    throw new ApiError(marketErrors.noRoutes, {
      message: `${marketErrors.noRoutes.message}: ${name}=10000 taxes away every transfer, so no amount can be delivered`,
    })
  }
  return (amount * bps + kept - 1n) / kept
}
