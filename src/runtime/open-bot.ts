import type { ConfigDocument } from '../config/load-config.js'
import type { TokenDecimals } from '../feed/token-decimals.js'
import type { Logger } from '../log/logger.js'
import { createSafeStrategy, type SafeStrategy } from '../strategy/safe-strategy.js'
import { type Bot, createBot } from './bot.js'
import { healthOf } from './bot-health.js'
import { createBotMetrics, type PrometheusBotMetrics } from './bot-metrics.js'
import { resolveConsoleToken } from './console/console-token.js'
import type { OperatorConsole } from './console/open-console.js'
import type { EmbeddedVenue, StartEmbeddedVenue } from './embedded-venue.js'
import { createLatestPrices, type LatestPrices } from './latest-prices.js'
import { decimalsOfRequests, loadStrategyDefinitions } from './load-strategies.js'
import { openNotifications } from './notify/open-notifications.js'
import { resolveNotificationTargets } from './notify/resolve-targets.js'
import { openSession, type Session } from './open-session.js'
import type { OpsServer } from './ops-server.js'
import { createTokenLabels } from './token-labels.js'

export type OpenBotParameters<Venue extends EmbeddedVenue> = {
  document: ConfigDocument
  /** The command line's `--live`: required, with `mode: live`, before real orders are placed. */
  live: boolean
  logger: Logger
  env?: Readonly<Record<string, string | undefined>> | undefined
  startEmbedded?: StartEmbeddedVenue<Venue> | undefined
  /** How long the bot's stop follows orders still CANCELLING, ms of the venue's clock (default: the bot's, 10 s). */
  stopWaitMs?: number | undefined
}

/** A session with its bot: what `deltaflow run` starts and stops. */
export type BotSession<Venue extends EmbeddedVenue = EmbeddedVenue> = Session<Venue> & {
  bot: Bot
  strategies: readonly SafeStrategy[]
  decimalsOf: TokenDecimals
  metrics: PrometheusBotMetrics
  /** The latest prices the quote feed has seen (the console values PnL and equity at them); kept only with the console. */
  prices: LatestPrices | undefined
  /** GET /metrics and /health, when `ops.port` is set. */
  ops: OpsServer | undefined
  /** The operator console under the ops server's /api/, when `ops.console` is on. */
  console: OperatorConsole | undefined
}

/**
 * Opens a bot from its configuration, checking first what could lose money: `live` needs both `mode: live` and the
 * `--live` flag and a real venue; `paper` trades only on a sandbox (the embedded one, or one on loopback); `dry-run`
 * signs nothing. Strategies are loaded and their configs validated before anything starts, each problem named with its
 * YAML path and line. The caller starts and stops the bot, then closes the session.
 */
export async function openBot<Venue extends EmbeddedVenue = EmbeddedVenue>({
  document,
  live,
  logger,
  env,
  startEmbedded,
  stopWaitMs,
}: OpenBotParameters<Venue>): Promise<BotSession<Venue>> {
  const { config } = document
  const definitions = await loadStrategyDefinitions(document)
  // A target whose variable is missing stops the bot here, before anything starts.
  const notificationTargets = resolveNotificationTargets({ config: config.notifications, env: env ?? process.env, locate: document.locate })
  // A non-loopback console without a token stops the bot here, before anything starts.
  const consoleOn = config.ops.console && config.ops.port !== undefined
  const consoleToken = consoleOn ? resolveConsoleToken(config.ops, env ?? process.env) : undefined
  const session = await openSession({ config, logger, env, startEmbedded, live, enforceMode: true, checkpoints: 'background' })
  let ops: OpsServer | undefined
  let operatorConsole: OperatorConsole | undefined
  try {
    const { clock, journal, context, connections } = session
    const strategies = definitions.map(({ entry, definition }) =>
      createSafeStrategy({ ...definition, name: entry.name }, { config: entry.config, clock, journal, logger }),
    )
    const decimalsOf = await decimalsOfRequests(
      strategies.flatMap((strategy) => strategy.subscriptions),
      context.decimalsOf,
    )
    const metrics = createBotMetrics({ journal, strategies: () => bot.stats().strategies, connections })
    session.watchTransport({ api: metrics.observeApi, rpc: metrics.observeRpc })
    // One source of token symbols for the console and the notifications; the latest prices the feed saw, for the console.
    const labels = createTokenLabels(session.chains)
    const prices = consoleOn ? createLatestPrices() : undefined
    const notifications = openNotifications({
      targets: notificationTargets,
      config,
      session,
      labels,
      strategies: () => bot.stats().strategies,
      logger,
    })
    const trading = createBot({
      context,
      strategies,
      feedIntervalMs: config.feed.intervalMs,
      reconcileIntervalMs: config.reconcile.intervalMs,
      decimalsOf,
      logger,
      metrics: notifications.observe(metrics),
      dryRun: config.mode === 'dry-run',
      stopWaitMs,
      connections,
      prices,
    })
    // Notifications start once the bot has started and stop after it.
    const bot = notifications.attach(trading)
    // The console's modules (its routes and answer schemas) and the HTTP server's are loaded only by a bot that serves
    // them: a bot without `ops` starts without either.
    if (consoleOn && prices) {
      const { openConsole } = await import('./console/open-console.js')
      operatorConsole = openConsole({
        config,
        journal,
        clock,
        bot,
        strategies,
        killSwitch: session.killSwitch,
        chains: session.chains,
        account: session.account.address,
        venueUrl: session.venue.embedded === undefined ? session.venue.url : undefined,
        connections,
        logger,
        labels,
        prices,
        token: consoleToken,
      })
    }
    if (config.ops.port !== undefined) {
      const { startOpsServer } = await import('./ops-server.js')
      ops = await startOpsServer({
        host: config.ops.host,
        port: config.ops.port,
        metrics: () => metrics.render(),
        health: () => healthOf(bot, clock, config, connections),
        mount: operatorConsole?.mount,
      })
    }
    const opened = ops
    const openedConsole = operatorConsole
    let closing: Promise<void> | undefined
    return {
      ...session,
      bot,
      strategies,
      decimalsOf,
      metrics,
      prices,
      ops,
      console: openedConsole,
      close: () => {
        closing ??= (async () => {
          openedConsole?.close()
          await opened?.close()
          await session.close()
        })()
        return closing
      },
    }
  } catch (error) {
    operatorConsole?.close()
    await ops?.close()
    await session.close()
    throw error
  }
}
