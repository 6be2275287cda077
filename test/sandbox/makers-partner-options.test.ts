import { type Address, erc20Abi, maxUint256, parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { marketRouterAddress, rfqAddresses } from '../../src/protocol/addresses.js'
import type { PriceGrid } from '../../src/protocol/price-grid.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { sandboxAddress } from '../../src/sandbox/chains/catalogue.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import type { PriceRouteJson } from '../../src/sandbox/market/price-route.js'
import { type RunningSandbox, startSandbox } from '../../src/sandbox/start-sandbox.js'
import {
  approveToken,
  balanceOf,
  broadcast,
  buildMarketTransaction,
  type Envelope,
  marketWallet,
  quoteMarket,
  tokenAddress,
} from '../helpers/market.js'
import { catalogueMakerTokens, type ScriptedMaker, startScriptedMaker, waitUntil } from '../helpers/scripted-maker.js'
import { placeIntermediary, sendThroughIntermediary } from './market-intermediary.js'

const chainId = 1
const rfq = rfqAddresses[chainId] ?? '0x'
const book: PriceGrid = {
  bids: [
    ['1960', '2'],
    ['1955.5', '10'],
  ],
  asks: [
    ['1962', '2'],
    ['1966.25', '10'],
  ],
}
const credentials = { domain: 'partner-options-tests', accessKey: 'key-3', secret: 'a-third-secret' }
const oneWeth = 10n ** 18n
const makerIndex = 9

function account(index: number) {
  const key = developmentAccounts[index]?.privateKey
  if (!key) throw new Error(`no development account ${index}`)
  return privateKeyToAccount(key)
}

describe('sandbox makers: partner fee and txOrigin on maker routes', () => {
  let maker: ScriptedMaker
  let sandbox: RunningSandbox
  let weth: Address
  let usdc: Address

  beforeAll(async () => {
    maker = await startScriptedMaker({
      chainId,
      rfq,
      account: account(makerIndex),
      impostor: account(8),
      tokens: catalogueMakerTokens(chainId, ['WETH', 'USDC']),
      pairs: { 'WETH/USDC': { base: 'WETH', quote: 'USDC' } },
      prices: { 'WETH/USDC': book },
      credentials,
    })
    sandbox = await startSandbox({
      chainIds: [chainId],
      market: 'still',
      makers: [{ name: 'scripted', chainId, url: maker.url, auth: credentials }],
      makerTiming: { pricesIntervalMs: 100, firmTimeoutMs: 2_000 },
    })
    weth = tokenAddress(sandbox, chainId, 'WETH')
    usdc = tokenAddress(sandbox, chainId, 'USDC')
    const makerWallet = marketWallet(sandbox, chainId, makerIndex)
    await approveToken(makerWallet, weth, rfq, maxUint256)
    await approveToken(makerWallet, usdc, rfq, maxUint256)
  })
  afterAll(async () => {
    await sandbox?.stop()
    await maker?.close()
  })

  const quoteThroughMaker = async (query: { srcToken: string; destToken: string; side: 'SELL' | 'BUY'; userAddress: Address }) => {
    await waitUntil(() => sandbox.makers.get('scripted')?.status().state === 'ok', { what: 'the maker in routing' })
    const route = await quoteMarket(sandbox, {
      network: String(chainId),
      version: '6.2',
      ...query,
      amount: String(oneWeth),
      partner: 'paper-desk',
      partnerFeeBps: '40',
    })
    expect(route.bestRoute[0]?.swaps[0]?.swapExchanges[0]?.exchange).toBe('AugustusRFQ')
    return route
  }

  const build = (route: PriceRouteJson, userAddress: Address, extra: Record<string, unknown>) =>
    buildMarketTransaction(sandbox, chainId, {
      priceRoute: route,
      srcToken: route.srcToken,
      destToken: route.destToken,
      userAddress,
      ...(route.side === 'SELL' ? { srcAmount: route.srcAmount } : { destAmount: route.destAmount }),
      slippage: 50,
      partner: 'paper-desk',
      partnerFeeBps: '40',
      ...extra,
    })

  /** The maker's fill of the last firm order for `takerFill` (rounded down, as the RFQ contract computes it). */
  const lastMakerFill = (takerFill: bigint) => {
    const order = maker.firmOrders.at(-1) as Record<string, string>
    return (takerFill * BigInt(order.makerAmount ?? 0)) / BigInt(order.takerAmount ?? 1)
  }

  it('takes the partner fee out of the maker asset on a SELL: the user receives the fill less the fee', async () => {
    const user = marketWallet(sandbox, chainId, 1)
    await approveToken(user, weth, marketRouterAddress, maxUint256)
    const partner = privateKeyToAccount(generatePrivateKey()).address
    const route = await quoteThroughMaker({ srcToken: 'WETH', destToken: 'USDC', side: 'SELL', userAddress: user.account.address })
    const built = await build(route, user.account.address, { partnerAddress: partner, isDirectFeeTransfer: true })
    expect(built.status, built.text).toBe(200)
    const makerFill = lastMakerFill(oneWeth)
    const fee = (makerFill * 40n) / 10_000n
    const before = await balanceOf(user, usdc)
    expect((await broadcast(user, built.json as Envelope)).status).toBe('success')
    expect((await balanceOf(user, usdc)) - before).toBe(makerFill - fee)
    expect(await user.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [partner] })).toBe(fee)
  })

  it('charges the partner fee of a BUY in the taker asset on top of the fill, accrued in the router', async () => {
    const user = marketWallet(sandbox, chainId, 2)
    await approveToken(user, usdc, marketRouterAddress, maxUint256)
    const partner = privateKeyToAccount(generatePrivateKey()).address
    const route = await quoteThroughMaker({ srcToken: 'USDC', destToken: 'WETH', side: 'BUY', userAddress: user.account.address })
    const built = await build(route, user.account.address, { partnerAddress: partner })
    expect(built.status, built.text).toBe(200)
    const order = maker.firmOrders.at(-1) as Record<string, string>
    const makerAmount = BigInt(order.makerAmount ?? 0)
    const takerFill = (oneWeth * BigInt(order.takerAmount ?? 1) + makerAmount - 1n) / makerAmount
    const fee = (takerFill * 40n) / 10_000n
    const before = await balanceOf(user, usdc)
    expect((await broadcast(user, built.json as Envelope)).status).toBe('success')
    expect(before - (await balanceOf(user, usdc))).toBe(takerFill + fee)
    const accrued = await user.readContract({
      address: marketRouterAddress,
      abi: getContractArtifact('MarketRouter').abi,
      functionName: 'partnerFees',
      args: [partner, usdc],
    })
    expect(accrued).toBe(fee)
  })

  it('asks the maker for txOrigin, and the intermediary contract fills the firm quote made for it', async () => {
    const signer = marketWallet(sandbox, chainId, 3)
    const intermediary = sandboxAddress('test.makers.tx-origin.wallet')
    await placeIntermediary(sandbox, chainId, signer, intermediary, { WETH: parseEther('2') })
    const route = await quoteThroughMaker({ srcToken: 'WETH', destToken: 'USDC', side: 'SELL', userAddress: signer.account.address })
    const built = await buildMarketTransaction(sandbox, chainId, {
      priceRoute: route,
      srcToken: 'WETH',
      destToken: 'USDC',
      srcAmount: route.srcAmount,
      slippage: 50,
      userAddress: intermediary,
      txOrigin: signer.account.address,
    })
    expect(built.status, built.text).toBe(200)
    expect(maker.firmRequests.at(-1)?.userAddress).toBe(signer.account.address)
    const makerFill = lastMakerFill(oneWeth)
    const balance = () => signer.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [intermediary] })
    const before = await balance()
    const envelope = built.json as Envelope
    expect(await sendThroughIntermediary(signer, intermediary, envelope.to, envelope.data)).toBe('success')
    expect((await balance()) - before).toBe(makerFill)
  })
})
