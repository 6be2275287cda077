import type { Address } from 'viem'
import type { ChainClients } from '../../chain/chain-clients.js'
import type { DeltaflowConfig } from '../../config/schema.js'
import type { KillSwitch } from '../../exec/risk/kill-switch.js'
import type { Journal } from '../../journal/journal.js'
import type { Logger } from '../../log/logger.js'
import type { SafeStrategy } from '../../strategy/safe-strategy.js'
import type { Clock } from '../../time/clock.js'
import type { Bot } from '../bot.js'
import type { ConnectionHealth } from '../connection-health.js'
import type { LatestPrices } from '../latest-prices.js'
import type { TokenLabels } from '../token-labels.js'

/** What the console reads and acts on: the bot and the session it runs in (open-bot.ts hands them over). */
export type ConsoleSources = {
  config: DeltaflowConfig
  journal: Journal
  clock: Clock
  bot: Bot
  strategies: readonly SafeStrategy[]
  killSwitch: KillSwitch
  chains: ReadonlyMap<number, ChainClients>
  account: Address
  /** The venue's base URL, or undefined for the embedded sandbox. */
  venueUrl: string | undefined
  connections: ConnectionHealth
  logger: Logger
  /** Symbols and decimals of the bot's tokens (shared with the notifications). */
  labels: TokenLabels
  /** The latest prices the bot's quote feed has seen (PnL and equity are valued at them). */
  prices: Pick<LatestPrices, 'value'>
}
