// The fault soak: `npm run soak` runs one sandbox hour of a bot with every built-in strategy behind fault proxies
// (429, 5xx, timeouts, malformed and truncated answers, answers dropped after the service acted, RPC outages) and
// prints the faults injected by kind, intents and results, orders, duplicates, lost orders, conservation and the
// memory curve. Exits 1 when a property fails.
//
//   npm run soak
//   npm run soak -- --minutes 10 --speed 30 --seed 7 --json

import { parseArgs } from 'node:util'
import { runSoak } from '../test/soak/run-soak.js'
import { formatSoakReport, soakVerdict } from '../test/soak/soak-report.js'

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    speed: { type: 'string', default: '20' },
    seed: { type: 'string', default: '17' },
    json: { type: 'boolean', default: false },
  },
})

const number = (flag: string, text: string, { integer = false } = {}) => {
  const value = Number(text)
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    console.error(`--${flag} expects a positive ${integer ? 'integer' : 'number'}, received "${text}"`)
    process.exit(2)
  }
  return value
}

const report = await runSoak({
  sandboxMinutes: number('minutes', values.minutes),
  speed: number('speed', values.speed),
  seed: number('seed', values.seed, { integer: true }),
  progress: (text) => console.error(`[soak ${(performance.now() / 1000).toFixed(1)} s] ${text}`),
})
if (values.json) {
  console.log(JSON.stringify(report, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value), 2))
} else {
  console.log(formatSoakReport(report))
}
process.exit(soakVerdict(report).every((entry) => entry.ok) ? 0 : 1)
