import { resolve } from 'node:path'
import { type Command, InvalidArgumentError } from 'commander'
import { createChainClients } from '../chain/chain-clients.js'
import { readTokenDecimals } from '../chain/token-decimals.js'
import { loadConfigDocument } from '../config/load-config.js'
import { createQuoteFeed } from '../feed/quote-feed.js'
import { createQuoteRecorder, recordQuoteEvents } from '../feed/quote-recorder.js'
import { createLogger } from '../log/logger.js'
import { parseSubscriptions } from '../strategy/quote-subscriptions.js'
import { decimalsOfRequests, loadStrategyDefinitions, openVenue } from './bot-session.js'
import { reportCommandError } from './command-errors.js'

type RecordOptions = { out: string; for?: number; overwrite?: boolean; json?: boolean }

export function registerRecordCommand(program: Command): void {
  program
    .command('record')
    .description("record the quotes a config's strategies subscribe to, as the feed polls them, into a recording for backtests")
    .argument('<config>', 'YAML configuration (its venue, chains, feed interval and strategies)')
    .requiredOption('--out <file>', 'the recording (JSON Lines; gzip-compressed when it ends in .gz)')
    .option('--for <seconds>', 'stop after this many real seconds (default: at SIGINT / SIGTERM)', parseSeconds)
    .option('--overwrite', 'replace an existing recording')
    .option('--json', 'print one JSON line with the file and the count at the end')
    .action(async (file: string, options: RecordOptions) => {
      await record(file, options).catch((error: unknown) => reportCommandError(error, options.json))
    })
}

async function record(file: string, options: RecordOptions): Promise<void> {
  const logger = createLogger({ level: process.env.DELTAFLOW_LOG_LEVEL ?? 'info', pretty: process.stderr.isTTY === true })
  const document = loadConfigDocument(file)
  const loaded = await loadStrategyDefinitions(document)
  // What each strategy would subscribe to with its config; nothing is executed, no key is needed.
  const requests = loaded.flatMap(({ entry, definition }) => {
    const config = definition.configSchema.parse(entry.config)
    return parseSubscriptions(entry.name, definition.subscriptions(config))
  })
  if (requests.length === 0) throw new InvalidArgumentError(`the strategies of ${file} subscribe to no quotes: nothing to record`)
  const venue = await openVenue(document.config, logger)
  try {
    const chains = createChainClients({ chains: venue.chains })
    const decimalsOf = await decimalsOfRequests(requests, {
      decimalsOf: (chainId, token) => {
        const chain = chains.get(chainId)
        if (!chain) throw new InvalidArgumentError(`a strategy asks for quotes on chain ${chainId}, which the config does not list`)
        return readTokenDecimals(chain, token)
      },
    })
    const recorder = await createQuoteRecorder({
      file: options.out,
      decimalsOf,
      clock: venue.clock,
      overwrite: options.overwrite === true,
      meta: {
        config: resolve(file),
        venue: venue.sandbox ? 'embedded sandbox' : document.config.venue.url,
        intervalMs: document.config.feed.intervalMs,
      },
      onError: (error) => logger.error({ err: error }, 'recording failed'),
    })
    const feed = createQuoteFeed({ api: venue.api, decimalsOf, requests, intervalMs: document.config.feed.intervalMs, clock: venue.clock })
    const recording = recordQuoteEvents(feed.events, recorder)
    logger.info({ out: options.out, requests: feed.requests.length, intervalMs: document.config.feed.intervalMs }, 'recording quotes')
    await new Promise<void>((done) => {
      const finish = () => {
        clearTimeout(timer)
        process.off('SIGINT', finish)
        process.off('SIGTERM', finish)
        done()
      }
      process.once('SIGINT', finish)
      process.once('SIGTERM', finish)
      const timer = options.for === undefined ? undefined : setTimeout(finish, options.for * 1000)
    })
    recording.unsubscribe()
    await recorder.close()
    const result = { file: options.out, quotes: recorder.written, requests: feed.requests.length }
    process.stdout.write(
      options.json ? `${JSON.stringify(result)}\n` : `recorded ${result.quotes} quotes of ${result.requests} requests to ${result.file}\n`,
    )
  } finally {
    await venue.close()
  }
}

function parseSeconds(value: string): number {
  const parsed = Number(value)
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new InvalidArgumentError(`--for expects a positive number of seconds, received "${value}"`)
  return parsed
}
