import { requestFaultKinds } from '../helpers/fault-proxy.js'
import type { SoakReport } from './run-soak.js'

/** Most memory growth tolerated between the warmed-up RSS and the end of the run. */
export const maxMemoryGrowth = 0.1

/** Each property the soak asserts, with what it measured: an empty `failed` list is a pass. */
export function soakVerdict(report: SoakReport): { property: string; ok: boolean; detail: string }[] {
  const journal = report.journal
  const conservation = journal?.conservation
  return [
    {
      property: 'no crash',
      ok: report.exit.code === 0 && report.exit.stoppedOk,
      detail: `exit code ${report.exit.code}, signal ${report.exit.signal}, ${report.exit.stoppedOk ? 'stopped cleanly' : 'no clean stop'}`,
    },
    {
      property: 'every intent ends in a result told to its strategy',
      ok: report.intents.queued === report.intents.results,
      detail: `${report.intents.queued} intents queued, ${report.intents.results} results, ${report.intents.executionErrors} executions threw`,
    },
    {
      property: '0 duplicate orders',
      ok: journal !== undefined && journal.duplicates.total === 0,
      detail: journal ? `${journal.duplicates.total} ${journal.duplicates.details.slice(0, 3).join('; ')}` : 'journal not checked',
    },
    {
      property: '0 lost orders',
      ok: journal !== undefined && journal.lost.total === 0 && Object.values(journal.unjournaledTransactions).every((count) => count === 0),
      detail: journal
        ? `${journal.lost.total} lost, unjournaled transactions ${JSON.stringify(journal.unjournaledTransactions)} ${journal.lost.details.slice(0, 3).join('; ')}`
        : 'journal not checked',
    },
    {
      property: 'conservation to the wei',
      ok: conservation?.balanced === true && conservation.tokens.length > 0,
      detail: conservation
        ? `${conservation.tokens.length} balances checked, differences ${conservation.tokens.map((token) => `${token.chainId}:${token.token.slice(0, 8)} ${token.difference}`).join(', ')}`
        : 'not checked',
    },
    {
      property: `memory flat (RSS growth at most ${maxMemoryGrowth * 100} % after warm-up)`,
      ok: report.memory.samples.length >= 4 && report.memory.growth <= maxMemoryGrowth,
      detail: `${mb(report.memory.warmRss)} after warm-up, ${mb(report.memory.endRss)} at the end (${percent(report.memory.growth)})`,
    },
  ]
}

/** The soak's figures as a few small tables. */
export function formatSoakReport(report: SoakReport): string {
  const lines: string[] = []
  const { options } = report
  lines.push(
    `fault soak: ${options.sandboxMinutes} sandbox minutes at speed ${options.speed}, seed ${options.seed}: ` +
      `${seconds(report.runRealMs)} under faults, ${seconds(report.totalRealMs)} in all`,
    '',
    'faults injected',
    row(['proxy', 'requests', ...requestFaultKinds, 'outages', 'hung', '503 down']),
  )
  const proxies = [
    ['api', report.faults.api] as const,
    ...Object.entries(report.faults.rpc).map(([chainId, counts]) => [`rpc ${chainId}`, counts] as const),
  ]
  for (const [name, counts] of proxies) {
    lines.push(
      row([name, counts.requests, ...requestFaultKinds.map((kind) => counts[kind]), counts.outages, counts.hung, counts.unavailable]),
    )
  }
  lines.push('', 'outages (real ms from the start of the faults)')
  for (const outage of report.faults.outages)
    lines.push(
      `  ${outage.on === 'api' ? 'api' : `rpc ${outage.on}`}`.padEnd(12) +
        `${outage.kind.padEnd(12)} at ${outage.atMs} ms for ${outage.durationMs} ms`,
    )
  const journal = report.journal
  lines.push(
    '',
    `intents queued ${report.intents.queued}, results told to strategies ${report.intents.results}, executions that threw ${report.intents.executionErrors}`,
  )
  if (report.stopped) {
    const stats = report.stopped.stats
    lines.push(
      `outcomes: ${Object.entries(stats.executions)
        .map(([status, count]) => `${count} ${status}`)
        .join(
          ', ',
        )}; quotes ${stats.quotes} (${stats.quoteErrors} failed polls); reconciliations ${stats.reconcilePasses} (${stats.reconcileErrors} failed); balance reads failed ${stats.balanceErrors}`,
      `per strategy (intents produced / results told / handler failures): ${Object.entries(stats.strategies)
        .map(
          ([name, strategy]) =>
            `${name} ${strategy.intentsProduced}/${strategy.resultsTold}/${strategy.failures}${strategy.paused ? ' paused' : ''}`,
        )
        .join(', ')}`,
    )
  }
  if (journal) {
    lines.push(
      `orders: ${journal.orders.total} (${Object.entries(journal.orders.byStatus)
        .map(([status, count]) => `${count} ${status}`)
        .join(', ')})`,
      `signed but unconfirmed at stop ${journal.unsubmittedAtStop}; open after settling ${journal.openAfterSettle.length}`,
      `duplicates ${journal.duplicates.total} (delta ${journal.duplicates.delta}, otc ${journal.duplicates.otc}, market ${journal.duplicates.market})`,
      `lost ${journal.lost.total} (delta ${journal.lost.delta}, otc ${journal.lost.otc}); unjournaled transactions ${JSON.stringify(journal.unjournaledTransactions)}`,
      `conservation: ${journal.conservation.balanced ? 'balanced to the wei' : 'NOT balanced'} over ${journal.conservation.tokens.length} balances`,
    )
    for (const token of journal.conservation.tokens) {
      if (token.difference !== 0n)
        lines.push(
          `  chain ${token.chainId} ${token.token}: expected ${token.expected}, actual ${token.actual}, difference ${token.difference}`,
        )
    }
    for (const detail of [...journal.duplicates.details, ...journal.lost.details].slice(0, 10)) lines.push(`  ${detail}`)
  }
  lines.push('', 'memory (bot process)', row(['real s', 'sandbox min', 'rss MB', 'heap MB', 'intents', 'results']))
  const samples = report.memory.samples
  const first = samples[0]
  const shown =
    samples.length <= 12 ? samples : Array.from({ length: 12 }, (_, index) => samples[Math.round((index * (samples.length - 1)) / 11)])
  for (const sample of shown) {
    if (!sample || !first) continue
    lines.push(
      row([
        ((sample.realMs - first.realMs) / 1000).toFixed(0),
        ((sample.clockMs - first.clockMs) / 60_000).toFixed(1),
        (sample.rss / 2 ** 20).toFixed(1),
        (sample.heapUsed / 2 ** 20).toFixed(1),
        sample.intentsQueued,
        sample.results,
      ]),
    )
  }
  lines.push(`RSS after warm-up ${mb(report.memory.warmRss)}, at the end ${mb(report.memory.endRss)} (${percent(report.memory.growth)})`)
  if (report.errors.length > 0) {
    lines.push('', 'bot error log lines by message')
    for (const { message, count } of report.errors.slice(0, 10)) lines.push(`  ${String(count).padStart(5)}  ${message}`)
  }
  lines.push('', 'verdict')
  for (const { property, ok, detail } of soakVerdict(report)) lines.push(`  ${ok ? 'PASS' : 'FAIL'}  ${property}: ${detail}`)
  return lines.join('\n')
}

function row(cells: readonly (string | number)[]): string {
  return cells.map((cell, index) => (index === 0 ? String(cell).padEnd(8) : String(cell).padStart(10))).join(' ')
}

function mb(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MB`
}

function percent(ratio: number): string {
  return `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(1)} %`
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}
