import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfigDocument } from '../../../src/config/load-config.js'
import { dashboardContentSecurityPolicy, registerDashboard } from '../../../src/runtime/console/dashboard/register-dashboard.js'
import { statusAnswerSchema } from '../../../src/runtime/console/status-answer.js'
import { strategiesAnswerSchema } from '../../../src/runtime/console/strategy-answer.js'
import { type BotSession, openBot } from '../../../src/runtime/open-bot.js'
import { developmentAccounts } from '../../../src/sandbox/chains/accounts.js'
import { launchChromium, watchPage } from '../../helpers/chromium.js'
import { consoleBotConfigText } from '../../helpers/console-bot.js'
import { useSandbox } from '../../helpers/sandbox.js'
import { createTempDirectory } from '../../helpers/temp-directory.js'
import { createCapturedLogger } from './captured-logger.js'

// The web console of a paper bot in a real browser (Debian's Chromium through playwright-core): the page is open
// before the bot starts, so the taker's fill reaches it through the event stream, not a reload; pausing a strategy
// goes through the token prompt and the confirmation; the page asks nothing of any other origin. Full-page
// screenshots are kept under .cache/test-artifacts/ (gitignored) for a person to look at. Fails, not skips, without
// Chromium: CI installs it (.ci/run).

const directory = createTempDirectory('deltaflow-dashboard-')
const artifacts = fileURLToPath(new URL('../../../.cache/test-artifacts/', import.meta.url))
const token = 'dashb0ard-t0ken-4e1f9c7a2b5d'
const { logger, lines: logLines } = createCapturedLogger('info')

