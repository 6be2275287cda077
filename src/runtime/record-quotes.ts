import { resolve } from 'node:path'
import { createChainClients } from '../chain/chain-clients.js'
import { readTokenDecimals } from '../chain/token-decimals.js'
import type { ConfigDocument } from '../config/load-config.js'
import { createQuoteFeed } from '../feed/quote-feed.js'
import { createQuoteRecorder, recordQuoteEvents } from '../feed/quote-recorder.js'
import type { Logger } from '../log/logger.js'
import { parseSubscriptions } from '../strategy/quote-subscriptions.js'
import { BotSetupError } from './bot-errors.js'
import type { EmbeddedVenue, StartEmbeddedVenue } from './embedded-venue.js'
import { decimalsOfRequests, loadStrategyDefinitions } from './load-strategies.js'
import { openVenue } from './open-venue.js'

export type StartRecordingParameters<Venue extends EmbeddedVenue> = {
  document: ConfigDocument
  /** The recording (JSON Lines; gzip-compressed when it ends in .gz). */
  out: string
  overwrite: boolean
  logger: Logger
  startEmbedded?: StartEmbeddedVenue<Venue> | undefined
}

export type Recording = {
  /** How many distinct requests the feed polls. */
  requests: number
  /** Stops polling, flushes the file and stops the venue; returns how many quotes were written. */
  stop: () => Promise<{ quotes: number }>
}

/**
 * Records the quotes a config's strategies subscribe to, as the feed polls them on the venue's clock. Nothing is
 * executed and no key is needed: each strategy's subscriptions come from its config alone.
 */
export async function startRecording<Venue extends EmbeddedVenue = EmbeddedVenue>({
  document,
  out,
  overwrite,
  logger,
  startEmbedded,
}: StartRecordingParameters<Venue>): Promise<Recording> {
  const loaded = await loadStrategyDefinitions(document)
  const requests = loaded.flatMap(({ entry, definition }) => {
    const config = definition.configSchema.parse(entry.config)
    return parseSubscriptions(entry.name, definition.subscriptions(config))
  })
  if (requests.length === 0) {
    throw new BotSetupError(`the strategies of ${document.file} subscribe to no quotes: nothing to record`, {
      hint: 'enable a strategy that subscribes to quotes',
      errorClass: 'operational',
    })
  }
  const { config } = document
  const venue = await openVenue({ config, logger, startEmbedded })
  try {
    const chains = createChainClients({ chains: venue.chains })
    const decimalsOf = await decimalsOfRequests(requests, (chainId, token) => {
      const chain = chains.get(chainId)
      if (!chain) {
        throw new BotSetupError(`a strategy asks for quotes on chain ${chainId}, which the config does not list`, {
          hint: `add chains."${chainId}".rpcUrls to the config`,
          errorClass: 'operational',
        })
      }
      return readTokenDecimals(chain, token)
    })
    const recorder = await createQuoteRecorder({
      file: out,
      decimalsOf,
      clock: venue.clock,
      overwrite,
      meta: {
        config: resolve(document.file),
        venue: venue.embedded ? 'embedded sandbox' : config.venue.url,
        intervalMs: config.feed.intervalMs,
      },
      onError: (error) => logger.error({ err: error }, 'recording failed'),
    })
    const feed = createQuoteFeed({ api: venue.api, decimalsOf, requests, intervalMs: config.feed.intervalMs, clock: venue.clock })
    const recording = recordQuoteEvents(feed.events, recorder)
    logger.info({ out, requests: feed.requests.length, intervalMs: config.feed.intervalMs }, 'recording quotes')
    return {
      requests: feed.requests.length,
      stop: async () => {
        recording.unsubscribe()
        try {
          await recorder.close()
        } finally {
          await venue.close()
        }
        return { quotes: recorder.written }
      },
    }
  } catch (error) {
    await venue.close()
    throw error
  }
}
