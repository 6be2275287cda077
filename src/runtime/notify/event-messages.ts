import { withoutUrlSecrets } from '../../errors/url-secrets.js'
import type { FillEvent, RefusedOrFailedIntent } from '../../journal/notification-sources.js'
import type { FillMismatch } from '../../journal/reconcile/reconcile-report.js'
import type { FormatTokenAmount } from '../token-labels.js'
import type { NotificationMessage } from './notification-message.js'

/** What each event says. Amounts in token units where the chain gives symbol and decimals; no key, token or URL. */

export async function fillMessage(fill: FillEvent, formatAmount: FormatTokenAmount): Promise<NotificationMessage> {
  const [spent, received] = await Promise.all([
    formatAmount(fill.chainId, fill.srcToken, fill.spent),
    formatAmount(fill.destChainId, fill.destToken, fill.received),
  ])
  return {
    event: 'fill',
    severity: 'info',
    title: `${fill.strategy || 'deltaflow'}: filled ${spent} → ${received}`,
    lines: [`order ${fill.orderId} (${fill.mode}, chain ${fill.chainId})`, `transaction ${fill.txHash}`],
  }
}

export function intentMessage(intent: RefusedOrFailedIntent): NotificationMessage {
  const refused = intent.status === 'refused'
  return {
    event: refused ? 'intent-refused' : 'intent-failed',
    severity: refused ? 'warning' : 'error',
    title: `${intent.strategy}: ${intent.kind} intent ${intent.status}${intent.limit === null ? '' : ` (${intent.limit})`}`,
    lines: [`intent ${intent.id}`, `reason: ${withoutUrlSecrets(intent.reason).slice(0, 500)}`],
  }
}

export function strategyPausedMessage(strategy: string, lastError: string | undefined): NotificationMessage {
  return {
    event: 'strategy-paused',
    severity: 'error',
    title: `${strategy}: strategy paused`,
    lines: lastError === undefined ? [] : [`last error: ${withoutUrlSecrets(lastError).slice(0, 500)}`],
  }
}

export function killSwitchMessage(reason: string | undefined): NotificationMessage {
  return reason === undefined
    ? { event: 'kill-switch', severity: 'warning', title: 'kill switch released: new orders allowed again', lines: [] }
    : {
        event: 'kill-switch',
        severity: 'error',
        title: 'kill switch tripped: no new orders',
        lines: [`reason: ${withoutUrlSecrets(reason)}`],
      }
}

export function mismatchMessage(mismatch: FillMismatch): NotificationMessage {
  return {
    event: 'reconcile-mismatch',
    severity: 'warning',
    title: `reconciliation: the venue's ${mismatch.leg} amount of order ${mismatch.orderId} differs from the chain's`,
    lines: [`transaction ${mismatch.txHash}`, `venue ${mismatch.venue}, chain ${mismatch.chain} (raw units; the chain's is recorded)`],
  }
}

export function botStartMessage({ mode, strategies }: { mode: string; strategies: readonly string[] }): NotificationMessage {
  return { event: 'bot-start', severity: 'info', title: `bot started (${mode})`, lines: [`strategies: ${strategies.join(', ') || 'none'}`] }
}

export function botStopMessage({ pendingOrders }: { pendingOrders: number }): NotificationMessage {
  return {
    event: 'bot-stop',
    severity: pendingOrders > 0 ? 'warning' : 'info',
    title: 'bot stopped',
    lines: pendingOrders > 0 ? [`${pendingOrders} order(s) not final yet: the next start follows them`] : [],
  }
}
