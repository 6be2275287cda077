import type { FastifyInstance } from 'fastify'
import type { SandboxVenue } from '../../venue/sandbox-venue.js'
import { type AgentProfile, agentProfiles } from '../agents.js'
import { bridgeProfiles } from '../bridges.js'
import { type DeltaOrderStatus, type DeltaOrderStore, finalDeltaStatuses, type StoredDeltaOrder } from '../order-store.js'
import { registerBridgeControlRoute } from './bridge-control-route.js'
import { bridgeAccount } from './bridge-route.js'
import { advanceBridgeTransfer } from './bridge-transfer.js'
import { confirmCancel } from './cancellation.js'
import { deadlinePassed } from './deadline.js'
import { type BridgeFailureMode, createRuntimes, type EngineContext, hasBridgeTransfers, moveOrder } from './engine-context.js'
import { settlementRetryMs } from './execute-fill.js'
import { evaluateLimitOrder, isLimitEvaluationDue, settleLimitFill } from './limit-fills.js'
import { runMarketAuction } from './market-auction.js'
import { impersonateWithEther, provisionAgents } from './provision-agents.js'
import { SerialLanes } from './serial-lanes.js'
import { checkOwnerFunding, fundingCheckMs, ordersToCheck } from './suspension.js'
import { runTwapSlice } from './twap-slices.js'

export type DeltaEngine = {
  start: () => Promise<void>
  stop: () => Promise<void>
  /** The simulated agents: names and impersonated addresses (the same on every chain with Delta). */
  agents: readonly AgentProfile[]
  /** How simulated bridge transfers end (also set with POST /_sandbox/bridge). */
  bridgeFailures: { mode: BridgeFailureMode }
  /** `/_sandbox/bridge`. */
  registerAdminRoutes: (app: FastifyInstance) => void
}

/** Statuses an order leaves for EXPIRED once its deadline has passed. */
const expirable: ReadonlySet<DeltaOrderStatus> = new Set(['PENDING', 'AWAITING_SIGNATURE', 'ACTIVE', 'SUSPENDED'])
/** Fewest real ms between two funding checks, however fast the sandbox clock runs. */
const minimumFundingCheckRealMs = 200

/** Agents, auctions, on-chain settlement, TWAP and LIMIT scheduling, suspension, expiry, bridge and refunds. */
export function createDeltaEngine({ venue, store }: { venue: SandboxVenue; store: DeltaOrderStore }): DeltaEngine {
  const logger = venue.logger.child({ desk: 'delta-engine' })
  const runtimes = createRuntimes()
  const jobs = new Set<Promise<void>>()
  const sleepers = new Set<() => void>()
  const bridgeFailures: { mode: BridgeFailureMode } = { mode: 'random' }
  // Real ms between two looks at the book: about half a sandbox second, within 10..100 ms.
  const tickMs = Math.min(100, Math.max(10, 500 / venue.clock.speed))
  let stopped = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let nextFundingCheckAt = 0
  let checkingFunding = false
  let unsubscribe: (() => void) | undefined

  const context: EngineContext = {
    venue,
    store,
    lanes: new SerialLanes(),
    logger,
    bridgeFailures,
    transfers: [],
    now: () => venue.clock.now(),
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        if (stopped) return resolve()
        const wake = () => {
          clearTimeout(handle)
          sleepers.delete(wake)
          resolve()
        }
        const handle = setTimeout(wake, ms / venue.clock.speed)
        sleepers.add(wake)
      }),
    stopped: () => stopped,
    runtime: runtimes.runtime,
  }

  const run = (order: StoredDeltaOrder | undefined, work: () => Promise<void>) => {
    const job: Promise<void> = work()
      .catch((error: unknown) => logger.warn({ err: error, orderId: order?.id }, 'Delta engine job failed'))
      .finally(() => jobs.delete(job))
    jobs.add(job)
  }

  const dispatch = (order: StoredDeltaOrder, now: number) => {
    const runtime = context.runtime(order)
    if (runtime.busy) return
    if (order.status === 'CANCELLING') return confirmCancel(context, order)
    if (expirable.has(order.status) && deadlinePassed(now, order)) {
      if (!hasBridgeTransfers(context, order)) moveOrder(context, order, 'EXPIRED', 'deadline passed')
      return
    }
    const start = (work: () => Promise<void>) => {
      // Until the job says otherwise, a job that dies early is not restarted on the next tick.
      runtime.nextAttemptAt = now + settlementRetryMs
      run(order, work)
    }
    const { flow } = runtime.terms
    if (order.status === 'PENDING') {
      if (flow !== 'market') moveOrder(context, order, 'ACTIVE')
      else if (now >= runtime.nextAttemptAt) start(() => runMarketAuction(context, order))
      return
    }
    if (order.status !== 'ACTIVE') return
    if (flow === 'limit' && isLimitEvaluationDue(context, order)) {
      const plan = evaluateLimitOrder(context, order)
      if (plan) start(() => settleLimitFill(context, plan))
    } else if (flow === 'twap' && now >= runtime.nextAttemptAt) {
      start(() => runTwapSlice(context, order))
    }
  }

  const tick = () => {
    timer = undefined
    if (stopped) return
    const now = context.now()
    for (const order of store.open()) {
      try {
        dispatch(order, now)
      } catch (error) {
        logger.warn({ err: error, orderId: order.id }, 'Delta engine could not move an order')
      }
    }
    for (const transfer of context.transfers) {
      if (!transfer.running && now >= transfer.dueAt) run(transfer.order, () => advanceBridgeTransfer(context, transfer))
    }
    if (!checkingFunding && now >= nextFundingCheckAt) {
      const orders = ordersToCheck(context)
      if (orders.length > 0) {
        checkingFunding = true
        nextFundingCheckAt = now + Math.max(fundingCheckMs, minimumFundingCheckRealMs * venue.clock.speed)
        run(undefined, () => checkOwnerFunding(context, orders).finally(() => (checkingFunding = false)))
      }
    }
    timer = setTimeout(tick, tickMs)
    timer.unref()
  }

  return {
    agents: agentProfiles,
    bridgeFailures,
    registerAdminRoutes: (app) => registerBridgeControlRoute(app, bridgeFailures),
    start: async () => {
      const agents = agentProfiles.map((agent) => agent.address)
      await Promise.all(
        [...venue.chains.values()].map(async (chain) => {
          await provisionAgents(chain, agents)
          for (const profile of bridgeProfiles) await impersonateWithEther(chain, bridgeAccount(profile))
        }),
      )
      unsubscribe = store.onChange((order) => {
        if (finalDeltaStatuses.has(order.status)) runtimes.forget(order.id)
      })
      if (!stopped) tick()
    },
    stop: async () => {
      stopped = true
      clearTimeout(timer)
      unsubscribe?.()
      for (const wake of [...sleepers]) wake()
      while (jobs.size > 0) await Promise.allSettled([...jobs])
    },
  }
}
