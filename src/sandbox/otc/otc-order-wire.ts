import { fillableMakerAmount, minBigint, reservedMakerAmount, type StoredOtcOrder, swappableMakerAmount } from './otc-order.js'

/**
 * The stored form of section 2.6, as the service returns it: addresses lowercase (as in the real order objects),
 * amounts as decimal strings, times in unix seconds.
 */
export function toOtcOrderWire(stored: StoredOtcOrder) {
  const { order } = stored
  const fillable = fillableMakerAmount(stored)
  return {
    orderHash: stored.orderHash,
    chainId: stored.chainId,
    nonceAndMeta: order.nonceAndMeta.toString(),
    expiry: Number(order.expiry),
    maker: order.maker.toLowerCase(),
    taker: order.taker.toLowerCase(),
    makerAsset: order.makerAsset.toLowerCase(),
    takerAsset: order.takerAsset.toLowerCase(),
    makerAmount: order.makerAmount.toString(),
    takerAmount: order.takerAmount.toString(),
    signature: stored.signature,
    permitMakerAsset: stored.permitMakerAsset,
    state: stored.state,
    type: stored.type,
    takerFromMeta: stored.takerFromMeta.toLowerCase(),
    makerBalance: minBigint(stored.makerFunds, fillable).toString(),
    fillableBalance: fillable.toString(),
    reservedBalance: reservedMakerAmount(stored).toString(),
    swappableBalance: swappableMakerAmount(stored).toString(),
    transactionHash: stored.transactionHash,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
  }
}

export type OtcOrderWire = ReturnType<typeof toOtcOrderWire>
