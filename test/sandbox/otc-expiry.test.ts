import type { Address } from 'viem'
import { parseEther, parseUnits } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import type { RfqOrder } from '../../src/protocol/rfq-order.js'
import { otcCounterpartyAddresses } from '../../src/sandbox/otc/otc-counterparty-accounts.js'
import {
  approveRfq,
  asOtcOrder,
  developmentAccount,
  makeRfqOrder,
  postOtcOrder,
  sandboxNow,
  sandboxToken,
  userWallet,
  waitForOrder,
} from '../helpers/otc.js'
import { request, useSandbox } from '../helpers/sandbox.js'

const chainId = 1

// One real second is a sandbox minute: expiries and the counterparty's delay pass quickly.
describe('OTC orders on a fast sandbox clock', () => {
  const sandbox = useSandbox({ chainIds: [1], speed: 60 })
  const token = (symbol: string) => sandboxToken(sandbox(), chainId, symbol)
  const order = (fields: Partial<RfqOrder>) =>
    makeRfqOrder({
      expiry: sandboxNow(sandbox()) + 3_600n,
      makerAsset: token('USDC'),
      takerAsset: token('WETH'),
      maker: developmentAccount(1).address,
      taker: developmentAccount(2).address,
      makerAmount: parseUnits('200', 6),
      takerAmount: parseEther('0.1'),
      ...fields,
    })

  beforeAll(async () => {
    await approveRfq(sandbox(), userWallet(sandbox(), chainId, 1), token('USDC'))
  })

  it('marks an order EXPIRED once the sandbox clock passes its expiry, and stops reserving for it', async () => {
    const expiring = asOtcOrder(await postOtcOrder(sandbox(), 1, order({ expiry: sandboxNow(sandbox()) + 90n })))
    const lasting = asOtcOrder(await postOtcOrder(sandbox(), 1, order({ expiry: 0n, makerAmount: parseUnits('300', 6) })))
    expect(expiring.state).toBe('PENDING')

    const expired = await waitForOrder(sandbox(), expiring.orderHash, (current) => current.state !== 'PENDING')
    expect(expired).toMatchObject({ state: 'EXPIRED', reservedBalance: '0', swappableBalance: '0', fillableBalance: '200000000' })
    expect(expired.updatedAt).toBeGreaterThan(Number(expiring.expiry))

    expect(asOtcOrder(await request(sandbox().url, 'GET', `/ft/order/${lasting.orderHash}`)).state).toBe('PENDING')
    const reserved = await request(sandbox().url, 'GET', `/ft/fillablebalance/${chainId}/${developmentAccount(1).address}`)
    expect(reserved.json).toEqual({ [token('USDC').toLowerCase()]: '300000000' })
  })

  it('has the counterparty fill a P2P order before its expiry on a fast clock', async () => {
    const counterparty = otcCounterpartyAddresses()[2] as Address
    const posted = asOtcOrder(await postOtcOrder(sandbox(), 1, order({ taker: counterparty, expiry: sandboxNow(sandbox()) + 600n })))
    const settled = await waitForOrder(sandbox(), posted.orderHash, (current) => current.state !== 'PENDING')
    expect(settled.state).toBe('FULFILLED')
  })
})
