// Kill points of the reliability worker, found without hooks in the bot: the worker hands this fetch to its API client
// and to the chains' transports, and it kills the process at the aimed request: before it is sent, while it is in
// flight, or once its answer arrived and before anyone read it.
import { writeSync } from 'node:fs'
import { type Hex, keccak256 } from 'viem'
import { z } from 'zod'
import type { Journal } from '../../src/journal/journal.js'
import type { KillAim } from './reliability-plan.js'

/** What the kill points read of a JSON-RPC call, of a receipt, and of the venue's Delta orders (one or a page). */
const rpcCallSchema = z.object({ method: z.string(), params: z.array(z.unknown()).default([]) })
const receiptAnswerSchema = z.object({ result: z.object({ status: z.string() }).nullish() })
const venueOrderSchema = z.object({ orderHash: z.string(), transactions: z.array(z.object({ originTx: z.string() })) })
const venueAnswerSchema = z.union([
  z.object({ data: z.array(venueOrderSchema) }),
  venueOrderSchema.transform((order) => ({ data: [order] })),
])

/** A request as the kill points see it: an API call by method and path, or a JSON-RPC call by method. */
type Seen = { kind: 'api'; method: string; path: string } | { kind: 'rpc'; method: string; params: unknown[] }

/** What to do with a request: let it through, or kill before it, after its answer, or a few ms after it left. */
type Decision = { when: 'before' | 'answered' | 'in-flight' | 'inspect'; detail: string } | undefined

export type KillPoints = {
  fetch: typeof globalThis.fetch
  /** From now on the first request that matches the aim kills the process. */
  arm: () => void
}

export type CreateKillPointsParameters = {
  aim: KillAim | undefined
  apiUrl: string
  rpcUrls: readonly string[]
  /** The worker's journal: a raw transaction is told apart by what the bot journaled before sending it. */
  journal: () => Journal
  fetch: typeof globalThis.fetch
  /** Told each request seen while armed, with its answer's status. */
  trace?: ((line: string) => void) | undefined
  /** Awaited once an approval's broadcast is answered, before the bot reads the answer: a pause, not a kill. */
  afterApproval?: (() => Promise<void>) | undefined
}

/** Prints the line the test looks for, synchronously, then dies as a crash does: no handler, no flush. */
export function dieAt(aim: KillAim, detail: string): never {
  writeSync(1, `about to die at ${aim.window} (${aim.variant}): ${detail}\n`)
  process.kill(process.pid, 'SIGKILL')
  throw new Error('unreachable: SIGKILL')
}

