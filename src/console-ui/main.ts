import 'uplot/dist/uPlot.min.css'
import './app.css'
import { type StatusAnswer, statusAnswerSchema } from '../runtime/console/status-answer.js'
import { ConsoleApiError, consoleToken, readApi } from './api-client.js'
import { element, formatTime } from './dom.js'
import { followEvents, type LiveState } from './live-events.js'
import { askToken, runOperatorAction } from './operator-actions.js'
import { renderOrder } from './order-page.js'
import { renderOverview } from './overview-page.js'
import { renderStrategy } from './strategy-page.js'

// The operator console in the browser: a hash route per page (#/, #/strategies/<name>, #/orders/<id>), re-drawn from
// the API when an event arrives on the stream or after an action; nothing is loaded from anywhere but the bot.

const main = element('main', { id: 'page' })
const statusBar = element('div', { class: 'status-bar' })
const liveBadge = element('span', { class: 'live connecting', id: 'live-state' }, 'connecting')
const killSwitchSlot = element('div', { class: 'kill-switch' })
const tokenState = element('button', { class: 'link', id: 'token-state', onclick: () => forgetToken() })

let drawing = false
let again = false
let timer: ReturnType<typeof setTimeout> | undefined

/** Re-draws the page soon (many events in a burst make one redraw; none overlap). */
function refresh(): void {
  if (timer !== undefined) return
  timer = setTimeout(() => {
    timer = undefined
    void draw()
  }, 300)
}

const live = followEvents(refresh, (state: LiveState) => {
  liveBadge.className = `live ${state}`
  liveBadge.textContent = state === 'needs-token' ? 'needs the token' : state
  if (state === 'live') refresh()
  // Bound beyond loopback, the stream wants the token too: a wrong one is forgotten and the token asked for.
  if (state === 'needs-token') {
    consoleToken.set('')
    drawTokenState()
    void askToken()
  }
})
// A token typed anywhere (an action, a read refused) lets a refused stream connect again.
consoleToken.onSet(() => {
  if (live.state() === 'needs-token') live.restart()
  refresh()
})

function forgetToken(): void {
  consoleToken.set('')
  drawTokenState()
}

function drawTokenState(): void {
  const token = consoleToken.get()
  tokenState.textContent = token ? 'token set (forget)' : 'no token: actions will ask for it'
  tokenState.disabled = !token
}

function drawHeader(status: StatusAnswer): void {
  const since = Math.round(status.uptimeMs / 60_000)
  statusBar.replaceChildren(
    element('span', { class: `badge ${status.running ? 'running' : 'stopped'}` }, status.running ? 'running' : 'stopped'),
    ` ${status.mode} · ${status.account.slice(0, 6)}…${status.account.slice(-4)} · up ${since} min · clock ${formatTime(status.now)}`,
  )
  const tripped = status.killSwitch.tripped
  killSwitchSlot.replaceChildren(
    tripped
      ? element('span', { class: 'badge tripped', title: status.killSwitch.reason ?? '' }, `kill switch on (${status.killSwitch.source})`)
      : '',
    element(
      'button',
      {
        class: tripped ? 'primary' : 'danger',
        'data-action': tripped ? 'release-kill-switch' : 'engage-kill-switch',
        onclick: () =>
          void runOperatorAction(
            tripped
              ? {
                  path: '/api/kill-switch/release',
                  title: 'Release the kill switch?',
                  message: 'Strategies may place orders again (a kill-switch file or a signal still holds it).',
                  confirmLabel: 'Release',
                  done: 'kill switch released',
                  after: refresh,
                }
              : {
                  path: '/api/kill-switch/engage',
                  title: 'Engage the kill switch?',
                  message: 'No strategy may place an order until it is released.',
                  confirmLabel: 'Engage kill switch',
                  danger: true,
                  option: { label: 'cancel every open order too', checked: true },
                  body: (cancelOpenOrders) => ({ reason: 'engaged from the web console', cancelOpenOrders }),
                  done: 'kill switch engaged',
                  after: refresh,
                },
          ),
      },
      tripped ? 'Release kill switch' : 'Kill switch',
    ),
  )
}

async function draw(): Promise<void> {
  if (drawing) {
    again = true
    return
  }
  drawing = true
  try {
    const status = await readApi('/api/status', statusAnswerSchema)
    drawHeader(status)
    drawTokenState()
    const route = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent)
    const context = { refresh, now: status.now }
    const page =
      route[0] === 'strategies' && route[1]
        ? await renderStrategy(route[1], context)
        : route[0] === 'orders' && route[1]
          ? await renderOrder(route.slice(1).join('/'), context)
          : await renderOverview({ ...context, status, live })
    main.replaceChildren(page)
    document.body.dataset.ready = 'true'
  } catch (error) {
    const message = element('p', { class: 'error' }, error instanceof Error ? error.message : String(error))
    // Bound to a non-loopback address, the bot wants the token for reads too.
    const needsToken = error instanceof ConsoleApiError && error.status === 401
    if (needsToken) consoleToken.set('')
    main.replaceChildren(
      message,
      ...(needsToken ? [element('button', { class: 'primary', onclick: () => void askToken() }, 'Enter the console token')] : []),
    )
  } finally {
    drawing = false
    if (again) {
      again = false
      refresh()
    }
  }
}

document.body.replaceChildren(
  element(
    'header',
    { class: 'top' },
    element('a', { class: 'brand', href: '#/' }, 'deltaflow'),
    element('nav', {}, element('a', { href: '#/' }, 'Overview')),
    statusBar,
    liveBadge,
    tokenState,
    killSwitchSlot,
  ),
  main,
)
window.addEventListener('hashchange', () => void draw())
void draw()
