import { parseEther, parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import { buildMarketTransaction } from '../../src/api/market/build-market-transaction.js'
import { getMarketPrices } from '../../src/api/market/get-market-prices.js'
import { netMarketAmount } from '../../src/exec/mode/net-amounts.js'
import { nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { sandboxToken, sandboxWallet, useSandbox } from '../helpers/sandbox.js'
import { sandboxClient } from './delta-flow.js'

describe('Market routes with a partner fee, through the API client', () => {
  const sandbox = useSandbox({ chainIds: [1] })
  const api = () => sandboxClient(sandbox(), { partner: 'paper-desk' })

  it('reads destAmountAfterFee as an amount, and the bot nets the route with it', async () => {
    const route = await getMarketPrices(api(), { srcToken: 'ETH', destToken: 'USDC', amount: parseEther('1'), partnerFeeBps: 30 })
    expect(route.destAmountAfterFee).toBe(route.destAmount - (route.destAmount * 30n) / 10_000n)
    expect(route.partnerFee).toBe(0.31)
    expect(netMarketAmount(route, 'SELL').fee).toBe(route.destAmount - (route.destAmountAfterFee ?? 0n))
  })

  it('prices a listed token given by address without its decimals', async () => {
    const usdc = sandboxToken(sandbox(), 1, 'USDC')
    const route = await getMarketPrices(api(), { srcToken: nativeTokenPlaceholder, destToken: usdc.address, amount: parseUnits('1', 15) })
    expect(route.destDecimals).toBe(usdc.decimals)
  })

  it('sends the partnerFeeBps and partnerAddress of the build to the router call', async () => {
    const wallet = sandboxWallet(sandbox(), 1, 4)
    const route = await getMarketPrices(api(), { srcToken: 'ETH', destToken: 'USDC', amount: parseEther('0.1'), partnerFeeBps: 30 })
    const transaction = await buildMarketTransaction(api(), {
      priceRoute: route,
      userAddress: wallet.account.address,
      slippage: 100,
      partnerAddress: sandboxWallet(sandbox(), 1, 5).account.address,
      partnerFeeBps: 30,
      onlyParams: true,
    })
    expect(transaction).toMatchObject({ options: { partnerFeeBps: '30', partner: sandboxWallet(sandbox(), 1, 5).account.address } })
  })
})
