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
      .requiredOption('--amount <n>', 'amount in whole tokens: of --sell for SELL, of --buy for BUY')
      .addOption(new Option('--side <side>', 'which amount is fixed').choices(['SELL', 'BUY']).default('SELL'))
      .option('--dest-chain <id>', 'destination chain id of a crosschain swap (Delta only)', parseChainId('--dest-chain'))
      .addOption(new Option('--mode <mode>', 'Delta, Market, or the better of the two').choices(['delta', 'market', 'all']).default('all')),
  )
}

function parseChainId(flag: string) {
  return (value: string): number => {
    if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError(`${flag} expects a chain id such as 1 or 8453, received "${value}"`)
    return Number(value)
  }
}
