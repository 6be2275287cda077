import type { Address, Hex } from 'viem'
import { parseEther, parseUnits } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import type { RfqOrder } from '../../src/protocol/rfq-order.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import { otcCounterpartyAddresses } from '../../src/sandbox/otc/otc-counterparty-accounts.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import {
  approveRfq,
  asOtcOrder,
  developmentAccount,
  makeRfqOrder,
  postOtcOrder,
  rfqDomain,
  sandboxNow,
  sandboxToken,
  sendAndWait,
  signRfqOrder,
  userWallet,
  waitForOrder,
} from '../helpers/otc.js'
import { request, useSandbox } from '../helpers/sandbox.js'

const rfqAbi = getContractArtifact('RfqSettlement').abi

const chainId = 1

/** Development account 1 sells 200 USDC for 0.1 WETH to account 2, expiring in an hour unless `fields` say otherwise. */
function usdcForWeth(sandbox: RunningSandbox, fields: Partial<RfqOrder>): RfqOrder {
  return makeRfqOrder({
    expiry: sandboxNow(sandbox) + 3_600n,
    makerAsset: sandboxToken(sandbox, chainId, 'USDC'),
    takerAsset: sandboxToken(sandbox, chainId, 'WETH'),
    maker: developmentAccount(1).address,
    taker: developmentAccount(2).address,
    makerAmount: parseUnits('200', 6),
    takerAmount: parseEther('0.1'),
    ...fields,
  })
}

// One real second is a sandbox minute: expiries and the counterparty's delay pass quickly.
describe('OTC orders on a fast sandbox clock', () => {
  const sandbox = useSandbox({ chainIds: [1], speed: 60 })
  const token = (symbol: string) => sandboxToken(sandbox(), chainId, symbol)
  const order = (fields: Partial<RfqOrder>) => usdcForWeth(sandbox(), fields)

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

// The contract fills while block.timestamp <= expiry, and a chain's time can trail the sandbox clock (between two
// syncs on a fast clock; here, set an hour back): an order the clock has passed may still be filled on chain, so it
// is not EXPIRED until the chain's own time has passed its expiry too. A bot told EXPIRED takes it as final.
describe('OTC expiry when the chain time trails the sandbox clock', () => {
  const sandbox = useSandbox({ chainIds: [1] })
  const token = (symbol: string) => sandboxToken(sandbox(), chainId, symbol)
  const chainRpc = (method: string, params: unknown[]) =>
    userWallet(sandbox(), chainId, 1).request({ method, params } as never) as Promise<unknown>
  const chainSeconds = async () => (await userWallet(sandbox(), chainId, 1).getBlock({ blockTag: 'pending' })).timestamp
  const post = async (expirySeconds: bigint) => {
    const signed = usdcForWeth(sandbox(), { expiry: sandboxNow(sandbox()) + expirySeconds })
    const posted = asOtcOrder(await postOtcOrder(sandbox(), 1, signed))
    return { signed, posted }
  }
  /** The order's states read every 50 ms until the sandbox clock is `seconds` past its expiry. */
  const statesUntilPast = async (orderHash: Hex, expiry: bigint, seconds: bigint) => {
    const seen = new Set<string>()
    while (sandboxNow(sandbox()) <= expiry + seconds) {
      seen.add(asOtcOrder(await request(sandbox().url, 'GET', `/ft/order/${orderHash}`)).state)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return seen
  }

  beforeAll(async () => {
    await approveRfq(sandbox(), userWallet(sandbox(), chainId, 1), token('USDC'))
    await approveRfq(sandbox(), userWallet(sandbox(), chainId, 2), token('WETH'))
    await chainRpc('evm_setTime', [Number(sandboxNow(sandbox())) - 3_600])
    await chainRpc('evm_mine', [])
  })

  it('keeps an order the clock has passed PENDING while the chain can fill it, and FULFILLED by the fill that comes', async () => {
    const { signed, posted } = await post(2n)
    const states = await statesUntilPast(posted.orderHash, BigInt(posted.expiry as number), 1n)
    expect([...states]).toEqual(['PENDING'])
    expect(await chainSeconds()).toBeLessThanOrEqual(BigInt(posted.expiry as number))

    const taker = userWallet(sandbox(), chainId, 2)
    const signature = await signRfqOrder(1, signed, rfqDomain(sandbox(), chainId))
    const fill = await sendAndWait(taker, {
      address: rfqDomain(sandbox(), chainId).verifyingContract,
      abi: rfqAbi,
      functionName: 'fillOrder',
      args: [signed, signature],
      account: taker.account,
      chain: taker.chain,
    })
    const settled = await waitForOrder(sandbox(), posted.orderHash, (current) => current.state !== 'PENDING')
    expect(settled).toMatchObject({ state: 'FULFILLED', transactionHash: fill.transactionHash })
  })

  it('marks it EXPIRED once the chain time has passed its expiry as well', async () => {
    const { posted } = await post(2n)
    expect([...(await statesUntilPast(posted.orderHash, BigInt(posted.expiry as number), 1n))]).toEqual(['PENDING'])
    await chainRpc('evm_setTime', [Number(sandboxNow(sandbox()))])
    await chainRpc('evm_mine', [])
    const expired = await waitForOrder(sandbox(), posted.orderHash, (current) => current.state !== 'PENDING')
    expect(expired.state).toBe('EXPIRED')
  })
})
