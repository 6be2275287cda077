// Child process of the fault soak: opens the bot from a config file as `deltaflow run` does (openBot), starts it, and
// prints one JSON line per event on stdout: `started`, a `sample` of its memory and counters every `sampleMs` of real
// time, and `stopped` with the bot's stats once SIGTERM stopped it. Its logs go to `logFile`. A crash ends it with a
// non-zero code (no handler hides an uncaught error).
import pino from 'pino'
import { createLogger } from '../../src/log/logger.js'
import { loadCheckedConfig } from '../../src/runtime/load-strategies.js'
import { openBot } from '../../src/runtime/open-bot.js'
import { type SoakBotLine, soakBotArgumentsSchema } from './soak-bot-lines.js'

const parameters = soakBotArgumentsSchema.parse(JSON.parse(process.argv[2] ?? '{}'))
const print = (line: SoakBotLine) => process.stdout.write(`${JSON.stringify(line)}\n`)

const logger = createLogger({ level: parameters.logLevel, destination: pino.destination({ dest: parameters.logFile, sync: false }) })
const document = await loadCheckedConfig(parameters.configFile)
const session = await openBot({ document, live: false, logger })
const stopping = new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()))

// Counts the intent results the dispatch hands to each strategy, as the strategy receives them (the call goes on
// unchanged): "every intent ends in a result" is measured where the strategy hears it, whatever the dispatch counts.
const told: Record<string, number> = {}
for (const strategy of session.strategies) {
  const handle = strategy.handleIntentResult
  told[strategy.name] = 0
  strategy.handleIntentResult = (event) => {
    told[strategy.name] = (told[strategy.name] ?? 0) + 1
    return handle(event)
  }
}
const totalTold = () => Object.values(told).reduce((sum, count) => sum + count, 0)

function sample(): SoakBotLine {
  const memory = process.memoryUsage()
  const stats = session.bot.stats()
  return {
    event: 'sample',
    realMs: Math.round(performance.now()),
    clockMs: session.clock.now(),
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    heapTotal: memory.heapTotal,
    external: memory.external,
    intentsQueued: stats.intentsQueued,
    results: totalTold(),
    executionErrors: stats.executionErrors,
  }
}

try {
  await session.bot.start()
  print({ event: 'started', realMs: Math.round(performance.now()), account: session.account.address, journal: session.journal.file })
  const timer = setInterval(() => print(sample()), parameters.sampleMs)
  await stopping
  clearInterval(timer)
  print(sample())
  const stop = await session.bot.stop()
  const stats = session.bot.stats()
  print({
    event: 'stopped',
    realMs: Math.round(performance.now()),
    stats: {
      intentsQueued: stats.intentsQueued,
      resultsTold: totalTold(),
      executions: stats.executions,
      executionErrors: stats.executionErrors,
      quotes: stats.quotes,
      quoteErrors: stats.quoteErrors,
      reconcilePasses: stats.reconcilePasses,
      reconcileErrors: stats.reconcileErrors,
      balanceErrors: stats.balanceErrors,
      strategies: Object.fromEntries(
        Object.entries(stats.strategies).map(([name, strategy]) => [
          name,
          { intentsProduced: strategy.intentsProduced, resultsTold: told[name] ?? 0, failures: strategy.failures, paused: strategy.paused },
        ]),
      ),
    },
    pendingAtStop: stop.pending.length,
  })
} finally {
  await session.close()
  logger.flush()
}
// HTTP keep-alive sockets would hold the process open for seconds.
process.exit(0)
