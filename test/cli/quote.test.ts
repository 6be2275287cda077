import { parseUnits } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import type { SandboxInfo } from '../../src/sandbox/start-sandbox.js'
import { type DeltaflowSandbox, runDeltaflow, startDeltaflowSandbox } from '../helpers/deltaflow-cli.js'

type ModeLine = {
  srcAmount: string
  destAmount: string
  detail: Record<string, string>
  refused: string | null
  unitPrice: string | null
  reference: { mode: string; srcAmount: string; destAmount: string; unitPrice: string | null } | null
  priceImpactPercent: number | null
  usdImpactPercent: number | null
  net: { symbol: string; amount: string; gross: string; partnerFee: string; gas: string; side: string } | null
}
type QuoteJson = {
  amount: string
  referenceAmount: string | null
  delta?: ModeLine | { error: string }
  market?: ModeLine | { error: string }
  chosen: string | null
  choice: { mode: string | null; reason: string; why: string; explanation: string }
  impact: { limitPercent: number; chosenPercent: number | null; exceeded: boolean; allowed: boolean; unchosenAboveLimit: unknown[] }
  units: Record<string, string>
}

const quoted = (line: ModeLine | { error: string } | undefined): ModeLine => {
  if (!line || 'error' in line) throw new Error(`expected a quote, received ${JSON.stringify(line)}`)
  return line
}

