import { BaseError } from '../errors/base.js'

/** start() or stop() called in the wrong state (a bot starts once and stops once): a bug in the caller, fatal. */
export class BotStateError extends BaseError {
  override name = 'BotStateError' as const
  constructor({ action, state }: { action: 'start' | 'stop' | 'reconcile'; state: string }) {
    super(`cannot ${action} a bot that is ${state}`, {
      details: { action, state },
      hint: action === 'start' ? 'create a new bot to start again' : `call start() first${action === 'stop' ? ', and stop() once' : ''}`,
      errorClass: 'fatal',
    })
  }
}

/** Something the runtime needs is missing or failed (a chain a strategy watches is not configured, …). */
export class BotError extends BaseError {
  override name = 'BotError' as const
}

/** A bot or command that cannot run as configured (mode, venue, wallet): operational, the user fixes the config or the flags. */
export class BotSetupError extends BaseError {
  override name = 'BotSetupError' as const
}