export function createKillPoints(parameters: CreateKillPointsParameters): KillPoints {
  const { aim, apiUrl, rpcUrls, journal, fetch: send, trace, afterApproval } = parameters
  let armed = false
  // Delta fills the venue reported that the journal does not hold yet: their receipts are the chain side of a fill.
  const reportedFills = new Set<string>()

  const decide = (seen: Seen): Decision => {
    if (!aim) return undefined
    const apiPost = (path: string) => seen.kind === 'api' && seen.method === 'POST' && seen.path === path
    const rawTransaction = seen.kind === 'rpc' && seen.method === 'eth_sendRawTransaction' ? purposeOf(seen.params[0]) : undefined
    const timing = (detail: string): Decision => ({
      when: aim.variant === 'before-send' ? 'before' : aim.variant === 'in-flight' ? 'in-flight' : 'answered',
      detail,
    })
    switch (aim.window) {
      case 'approval':
        return rawTransaction === 'approve' ? timing('eth_sendRawTransaction of an approval') : undefined
      case 'sign-submit':
      case 'submission':
        if (apiPost('/v2/delta/orders')) return timing('POST /v2/delta/orders')
        return rawTransaction === 'swap' ? timing('eth_sendRawTransaction of a Market swap') : undefined
      case 'cancellation':
        return apiPost('/v2/delta/orders/cancel') ? timing('POST /v2/delta/orders/cancel') : undefined
      case 'fill':
        if (seen.kind === 'api' && seen.method === 'GET' && seen.path.startsWith('/v2/delta/orders')) {
          return { when: 'inspect', detail: `GET ${seen.path}` }
        }
        if (seen.kind === 'rpc' && seen.method === 'eth_getTransactionReceipt')
          return { when: 'inspect', detail: 'eth_getTransactionReceipt' }
        return undefined
    }
  }

  const purposeOf = (raw: unknown) => (typeof raw === 'string' ? journal().getTransaction(keccak256(raw as Hex))?.purpose : undefined)

  /** Fill window: does this answer tell of a fill the journal lacks, in the aimed form? */
  const inspect = async (seen: Seen, response: Response): Promise<string | undefined> => {
    if (!aim || !response.ok) return undefined
    const body: unknown = await response.clone().json()
    if (seen.kind === 'api') {
      const fills = unjournaledFills(journal(), body)
      for (const fill of fills) reportedFills.add(fill.originTx)
      const [first] = fills
      if (aim.variant !== 'venue-answer' || !first) return undefined
      // The reconciliation's Market part runs beside its Delta part: its writes land first, so the kill falls between
      // what the pass already wrote and what it had yet to write.
      await settleSwapTransactions(journal())
      return `the venue reports fill ${first.originTx} of ${first.orderHash}`
    }
    const hash = String(seen.params[0]).toLowerCase()
    if (receiptAnswerSchema.parse(body).result?.status !== '0x1') return undefined
    if (aim.variant === 'delta-receipt' && reportedFills.has(hash)) return `the chain's receipt of Delta fill ${hash}`
    const transaction = journal().getTransaction(hash)
    if (aim.variant === 'market-receipt' && transaction?.purpose === 'swap' && transaction.status === 'sent') {
      return `the chain's receipt of Market swap ${hash}`
    }
    return undefined
  }

  const killingFetch: typeof globalThis.fetch = async (input, init) => {
    if (afterApproval) {
      const request = see(input, init, apiUrl, rpcUrls)
      if (request?.kind === 'rpc' && request.method === 'eth_sendRawTransaction' && purposeOf(request.params[0]) === 'approve') {
        const response = await send(input, init)
        await afterApproval()
        return response
      }
    }
    const seen = armed && aim ? see(input, init, apiUrl, rpcUrls) : undefined
    const decision = seen && decide(seen)
    const name = seen && (seen.kind === 'api' ? `${seen.method} ${seen.path}` : seen.method)
    if (!seen || !decision || !aim) {
      if (!trace || !name) return send(input, init)
      const response = await send(input, init)
      trace(`${name}: ${response.status}`)
      return response
    }
    trace?.(`${name}: ${decision.when}`)
    if (decision.when === 'before') dieAt(aim, `${decision.detail}, signed and journaled, not sent`)
    if (decision.when === 'in-flight') {
      const answer = send(input, init)
      armed = false
      setTimeout(() => dieAt(aim, `${decision.detail}, ${aim.delayMs} ms after it was sent`), aim.delayMs)
      // An answer that comes first (its caller could then run to the end without yielding to the timer) ends it too.
      answer.then(
        () => dieAt(aim, `${decision.detail}, answered within ${aim.delayMs} ms, the answer unread`),
        () => dieAt(aim, `${decision.detail}, failed within ${aim.delayMs} ms`),
      )
      return answer
    }
    const response = await send(input, init)
    if (decision.when === 'answered') dieAt(aim, `${decision.detail}, answered ${response.status}, the answer unread`)
    const found = await inspect(seen, response)
    if (found) dieAt(aim, `${found}, not journaled`)
    return response
  }

  return {
    fetch: killingFetch,
    arm: () => {
      armed = true
    },
  }
}

/** The API path or the JSON-RPC method of a request (viem's http transport sends one call per request). */
function see(
  input: Parameters<typeof fetch>[0],
  init: RequestInit | undefined,
  apiUrl: string,
  rpcUrls: readonly string[],
): Seen | undefined {
  const url = input instanceof Request ? input.url : String(input)
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase()
  if (url.startsWith(apiUrl)) return { kind: 'api', method, path: new URL(url).pathname }
  if (!rpcUrls.some((rpcUrl) => url.startsWith(rpcUrl)) || typeof init?.body !== 'string') return undefined
  const call = rpcCallSchema.parse(JSON.parse(init.body))
  return { kind: 'rpc', method: call.method, params: call.params }
}

/** Fills in a venue answer (one order or a page of them) that the journal does not hold. */
function unjournaledFills(journal: Journal, body: unknown): { orderHash: string; originTx: string }[] {
  const found: { orderHash: string; originTx: string }[] = []
  for (const { orderHash, transactions } of venueAnswerSchema.parse(body).data) {
    const journaled = journal.getOrder({ orderHash: orderHash.toLowerCase() })
    if (!journaled) continue
    const recorded = new Set(journal.fillsOf(journaled.id).map((fill) => fill.txHash))
    for (const { originTx } of transactions)
      if (!recorded.has(originTx.toLowerCase())) found.push({ orderHash, originTx: originTx.toLowerCase() })
  }
  return found
}

/** Waits (up to 5 s) until the journal holds no Market swap transaction still waiting for its receipt. */
async function settleSwapTransactions(journal: Journal): Promise<void> {
  for (let waited = 0; waited < 5_000; waited += 20) {
    if (!journal.pendingTransactions().some((transaction) => transaction.purpose === 'swap')) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
