import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { openJournal } from '../../src/journal/journal.js'
import { ManualClock } from '../../src/time/clock.js'
import { recordBenchOrder } from './journal.js'
import { type BenchResult, summarize } from './summary.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

export type BenchCliStartParameters = {
  /** Runs of each command; the commands take turns, so that a busy moment costs each of them alike. */
  runs?: number
  /** Orders in the journal that `deltaflow orders` lists. */
  orderCount?: number
}

/**
 * Wall time of the compiled CLI (bin/deltaflow.js → dist/) from spawn to exit: `deltaflow --help`, which loads no
 * command module, and `deltaflow orders --db FILE --json` on a journal of a few orders, which loads only its own;
 * `node -e 0` beside them is what any Node process costs on this machine.
 */
export async function benchCliStart({ runs = 9, orderCount = 5 }: BenchCliStartParameters = {}): Promise<BenchResult> {
  if (!existsSync(join(root, 'dist', 'src', 'cli', 'main.js'))) {
    throw new Error('cli-start measures the compiled CLI: run `npm run build` first')
  }
  const directory = mkdtempSync(join(tmpdir(), 'deltaflow-bench-cli-'))
  try {
    const journalFile = join(directory, 'journal.sqlite')
    writeJournal(journalFile, orderCount)
    const commands = {
      help: ['bin/deltaflow.js', '--help'],
      orders: ['bin/deltaflow.js', 'orders', '--db', journalFile, '--json'],
      node: ['-e', '0'],
    }
    const samples: Record<keyof typeof commands, number[]> = { help: [], orders: [], node: [] }
    for (let run = 0; run < runs; run++) {
      for (const [name, args] of Object.entries(commands) as [keyof typeof commands, string[]][]) {
        const started = performance.now()
        const child = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' })
        samples[name].push(performance.now() - started)
        if (child.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${child.status}:\n${child.stderr}`)
        if (name === 'orders') checkOrders(child.stdout, orderCount)
      }
    }
    const median = (values: readonly number[]) => `median ${summarize('', 'ms', values).median.toFixed(0)} ms`
    return summarize('deltaflow --help (compiled CLI, spawn to exit)', 'ms', samples.help, {
      target: '<= 500 ms',
      [`orders --db --json (${orderCount} orders)`]: median(samples.orders),
      'node -e 0': median(samples.node),
    })
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

function writeJournal(file: string, orderCount: number): void {
  const journal = openJournal({ file, clock: new ManualClock(1_700_000_000_000) })
  try {
    for (let order = 0; order < orderCount; order++) recordBenchOrder(journal, order)
  } finally {
    journal.close()
  }
}

const ordersOutputSchema = z.object({ orders: z.array(z.object({ id: z.string() })) })

/** The command did its work: every order of the journal is in its JSON. */
function checkOrders(stdout: string, orderCount: number): void {
  const { orders } = ordersOutputSchema.parse(JSON.parse(stdout))
  if (orders.length !== orderCount) throw new Error(`deltaflow orders listed ${orders.length} orders, expected ${orderCount}`)
}
