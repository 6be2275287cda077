// Child process of the reliability test: recovers, executes the intents of the previous trial again (finishing what its
// kill interrupted) and those of this trial, and kills itself with SIGKILL at the aimed window (see
// reliability-kill-points.ts), printing a line after each step. The last run of a lane reconciles until all is final.
import { createApiClient } from '../../src/api/client.js'
import { getDeltaOrders } from '../../src/api/delta/get-delta-orders.js'
import { getContracts } from '../../src/api/resources/get-contracts.js'
import { createChainClients } from '../../src/chain/chain-clients.js'
import { orderIdOf } from '../../src/domain/order-id.js'
import { createExecutor } from '../../src/exec/executor/executor.js'
import { createExecutorContext } from '../../src/exec/executor/executor-context.js'
import { riskLimitsSchema } from '../../src/exec/risk/risk-limits-schema.js'
import { openJournal } from '../../src/journal/journal.js'
import { reconcileOrders } from '../../src/journal/reconcile/reconcile-orders.js'
import { systemClock } from '../../src/time/clock.js'
import { createKillPoints } from './reliability-kill-points.js'
import { reconcileUntilSettled, reliabilityAccount, reliabilityIntents, type WorkerConfig } from './reliability-plan.js'

const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig
const started = performance.now()
const step = (text: string) => process.stdout.write(`${text} +${Math.round(performance.now() - started)}ms\n`)

const realFetch = globalThis.fetch.bind(globalThis)
const journal = openJournal({ file: config.journalFile, clock: systemClock })
const killPoints = createKillPoints({
  aim: config.aim,
  apiUrl: config.url,
  rpcUrls: config.chains.map((chain) => chain.rpcUrl),
  journal: () => journal,
  fetch: realFetch,
  trace: config.trace ? (line) => step(`  ${line}`) : undefined,
  afterApproval: config.holdApprovalsUntilSettled ? () => waitUntilSettledAtVenue() : undefined,
})
// viem's http transport calls the global fetch at each request, and createChainClients takes RPC URLs, not transports.
globalThis.fetch = killPoints.fetch
const account = reliabilityAccount(config.accountIndex)
// The sandbox has no rate limit: the client's own would only slow the trials down.
const api = createApiClient({ baseUrl: config.url, retry: { retries: 3 }, rateLimit: false, fetch: killPoints.fetch })
const chains = createChainClients({
  chains: config.chains.map((chain) => ({ chainId: chain.chainId, rpcUrls: [chain.rpcUrl] })),
  account,
  pollingIntervalMs: 50,
})
const contracts = Object.fromEntries((await getContracts(api)).chains)
const context = createExecutorContext({ api, chains, contracts, account, journal, clock: systemClock, limits: riskLimitsSchema.parse({}) })
const executor = createExecutor(context)
await executor.recover()
step('recovered')
const aim = config.aim
const lastTrial = config.trials.at(-1)
for (const planned of config.trials) {
  for (const { step: name, intent } of reliabilityIntents(config.tokens, planned)) {
    if (planned === lastTrial && aim?.from === name) killPoints.arm()
    const outcome = await executor.execute(intent)
    const order = journal.getOrder({ id: orderIdOf(intent.kind === 'cancel' ? (intent.intentIds[0] ?? '') : intent.id) })
    step(`executed ${planned.trial}-${name} ${outcome.status}${outcome.reason ? ` (${outcome.reason})` : ''}, order ${order?.status}`)
  }
}
if (aim?.from === 'reconcile') {
  // The fill window: reconcile until a fill the journal lacks is read (the kill point ends the process there).
  killPoints.arm()
  const until = Date.now() + 30_000
  for (let pass = 1; Date.now() < until; pass++) {
    const report = await reconcileOrders({ journal, api, chains, account: account.address, clock: systemClock })
    step(`reconciled pass ${pass}: ${report.fills.recorded} fills recorded`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}
if (aim) {
  step(`window ${aim.window} (${aim.variant}) from ${aim.from} was never reached`)
  process.exit(3)
}
if (config.settle) await reconcileUntilSettled({ context, step })
step('done')
journal.close()
// HTTP keep-alive sockets would hold the process open for seconds.
process.exit(0)

/** Polls the venue (past the kill points) until none of the account's Delta orders is waiting for a fill. */
async function waitUntilSettledAtVenue(): Promise<void> {
  const venue = createApiClient({ baseUrl: config.url, rateLimit: false, fetch: realFetch })
  const unfilled = async () =>
    (await getDeltaOrders(venue, { userAddress: account.address, limit: 1000 })).data.filter(
      (order) => order.status === 'PENDING' || order.status === 'ACTIVE',
    ).length
  const waiting = await unfilled()
  if (waiting === 0) return
  for (let attempt = 0; attempt < 100 && (await unfilled()) > 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 100))
  step(`held an approval's answer until the venue filled ${waiting} order(s)`)
}
