import type { ExecutorSettings } from '../exec/executor/executor-context.js'
import type { DeltaflowConfig } from './schema.js'

/** The executor's settings from the config's `executor` section (live, paper and backtest alike). */
export function executorSettingsOf(executor: DeltaflowConfig['executor']): Partial<ExecutorSettings> {
  return {
    preference: { mode: executor.preferMode, marginBps: executor.preferMarginBps },
    permitPreference: executor.permitPreference,
    approvalPolicy: executor.approvalPolicy,
    deltaValiditySeconds: executor.deltaValiditySeconds,
    marketValiditySeconds: executor.marketValiditySeconds,
  }
}
