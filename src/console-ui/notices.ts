import { element } from './dom.js'

/** A message at the top right that goes away by itself (errors stay until closed). */
export function showNotice(kind: 'ok' | 'error', text: string): void {
  let area = document.getElementById('notices')
  if (!area) {
    area = element('div', { id: 'notices', role: 'status', 'aria-live': 'polite' })
    document.body.append(area)
  }
  const notice = element('div', { class: `notice ${kind}` }, element('span', {}, text))
  notice.append(element('button', { class: 'close', 'aria-label': 'close', onclick: () => notice.remove() }, '×'))
  area.append(notice)
  if (kind === 'ok') setTimeout(() => notice.remove(), 6_000)
}
