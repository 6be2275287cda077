// Child process of the reliability test: recovers, executes the intents of some trials against the sandbox, and
// reconciles, printing a line after each step. The test kills it with SIGKILL at a random step and starts it again.
import { createApiClient } from '../../src/api/client.js'
import { getContracts } from '../../src/api/resources/get-contracts.js'
import { createChainClients } from '../../src/chain/chain-clients.js'
import { createExecutor } from '../../src/exec/executor/executor.js'
import { createExecutorContext } from '../../src/exec/executor/executor-context.js'
import { riskLimitsSchema } from '../../src/exec/risk/risk-limits-schema.js'
import { openJournal } from '../../src/journal/journal.js'
import { systemClock } from '../../src/time/clock.js'
import { reconcileUntilSettled, reliabilityAccount, reliabilityIntents, type WorkerConfig } from './reliability-plan.js'

const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig
const started = performance.now()
const step = (text: string) => process.stdout.write(`${text} +${Math.round(performance.now() - started)}ms\n`)

const account = reliabilityAccount(config.accountIndex)
const api = createApiClient({ baseUrl: config.url, retry: { retries: 3 } })
const chains = createChainClients({
  chains: config.chains.map((chain) => ({ chainId: chain.chainId, rpcUrls: [chain.rpcUrl] })),
  account,
  pollingIntervalMs: 50,
})
const contracts = Object.fromEntries((await getContracts(api)).chains)
const journal = openJournal({ file: config.journalFile, clock: systemClock })
const context = createExecutorContext({
  api,
  chains,
  contracts,
  account,
  journal,
  clock: systemClock,
  limits: riskLimitsSchema.parse({}),
})
const executor = createExecutor(context)
await executor.recover()
step('recovered')
for (const trial of config.trials) {
  for (const intent of reliabilityIntents(config.tokens, trial)) {
    const outcome = await executor.execute(intent)
    step(`executed ${intent.id} ${outcome.status}`)
  }
}
if (config.reconcile) {
  const { reconcileOrders } = await import('../../src/journal/reconcile/reconcile-orders.js')
  await reconcileOrders({ journal, api, chains, account: account.address, clock: systemClock })
  step('reconciled')
}
if (config.settle) await reconcileUntilSettled({ context, step })
step('done')
journal.close()
// HTTP keep-alive sockets would hold the process open for seconds.
process.exit(0)
