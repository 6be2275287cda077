import { type Command, InvalidArgumentError } from 'commander'
import { createLogger, resolveLogLevel } from '../log/logger.js'
import { loadCheckedConfig } from '../runtime/load-strategies.js'
import { startRecording } from '../runtime/record-quotes.js'
import { reportCommandError } from './command-errors.js'
import { descriptionOf } from './command-summaries.js'
import { startEmbeddedSandbox } from './embedded-sandbox.js'

type RecordOptions = { out: string; for?: number; overwrite?: boolean; json?: boolean }

export function registerRecordCommand(program: Command): void {
  program
    .command('record')
    .description(descriptionOf('record'))
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
  const logger = createLogger({ level: resolveLogLevel({ fallback: 'info' }), pretty: process.stderr.isTTY === true })
  const document = await loadCheckedConfig(file, { requireStrategies: true })
  const recording = await startRecording({
    document,
    out: options.out,
    overwrite: options.overwrite === true,
    logger,
    startEmbedded: startEmbeddedSandbox,
  })
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
  const { quotes } = await recording.stop()
  const result = { file: options.out, quotes, requests: recording.requests }
  process.stdout.write(
    options.json ? `${JSON.stringify(result)}\n` : `recorded ${result.quotes} quotes of ${result.requests} requests to ${result.file}\n`,
  )
}

function parseSeconds(value: string): number {
  const parsed = Number(value)
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new InvalidArgumentError(`--for expects a positive number of seconds, received "${value}"`)
  return parsed
}
