import { type Command, InvalidArgumentError, Option } from 'commander'
import { addVenueOptions, type VenueOptions } from './venue-options.js'

export type TradeOptions = VenueOptions & {
  chain: number
  sell: string
  buy: string
  amount: string
  side: 'SELL' | 'BUY'
  destChain?: number
  mode: 'delta' | 'market' | 'all'
}

/** Flags shared by `quote` and `swap`. */
export function addTradeOptions(command: Command): Command {
  return addVenueOptions(
    command
      .requiredOption('--chain <id>', 'source chain id', parseChainId('--chain'))
      .requiredOption('--sell <token>', 'token sold: symbol, address or ETH')
      .requiredOption('--buy <token>', 'token bought: symbol, address or ETH (on --dest-chain when given)')
      .requiredOption('--amount <n>', 'amount in whole tokens: of --sell for SELL, of --buy for BUY', checkAmount)
      .addOption(new Option('--side <side>', 'which amount is fixed').choices(['SELL', 'BUY']).default('SELL'))
      .option('--dest-chain <id>', 'destination chain id of a crosschain swap (Delta only)', parseChainId('--dest-chain'))
      .addOption(new Option('--mode <mode>', 'Delta, Market, or the better of the two').choices(['delta', 'market', 'all']).default('all')),
  )
}

/** The price impact `swap` refuses above, and `quote` warns about, unless --max-impact says otherwise. */
export const defaultMaxImpactPercent = 15

/** `--max-impact <percent>`: percent of the input's value lost to price impact (15 = 15 %). */
export function parseImpactPercent(value: string): number {
  const parsed = Number(value)
  if (!/^\d+(\.\d+)?$/.test(value) || !(parsed > 0 && parsed <= 100))
    throw new InvalidArgumentError(`--max-impact expects a percent above 0 and at most 100, received "${value}"`)
  return parsed
}

/** The amount's form, checked before anything starts; its decimals are checked once the token is known. */
function checkAmount(value: string): string {
  if (!/^\d+(\.\d+)?$/.test(value) || !/[1-9]/.test(value)) {
    throw new InvalidArgumentError(`--amount expects a positive decimal number such as 1.5, received "${value}"`)
  }
  return value
}

function parseChainId(flag: string) {
  return (value: string): number => {
    if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError(`${flag} expects a chain id such as 1 or 8453, received "${value}"`)
    return Number(value)
  }
}
