import { element } from './dom.js'

export type ConfirmParameters = {
  title: string
  /** What will happen, in a sentence or two. */
  message: string
  confirmLabel: string
  /** A danger button (red) for the kill switch. */
  danger?: boolean
  /** A checkbox whose state is passed to the answer (e.g. cancel open orders too). */
  option?: { label: string; checked: boolean }
}

/** Asks in a modal dialog; resolves with the option's state when confirmed, undefined when cancelled. */
export function confirmAction({
  title,
  message,
  confirmLabel,
  danger = false,
  option,
}: ConfirmParameters): Promise<{ option: boolean } | undefined> {
  return new Promise((resolve) => {
    const checkbox = option ? element('input', { type: 'checkbox', name: 'option', checked: option.checked }) : undefined
    const dialog = element(
      'dialog',
      { class: 'confirm', 'aria-labelledby': 'confirm-title' },
      element(
        'form',
        { method: 'dialog' },
        element('h2', { id: 'confirm-title' }, title),
        element('p', {}, message),
        checkbox && option ? element('label', { class: 'option' }, checkbox, ` ${option.label}`) : null,
        element(
          'menu',
          {},
          element('button', { value: 'cancel', class: 'secondary', autofocus: true }, 'Cancel'),
          element('button', { value: 'confirm', class: danger ? 'danger' : 'primary' }, confirmLabel),
        ),
      ),
    )
    dialog.addEventListener('close', () => {
      const confirmed = dialog.returnValue === 'confirm'
      dialog.remove()
      resolve(confirmed ? { option: checkbox?.checked ?? false } : undefined)
    })
    document.body.append(dialog)
    dialog.showModal()
  })
}