describe('deltaflow quote against `deltaflow sandbox`', () => {
  let sandbox: DeltaflowSandbox
  let info: SandboxInfo
  beforeAll(async () => {
    sandbox = await startDeltaflowSandbox(['--chains', '1'])
    info = sandbox.info
  })
  afterAll(async () => {
    await sandbox.stop()
  })

  const key = { DELTAFLOW_PRIVATE_KEY: developmentAccounts[1]?.privateKey ?? '' }
  const quote = (...args: string[]) =>
    runDeltaflow(['quote', '--venue', info.url, '--rpc', `1=${info.chains[0]?.rpcUrl}`, '--chain', '1', ...args], key)

  it('shows per mode the unit price, the impact against a small size, the amount net of gas and fees, and why', async () => {
    const { code, stdout, stderr } = await quote('--sell', 'WETH', '--buy', 'USDC', '--amount', '1.5', '--json')
    expect(code, stderr).toBe(0)
    const result = JSON.parse(stdout) as QuoteJson
    expect(result.referenceAmount).toBe('0.0015')
    for (const line of [quoted(result.delta), quoted(result.market)]) {
      expect(line.srcAmount).toBe('1.5')
      // USDC received per WETH sold, from the amounts themselves.
      expect(Number(line.unitPrice)).toBeCloseTo(Number(line.destAmount) / 1.5, 3)
      expect(line.reference?.srcAmount).toBe('0.0015')
      expect(Math.abs(line.priceImpactPercent ?? 100)).toBeLessThan(1)
      // Net of the partner fee and the gas, in USDC to the unit.
      const net = line.net ?? { symbol: '', side: '', amount: '', gross: '', partnerFee: '', gas: '' }
      expect(net).toMatchObject({ symbol: 'USDC', side: 'received', gross: line.destAmount })
      const usdc = (text: string) => parseUnits(text, 6)
      expect(usdc(net.amount)).toBe(usdc(net.gross) - usdc(net.partnerFee) - usdc(net.gas))
      expect(line.detail.partnerFeePercent).toBe('0.01')
    }
    // Market's gas is paid on top and converted to USDC; Delta's agents pay it (it is in Delta's price).
    expect(Number(quoted(result.market).net?.gas)).toBeGreaterThan(0)
    expect(quoted(result.delta).net?.gas).toBe('0')
    expect(result.chosen).toBe(result.choice.mode)
    expect(['delta', 'market']).toContain(result.chosen)
    expect(result.choice.why).toMatch(/net received: Delta [\d.]+ USDC, Market [\d.]+ USDC/)
    expect(result.units).toMatchObject({
      unitPrice: 'USDC received per WETH',
      partnerFeePercent: 'percent of the amount (0.01 = 0.01 % = 1 bp, not 1 %)',
    })
    expect(result.impact).toMatchObject({ limitPercent: 15, exceeded: false })
  })

  it('states the unit of partnerFeePercent and the reason of the choice in the text report', async () => {
    const { code, stdout } = await quote('--sell', 'WETH', '--buy', 'USDC', '--amount', '1.5')
    expect(code).toBe(0)
    expect(stdout).toMatch(/unit price {2}[\d.]+ USDC per WETH, price impact -?[\d.]+ % \((Delta|Market) gives [\d.]+ for 0\.0015 WETH\)/)
    expect(stdout).toMatch(/net {9}[\d.]+ USDC received, with partner fee [\d.]+ USDC and gas [\d.]+ USDC/)
    expect(stdout).toContain('partnerFeePercent 0.01 (a percent: 0.01 % of the amount)')
    expect(stdout).toMatch(/^chosen: (Delta|Market): .+net received: Delta [\d.]+ USDC, Market [\d.]+ USDC/m)
  })

  it('prices a BUY per unit bought', async () => {
    const { code, stdout, stderr } = await quote('--sell', 'USDC', '--buy', 'WETH', '--side', 'BUY', '--amount', '1', '--json')
    expect(code, stderr).toBe(0)
    const result = JSON.parse(stdout) as QuoteJson
    const market = quoted(result.market)
    expect(result.units.unitPrice).toBe('USDC paid per WETH')
    expect(Number(market.unitPrice)).toBeCloseTo(Number(market.srcAmount), 3)
    expect(market.net).toMatchObject({ symbol: 'USDC', side: 'paid' })
    expect(Number(market.net?.amount)).toBeGreaterThan(Number(market.srcAmount))
  })

  it('warns loudly and exits 1 when the size moves the price far beyond the limit swap applies', async () => {
    const { code, stdout } = await quote('--sell', 'WETH', '--buy', 'USDC', '--amount', '100000')
    expect(code).toBe(1)
    const market = /^Market {2}100000 WETH → ([\d.]+) USDC$/m.exec(stdout)
    expect(Number(market?.[1]) / 100000).toBeLessThan(1000)
    expect(stdout).toMatch(/unit price {2}[\d.]+ USDC per WETH, price impact (\d+)\.\d+ %/)
    // Market is chosen and above the limit, or (as the sandbox answers today) refused for its maxImpactReached.
    expect(stdout).toMatch(/^WARNING: PRICE IMPACT .*Market.* 15 % limit|^WARNING: PRICE IMPACT .* 15 % limit.*Market \d\d\.\d\d %/m)
    const json = await quote('--sell', 'WETH', '--buy', 'USDC', '--amount', '100000', '--json')
    expect(json.code).toBe(1)
    const result = JSON.parse(json.stdout) as QuoteJson
    expect(quoted(result.market).priceImpactPercent).toBeGreaterThan(50)
    expect(json.stderr).toContain('WARNING: PRICE IMPACT')
  })

  it('fails a chosen quote above --max-impact unless --allow-impact is given', async () => {
    const refused = await quote('--sell', 'WETH', '--buy', 'USDC', '--amount', '300', '--max-impact', '0.5')
    expect(refused.code).toBe(1)
    expect(refused.stdout).toMatch(
      /WARNING: PRICE IMPACT [\d.]+ % of the (Delta|Market) quote is above the 0\.5 % limit .*`deltaflow swap` would refuse it\. .*--allow-impact/,
    )
    const allowed = await quote('--sell', 'WETH', '--buy', 'USDC', '--amount', '300', '--max-impact', '0.5', '--allow-impact', '--json')
    expect(allowed.code, allowed.stderr).toBe(0)
    const result = JSON.parse(allowed.stdout) as QuoteJson
    expect(result.impact).toMatchObject({ limitPercent: 0.5, exceeded: true, allowed: true })
    expect(result.impact.chosenPercent).toBeGreaterThan(0.5)
    expect(allowed.stderr).toContain('Reported anyway (--allow-impact)')
  })
})
