import { ConsoleApiError, consoleToken, postAction } from './api-client.js'
import { type ConfirmParameters, confirmAction } from './confirm-dialog.js'
import { element } from './dom.js'
import { showNotice } from './notices.js'

let asking: Promise<string | undefined> | undefined

/**
 * Asks for the console token in a dialog (kept for this tab); undefined when the operator cancels. While the dialog is
 * open, another ask (a read and the event stream refused at once) waits for the same answer.
 */
export function askToken(): Promise<string | undefined> {
  asking ??= openTokenDialog().finally(() => {
    asking = undefined
  })
  return asking
}

function openTokenDialog(): Promise<string | undefined> {
  return new Promise((resolve) => {
    const input = element('input', { type: 'password', name: 'token', autocomplete: 'off', required: true, placeholder: 'console token' })
    const dialog = element(
      'dialog',
      { class: 'confirm token-dialog', 'aria-labelledby': 'token-title' },
      element(
        'form',
        { method: 'dialog' },
        element('h2', { id: 'token-title' }, 'Console token'),
        element(
          'p',
          {},
          'Actions, and every request when the bot listens beyond loopback, need the bot’s console token (ops.auth.tokenEnv or ops.auth.tokenFile). It is kept in this tab only.',
        ),
        input,
        element(
          'menu',
          {},
          element('button', { value: 'cancel', class: 'secondary', formnovalidate: true }, 'Cancel'),
          element('button', { value: 'save', class: 'primary' }, 'Use token'),
        ),
      ),
    )
    dialog.addEventListener('close', () => {
      const value = dialog.returnValue === 'save' ? input.value.trim() : ''
      dialog.remove()
      if (value !== '') consoleToken.set(value)
      resolve(value === '' ? undefined : value)
    })
    document.body.append(dialog)
    dialog.showModal()
  })
}

export type OperatorActionParameters = ConfirmParameters & {
  path: string
  body?: (option: boolean) => Record<string, unknown>
  /** What to say when it worked. */
  done: string
  /** Called after the action answered (to refresh the page). */
  after: () => void
}

/** Token (asked once), then confirmation, then the POST; the outcome or the refusal shows as a notice. */
export async function runOperatorAction({ path, body, done, after, ...confirm }: OperatorActionParameters): Promise<void> {
  if (!consoleToken.get() && !(await askToken())) return
  const answer = await confirmAction(confirm)
  if (!answer) return
  try {
    const result = await postAction(path, body?.(answer.option) ?? {})
    showNotice('ok', `${done}${result.replayed ? ' (already done)' : ''}`)
  } catch (error) {
    // A wrong token is forgotten so the next action asks again.
    if (error instanceof ConsoleApiError && error.status === 401) consoleToken.set('')
    showNotice('error', error instanceof Error ? error.message : String(error))
  } finally {
    after()
  }
}
