import { readFileSync } from 'node:fs'
import type { z } from 'zod'
import { BaseError } from '../errors/base.js'
import { withoutUrlSecrets } from '../errors/url-secrets.js'
import { defaultTokenEnv } from '../runtime/console/console-token.js'
import { errorAnswerSchema } from '../runtime/console/error-answer.js'
import { fillsAnswerSchema, orderAnswerSchema } from '../runtime/console/order-answers.js'
import { type StatusAnswer, statusAnswerSchema } from '../runtime/console/status-answer.js'
import { strategiesAnswerSchema } from '../runtime/console/strategy-answer.js'
import type { CommandJournalSummary } from './journal-summary.js'
import { tokenKey } from './token-labels.js'

/** A running bot's console could not be read: unreachable, refused, or answered something else. Operational. */
export class ConsoleReadError extends BaseError {
  override name = 'ConsoleReadError' as const
}

export type ConsoleStatusOptions = { url: string; tokenEnv?: string | undefined; tokenFile?: string | undefined; recent: number }

/** The bearer token of --token-file, else of --token-env's variable (default DELTAFLOW_OPS_TOKEN); none is fine on loopback. */
export function consoleTokenOf(
  { tokenEnv, tokenFile }: Pick<ConsoleStatusOptions, 'tokenEnv' | 'tokenFile'>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  if (tokenFile !== undefined) {
    try {
      return readFileSync(tokenFile, 'utf8').trim() || undefined
    } catch (error) {
      throw new ConsoleReadError(`--token-file: cannot read ${tokenFile}`, {
        details: { reason: (error as NodeJS.ErrnoException).code ?? String(error) },
        errorClass: 'operational',
      })
    }
  }
  return env[tokenEnv ?? defaultTokenEnv]?.trim() || undefined
}

/**
 * What `deltaflow status --url` prints: the bot's status and the journal's summary as the running bot's console
 * answers them (GET /api/status, /api/strategies, /api/fills and each recent fill's order), in the shape of the
 * journal's summary.
 */
export async function readConsoleStatus(
  options: ConsoleStatusOptions,
  token: string | undefined,
): Promise<{ status: StatusAnswer; summary: CommandJournalSummary }> {
  const base = options.url.replace(/\/+$/, '')
  async function read<Schema extends z.ZodType>(path: string, schema: Schema): Promise<z.output<Schema>> {
    const where = `GET ${path}`
    let response: Response
    try {
      response = await fetch(`${base}${path}`, {
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(10_000),
      })
    } catch (error) {
      throw new ConsoleReadError(`cannot reach the bot's console at ${withoutUrlSecrets(base)}`, {
        details: {
          request: where,
          reason: error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error),
        },
        hint: 'is the bot running with `ops.port` and `ops.console: true`? check the URL and port',
        errorClass: 'operational',
      })
    }
    const text = await response.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    if (!response.ok) {
      const refusal = errorAnswerSchema.safeParse(json)
      throw new ConsoleReadError(`the bot's console answered ${response.status} to ${where}`, {
        details: { error: refusal.success ? refusal.data.error : text.slice(0, 200) },
        hint:
          response.status === 401
            ? 'pass the console token with --token-env NAME or --token-file FILE (default: the variable DELTAFLOW_OPS_TOKEN)'
            : undefined,
        errorClass: 'operational',
      })
    }
    const parsed = schema.safeParse(json)
    if (!parsed.success) {
      throw new ConsoleReadError(`the answer to ${where} is not what a deltaflow console answers`, {
        details: { problems: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(answer)'}: ${issue.message}`).join('; ') },
        hint: 'is the URL a deltaflow ops server of the same version?',
        errorClass: 'operational',
      })
    }
    return parsed.data
  }

  const [status, { strategies }, { fills }] = await Promise.all([
    read('/api/status', statusAnswerSchema),
    read('/api/strategies', strategiesAnswerSchema),
    options.recent > 0 ? read(`/api/fills?limit=${options.recent}`, fillsAnswerSchema) : Promise.resolve({ fills: [] }),
  ])
  const orders = await Promise.all(
    [...new Set(fills.map((fill) => fill.orderId))].map((id) => read(`/api/orders/${encodeURIComponent(id)}`, orderAnswerSchema)),
  )
  const orderOf = new Map(orders.map(({ order }) => [order.id, order]))
  return {
    status,
    summary: {
      journal: withoutUrlSecrets(base),
      strategies: strategies
        .map(({ name, intents, orders: byStatus, flows }) => ({
          name,
          intents,
          orders: byStatus,
          net: Object.fromEntries(flows.map((flow) => [tokenKey(flow.chainId, flow.token), flow.net])),
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
      orders: status.journal.orders,
      fills: status.journal.fills,
      refunds: status.journal.refunds,
      recentFills: fills.map((fill) => {
        const order = orderOf.get(fill.orderId)
        return {
          orderId: fill.orderId,
          strategy: fill.strategy ?? '',
          chainId: fill.chainId,
          txHash: fill.txHash,
          spent: fill.spent,
          received: fill.received,
          at: fill.recordedAt,
          ...(order
            ? { spentToken: tokenKey(order.chainId, order.srcToken), receivedToken: tokenKey(order.destChainId, order.destToken) }
            : {}),
        }
      }),
    },
  }
}

/** The bot's own lines above the summary: mode, venue, running, kill switch, last reconciliation. */
export function formatConsoleStatus(status: StatusAnswer): string {
  const killSwitch = status.killSwitch.tripped ? `TRIPPED by ${status.killSwitch.source}: ${status.killSwitch.reason}` : 'off'
  const reconciled = status.reconciliation.lastAt === null ? 'never' : new Date(status.reconciliation.lastAt).toISOString()
  return [
    `bot ${status.running ? 'running' : 'stopped'} (${status.mode}) on ${status.venue}, up ${Math.round(status.uptimeMs / 1000)} s, chains ${status.chains.map((chain) => `${chain.chainId}${chain.available ? '' : ' (unavailable)'}`).join(', ')}`,
    `kill switch: ${killSwitch}`,
    `last reconciliation: ${reconciled} (${status.reconciliation.passes} passes, ${status.reconciliation.errors} failed)`,
    '',
  ].join('\n')
}