describe('the web console in Chromium', () => {
  const sandbox = useSandbox({ chainIds: [1] })
  let session: BotSession
  let base: string
  let browser: Browser
  let page: Page
  /** Every URL the page asked for, and what it logged as an error. */
  const requested: string[] = []
  const pageErrors: string[] = []

  /** Polls the API (a read, as any client) until `test` holds; fails after `timeoutMs` saying what it waited for. */
  async function pollApi<T>(what: string, read: () => Promise<T>, test: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = await read()
      if (test(value)) return value
      if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}; last: ${JSON.stringify(value)}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  const strategies = async () => strategiesAnswerSchema.parse(await (await fetch(`${base}/api/strategies`)).json()).strategies
  const screenshot = async (name: string) => {
    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: `${artifacts}${name}`, fullPage: true })
  }

  beforeAll(async () => {
    const text = consoleBotConfigText({
      sandbox: sandbox(),
      db: directory.path('dashboard.sqlite'),
      keyEnv: 'DASHBOARD_TEST_KEY',
      tokenEnv: 'DASHBOARD_TEST_TOKEN',
    })
    const env = { DASHBOARD_TEST_KEY: developmentAccounts[5]?.privateKey ?? '', DASHBOARD_TEST_TOKEN: token }
    session = await openBot({ document: parseConfigDocument(text, 'bot.yaml', { env }), live: false, logger, env })
    base = session.ops?.url ?? ''
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    watchPage(page, requested, pageErrors)
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    if (session?.bot.stats().running) await session.bot.stop()
    await session?.close()
    directory.cleanup()
  })

  it('serves the page and its bundle with a policy that allows only this server', async () => {
    const response = await fetch(`${base}/`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-security-policy')).toBe(dashboardContentSecurityPolicy)
    const html = await response.text()
    expect([...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1])).toEqual([
      'data:,',
      '/console/app.css',
      '/console/app.js',
    ])
    const script = await fetch(`${base}/console/app.js`)
    expect(script.headers.get('content-type')).toContain('text/javascript')
    expect((await script.text()).length).toBeGreaterThan(10_000)
  })

  it('says how to build the console when dist/ has none', async () => {
    const app = Fastify()
    registerDashboard(app, { directory: directory.path('no-build') })
    const answer = await app.inject({ method: 'GET', url: '/' })
    await app.close()
    expect(answer.statusCode).toBe(503)
    expect(answer.body).toContain('npm run build')
    expect(answer.headers['content-security-policy']).toBe(dashboardContentSecurityPolicy)
  })

  it('shows a fill that the bot journals after the page was loaded, without a reload', async () => {
    await page.goto(`${base}/`)
    await page.locator('#live-state.live').waitFor({ timeout: 10_000 })
    await page.locator('tr[data-strategy="taker"]').waitFor()
    expect(await page.locator('tr[data-fill]').count()).toBe(0)
    const navigations: string[] = []
    page.on('framenavigated', (frame) => navigations.push(frame.url()))

    await session.bot.start()
    await pollApi(
      'a fill in the journal',
      async () => session.journal.fillCount(),
      (count) => count > 0,
      30_000,
    )
    const [fill] = session.journal.fillPage({ limit: 1 })
    // Within seconds of being journaled: the event stream made the page redraw (the timeout is only a bound).
    await page.locator(`tr[data-fill="${fill?.id}"]`).waitFor({ timeout: 8_000 })
    await expect.poll(() => page.locator('#live-feed li[data-kind="fill"]').count(), { timeout: 8_000 }).toBeGreaterThan(0)
    expect(navigations).toEqual([])
    // Wait for the ladder's four open orders so the picture shows them.
    await expect.poll(() => page.locator('section tr[data-order]').count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(4)
    // Amounts in token units with their symbols: the taker's 1,000 USDC and the WETH it got.
    const fillRow = page.locator(`tr[data-fill="${fill?.id}"]`)
    expect(await fillRow.textContent()).toContain('1,000 USDC')
    expect(await fillRow.textContent()).toMatch(/\d\.\d+ WETH/)
    expect(await page.locator('tr[data-strategy="taker"] ul.flows').textContent()).toContain('−1,000 USDC')
    // The PnL of each strategy in USDC, and the wallet's value charted over time (a redraw per event shows new points).
    await expect.poll(() => page.locator('tr[data-strategy="taker"] .pnl').textContent(), { timeout: 8_000 }).toMatch(/\d USDC$/)
    expect(await page.locator('th', { hasText: 'PnL (USDC)' }).count()).toBe(1)
    await expect
      .poll(
        async () => {
          // A redraw of the overview, as an event would make (the test's tsconfig has no DOM types: the page's code as text).
          await page.evaluate("window.dispatchEvent(new HashChangeEvent('hashchange'))")
          return page.locator('figure.chart').first().getAttribute('data-points')
        },
        { timeout: 10_000 },
      )
      .not.toMatch(/^[01]$/)
    expect(await page.locator('figure.chart figcaption').first().textContent()).toMatch(/^Wallet value: [\d,.]+ USDC/)
    await page.locator('figure.chart canvas').first().waitFor()
    await screenshot('console-overview.png')
  })

  it('pauses a strategy after asking for the token and a confirmation, as the API then says', async () => {
    // A wrong token: the API refuses, the page says so and forgets it; nothing is paused.
    await page.locator('tr[data-strategy="taker"] button[data-action="pause"]').click()
    await page.locator('dialog.token-dialog input[name="token"]').fill('not-the-console-token')
    await page.locator('dialog.token-dialog button[value="save"]').click()
    // A redraw while the confirmation is open: on loopback reads need no token, so a read neither sends nor forgets
    // the one typed for the action (which then goes out with it, and is refused for itself).
    const read = page.waitForResponse((response) => response.url().endsWith('/api/status'))
    await page.evaluate("window.dispatchEvent(new HashChangeEvent('hashchange'))")
    expect((await read).status()).toBe(200)
    await page.locator('dialog.confirm button[value="confirm"]').click()
    await expect.poll(() => page.locator('.notice.error').textContent()).toContain('the bearer token is not the console token')
    await page.locator('.notice.error button.close').click()
    expect((await strategies()).find((one) => one.name === 'taker')?.state).toBe('running')

    await page.locator('tr[data-strategy="taker"] button[data-action="pause"]').click()
    // The token is asked (again, after the wrong one), then the confirmation.
    await page.locator('dialog.token-dialog input[name="token"]').fill(token)
    await page.locator('dialog.token-dialog button[value="save"]').click()
    const confirm = page.locator('dialog.confirm:not(.token-dialog)')
    await expect.poll(() => confirm.locator('h2').textContent()).toBe('Pause taker?')
    await confirm.locator('button[value="confirm"]').click()

    const after = await pollApi('taker paused', strategies, (list) => list.find((one) => one.name === 'taker')?.state === 'paused')
    expect(after.find((one) => one.name === 'taker')?.pausedBy).toBe('operator')
    expect(after.find((one) => one.name === 'far-ladder')?.state).toBe('running')
    await page.locator('tr[data-strategy="taker"][data-state="paused"] button[data-action="resume"]').waitFor({ timeout: 8_000 })
    await page.locator('.notice.ok').waitFor()
    // The journaled action names the token's setting, never the token.
    const actions = session.journal
      .consoleEventsAfter({ after: 0, upTo: Number.MAX_SAFE_INTEGER, limit: 1000 })
      .flatMap((row) => (row.actionId === null ? [] : [session.journal.getOperatorActionById(row.actionId)]))
    expect(actions).toContainEqual(
      expect.objectContaining({ action: 'pause-strategy', target: 'taker', status: 'done', requestedBy: 'env DASHBOARD_TEST_TOKEN' }),
    )
    expect(JSON.stringify(actions)).not.toContain(token)
  })

  it('cancels nothing when the operator cancels the confirmation', async () => {
    await page.locator('tr[data-strategy="far-ladder"] button[data-action="pause"]').click()
    await page.locator('dialog.confirm button[value="cancel"]').click()
    await expect.poll(() => page.locator('dialog').count()).toBe(0)
    expect((await strategies()).find((one) => one.name === 'far-ladder')?.state).toBe('running')
  })

  it('draws a strategy page with its prices, orders and fills, and an order page with its history', async () => {
    await page.goto(`${base}/#/strategies/far-ladder`)
    await page.locator('.page.strategy[data-strategy="far-ladder"]').waitFor()
    expect(await page.locator('.page.strategy tr[data-order]').count()).toBeGreaterThanOrEqual(4)
    await page.locator('.page.strategy figure.chart canvas').first().waitFor()
    await screenshot('console-strategy-ladder.png')

    await page.goto(`${base}/#/strategies/taker`)
    await page.locator('.page.strategy[data-strategy="taker"][data-state="paused"]').waitFor()
    // Its price chart marks the fill beside the order's limit price.
    expect(await page.locator('.page.strategy figure.chart').first().getAttribute('data-points')).toBe('2')
    await screenshot('console-strategy-taker.png')

    const [fill] = session.journal.fillPage({ limit: 1 })
    await page.goto(`${base}/#/orders/${encodeURIComponent(fill?.orderId ?? '')}`)
    await page.locator('.page.order').waitFor()
    const history = session.journal.orderHistory(fill?.orderId ?? '').map((change) => change.status)
    await expect.poll(() => page.locator('.page.order tr[data-fill]').count()).toBe(1)
    const shown = await page.locator('.page.order section').first().locator('tbody .badge').allTextContents()
    expect(shown).toEqual(history)
    await screenshot('console-order.png')
  })

  it('engages the kill switch from the header after a confirmation, and releases it', async () => {
    const status = async () => statusAnswerSchema.parse(await (await fetch(`${base}/api/status`)).json())
    await page.locator('button[data-action="engage-kill-switch"]').click()
    const confirm = page.locator('dialog.confirm')
    await confirm.locator('input[name="option"]').uncheck()
    await confirm.locator('button[value="confirm"]').click()
    const engaged = await pollApi('the kill switch engaged', status, (answer) => answer.killSwitch.tripped)
    expect(engaged.killSwitch).toMatchObject({ source: 'operator', cancelOpenOrders: false })
    await page.locator('button[data-action="release-kill-switch"]').click()
    await page.locator('dialog.confirm button[value="confirm"]').click()
    await pollApi('the kill switch released', status, (answer) => !answer.killSwitch.tripped)
    await page.locator('button[data-action="engage-kill-switch"]').waitFor({ timeout: 8_000 })
  })

  it('asked nothing of another origin, logged no error and kept the token out of URLs and logs', () => {
    const foreign = requested.filter((url) => !url.startsWith(`${base}/`))
    expect(foreign).toEqual([])
    expect(requested.some((url) => url.includes(token))).toBe(false)
    // Chromium logs each refused request; the wrong token's 401 is the only one expected.
    expect(pageErrors.filter((message) => !message.includes('status of 401'))).toEqual([])
    expect(logLines.some((line) => line.includes(token))).toBe(false)
  })
})
