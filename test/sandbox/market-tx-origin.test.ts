import { type Address, erc20Abi, parseUnits } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { sandboxAddress } from '../../src/sandbox/chains/catalogue.js'
import { buildMarketTransaction, type Envelope, marketWallet, quoteMarket, tokenAddress } from '../helpers/market.js'
import { useSandbox } from '../helpers/sandbox.js'
import { placeIntermediary, sendThroughIntermediary } from './market-intermediary.js'

const chainId = 1
describe('POST /transactions/{chainId} with txOrigin', () => {
  const sandbox = useSandbox({ chainIds: [chainId], market: 'still' })
  const intermediary = sandboxAddress('test.market.tx-origin.wallet')
  const signer = () => marketWallet(sandbox(), chainId, 6)
  const sellUsdc = { srcToken: 'USDC', destToken: 'WETH', amount: parseUnits('500', 6).toString(), version: '6.2' }

  beforeAll(async () => {
    await placeIntermediary(sandbox(), chainId, signer(), intermediary, { USDC: parseUnits('1000', 6) })
  })

  const build = async (userAddress: Address, txOrigin: Address) => {
    const route = await quoteMarket(sandbox(), sellUsdc)
    const answer = await buildMarketTransaction(sandbox(), chainId, {
      priceRoute: route,
      srcToken: 'USDC',
      destToken: 'WETH',
      srcAmount: route.srcAmount,
      slippage: 0,
      userAddress,
      txOrigin,
    })
    return { route, answer }
  }

  it('checks and simulates the swap as the contract calling the router in a transaction from txOrigin; it then succeeds on-chain', async () => {
    const { route, answer } = await build(intermediary, signer().account.address)
    expect(answer.status, answer.text).toBe(200)
    const envelope = answer.json as Envelope
    expect(envelope.from).toBe(intermediary)
    expect(BigInt(envelope.gas ?? 0)).toBeGreaterThan(21_000n)
    const weth = tokenAddress(sandbox(), chainId, 'WETH')
    const before = await signer().readContract({ address: weth, abi: erc20Abi, functionName: 'balanceOf', args: [intermediary] })
    expect(await sendThroughIntermediary(signer(), intermediary, envelope.to, envelope.data)).toBe('success')
    const after = await signer().readContract({ address: weth, abi: erc20Abi, functionName: 'balanceOf', args: [intermediary] })
    expect(after - before).toBe(BigInt(route.destAmount))
  })

  it('refuses a txOrigin that differs from a userAddress without contract code', async () => {
    const user = marketWallet(sandbox(), chainId, 1).account.address
    const { answer } = await build(user, signer().account.address)
    expect(answer.status).toBe(400)
    expect((answer.json as { error: string }).error).toBe(
      `Validation failed: body.txOrigin: ${signer().account.address} differs from userAddress ${user}, which has no contract code and so can only call the router in its own transactions; omit txOrigin, or set userAddress to the contract that calls the router`,
    )
  })

  it('refuses a txOrigin that is a contract', async () => {
    const { answer } = await build(signer().account.address, intermediary)
    expect(answer.status).toBe(400)
    expect((answer.json as { error: string }).error).toMatch(
      new RegExp(`^Validation failed: body\\.txOrigin: ${intermediary} is a contract; txOrigin is the account that signs and sends`),
    )
  })

  it('accepts txOrigin equal to userAddress as a plain build', async () => {
    const wallet = marketWallet(sandbox(), chainId, 6)
    const route = await quoteMarket(sandbox(), { ...sellUsdc, srcToken: 'ETH', destToken: 'USDC', amount: '1000000000000000' })
    const answer = await buildMarketTransaction(sandbox(), chainId, {
      priceRoute: route,
      srcToken: 'ETH',
      destToken: 'USDC',
      srcAmount: route.srcAmount,
      slippage: 50,
      userAddress: wallet.account.address,
      txOrigin: wallet.account.address,
    })
    expect(answer.status, answer.text).toBe(200)
  })
})
