import { modeName, type QuoteDescription } from './quote-report.js'

type ModeLine = NonNullable<QuoteDescription['delta']>

/** The report as text for a person; the impact warning is separate (impactWarning). */
export function formatQuote(described: QuoteDescription): string {
  const { sell, buy } = described
  const route = sell.chainId === buy.chainId ? `chain ${sell.chainId}` : `chain ${sell.chainId} → ${buy.chainId}`
  const fixed = described.side === 'SELL' ? sell.symbol : buy.symbol
  const lines = [
    `${sell.symbol} → ${buy.symbol} on ${route}: ${described.side} ${described.amount} ${fixed}` +
      (described.referenceAmount === null ? '' : ` (price impact against ${described.referenceAmount} ${fixed})`),
  ]
  const mode = (name: string, line: ModeLine | undefined) => {
    if (!line) return
    if (line.error !== undefined) {
      lines.push(`${name.padEnd(7)} unavailable: ${line.error}`)
      return
    }
    lines.push(`${name.padEnd(7)} ${line.srcAmount} ${sell.symbol} → ${line.destAmount} ${buy.symbol}`)
    if (line.refused !== null) lines.push(`        refused: ${line.refused}`)
    const [variable, fixed] = described.side === 'SELL' ? [buy.symbol, sell.symbol] : [sell.symbol, buy.symbol]
    lines.push(`        unit price  ${formatPrice(line.unitPrice)} ${variable} per ${fixed}${impactText(line, described)}`)
    if (line.net) {
      const { net } = line
      const gas = net.gasInPrice
        ? 'gas in the price (Delta’s agents pay it)'
        : net.gasUnpriced
          ? 'gas not counted (no USD value to convert it)'
          : `gas ${net.gas} ${net.symbol}`
      lines.push(`        net         ${net.amount} ${net.symbol} ${net.side}, with partner fee ${net.partnerFee} ${net.symbol} and ${gas}`)
    }
    const fee = line.detail.partnerFeePercent
    lines.push(
      `        partnerFeePercent ${fee} (a percent: ${fee} % of the amount)` +
        (line.detail.gasCostUSD === undefined ? '' : `, gasCostUSD ${line.detail.gasCostUSD}`) +
        `, spender ${line.detail.spender}`,
    )
  }
  mode('Delta', described.delta)
  mode('Market', described.market)
  const chosen = described.chosen === null ? undefined : modeName(described.chosen)
  lines.push(
    chosen ? `chosen: ${chosen}: ${described.choice.why}` : `chosen: none (no mode can execute this swap): ${described.choice.why}`,
  )
  if (described.serviceChoice !== null && described.serviceChoice !== described.chosen) {
    lines.push(`        (the service's own unified quote would pick ${modeName(described.serviceChoice)})`)
  }
  const warning = impactWarning(described)
  if (warning) lines.push('', warning)
  lines.push('')
  return lines.join('\n')
}

/** The loud lines when a price impact is above the limit (the chosen mode's, or any quote's when none is chosen). */
export function impactWarning(described: QuoteDescription): string | undefined {
  const { impact } = described
  const limit = `the ${impact.limitPercent} % limit (--max-impact, risk.maxPriceImpactPercent)`
  if (impact.exceeded && impact.chosenPercent !== null) {
    const mode = modeName(described.chosen ?? 'market')
    const what = `WARNING: PRICE IMPACT ${formatPercent(impact.chosenPercent)} % of the ${mode} quote is above ${limit}: \`deltaflow swap\` would refuse it.`
    return impact.allowed
      ? `${what} Reported anyway (--allow-impact).`
      : `${what} Trade a smaller amount (or split it), raise --max-impact, or pass --allow-impact to accept this quote.`
  }
  if (impact.unchosenAboveLimit.length === 0) return undefined
  const quotes = impact.unchosenAboveLimit.map(({ mode, percent }) => `${modeName(mode)} ${formatPercent(percent)} %`).join(', ')
  return `WARNING: PRICE IMPACT above ${limit}: ${quotes}. Trade a smaller amount (or split it).`
}

function impactText(line: ModeLine, described: QuoteDescription): string {
  if (line.error !== undefined || !line.reference || described.referenceAmount === null) return ''
  const fixed = described.side === 'SELL' ? described.sell.symbol : described.buy.symbol
  const impact = line.priceImpactPercent === null ? 'n/a' : `${formatPercent(line.priceImpactPercent)} %`
  const usd = line.usdImpactPercent === null ? '' : `; USD value lost ${formatPercent(line.usdImpactPercent)} % (what swap checks)`
  return `, price impact ${impact} (${modeName(line.reference.mode)} gives ${formatPrice(line.reference.unitPrice)} for ${described.referenceAmount} ${fixed})${usd}`
}

/** A decimal price with 8 significant digits, without exponent. */
function formatPrice(text: string | null): string {
  if (text === null) return 'n/a'
  const value = Number(text)
  if (!Number.isFinite(value) || value === 0) return text
  const decimals = Math.max(0, 8 - Math.floor(Math.log10(Math.abs(value))) - 1)
  return value
    .toFixed(Math.min(decimals, 18))
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '')
}

function formatPercent(value: number): string {
  return value.toFixed(2)
}
