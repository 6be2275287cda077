import { BaseError } from '../../errors/base.js'

/**
 * A notification target the bot cannot use: an environment variable it names is not set, or holds no usable value.
 * Operational: the bot does not start; set the variable (or fix the config) and start it again.
 */
export class NotificationTargetError extends BaseError {
  override name = 'NotificationTargetError'
  constructor({ where, target, problem }: { where: string; target: string; problem: string }) {
    super(`${where}: notification target "${target}": ${problem}`, {
      details: { target },
      hint: 'set the variable in the environment of `deltaflow run`, or remove the target from notifications.targets',
      errorClass: 'operational',
    })
  }
}
