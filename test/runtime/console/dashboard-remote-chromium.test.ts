import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { Browser, Page, Route } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfigDocument } from '../../../src/config/load-config.js'
import { type BotSession, openBot } from '../../../src/runtime/open-bot.js'
import { developmentAccounts } from '../../../src/sandbox/chains/accounts.js'
import { launchChromium, watchPage } from '../../helpers/chromium.js'
import { consoleBotConfigText } from '../../helpers/console-bot.js'
import { useSandbox } from '../../helpers/sandbox.js'
import { createTempDirectory } from '../../helpers/temp-directory.js'
import { createCapturedLogger } from './captured-logger.js'

// The web console of a bot listening beyond loopback (0.0.0.0 with a token), where every /api/ request needs the
// token, the event stream included: the page asks for the token, follows the stream with it (a fill shows live), and
// after the server cuts the stream it reconnects with Last-Event-ID and misses nothing journaled meanwhile.

const directory = createTempDirectory('deltaflow-dashboard-remote-')
const token = 'rem0te-c0nsole-t0ken-8d2a61f0'
const { logger, lines: logLines } = createCapturedLogger('info')

/** Each GET /api/events the ops server received: its socket (to cut it) and its headers. */
type StreamRequest = { socket: Socket; lastEventId: string | undefined; authorized: boolean }

describe('the web console in Chromium, bound beyond loopback', () => {
  const sandbox = useSandbox({ chainIds: [1] })
  let session: BotSession
  let base: string
  let browser: Browser
  let page: Page
  let baseline = 0
  const streams: StreamRequest[] = []
  const pageErrors: string[] = []
  const requested: string[] = []
  const onRequest = (message: unknown) => {
    const { request } = message as { request: IncomingMessage }
    if (!request.url?.startsWith('/api/events')) return
    const lastEventId = request.headers['last-event-id']
    streams.push({
      socket: request.socket,
      lastEventId: typeof lastEventId === 'string' ? lastEventId : undefined,
      authorized: request.headers.authorization !== undefined,
    })
  }

  /** The ids of the live feed's entries, newest first, as the page shows them. */
  const feedIds = async () =>
    (await page.locator('#live-feed li').evaluateAll((items) => items.map((item) => item.getAttribute('data-event-id')))).map(Number)
  /** The ids of the journal's console events after `after`, newest first. */
  const journalIds = (after: number) =>
    session.journal
      .consoleEventsAfter({ after, upTo: Number.MAX_SAFE_INTEGER, limit: 1000 })
      .map((row) => row.id)
      .reverse()

  beforeAll(async () => {
    subscribe('http.server.request.start', onRequest)
    const text = consoleBotConfigText({
      sandbox: sandbox(),
      db: directory.path('remote.sqlite'),
      keyEnv: 'REMOTE_DASHBOARD_KEY',
      tokenEnv: 'REMOTE_DASHBOARD_TOKEN',
      host: '0.0.0.0',
      ladder: false,
    })
    const env = { REMOTE_DASHBOARD_KEY: developmentAccounts[6]?.privateKey ?? '', REMOTE_DASHBOARD_TOKEN: token }
    session = await openBot({ document: parseConfigDocument(text, 'bot.yaml', { env }), live: false, logger, env })
    base = `http://127.0.0.1:${new URL(session.ops?.url ?? '').port}`
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    watchPage(page, requested, pageErrors)
  }, 60_000)
  afterAll(async () => {
    unsubscribe('http.server.request.start', onRequest)
    await browser?.close()
    if (session?.bot.stats().running) await session.bot.stop()
    await session?.close()
    directory.cleanup()
  })

  it('asks for the token, then follows the event stream with it', async () => {
    const refused = await fetch(`${base}/api/events`)
    expect(refused.status).toBe(401)
    const first = streams.length
    await page.goto(`${base}/console`)
    // The page and the stream are both refused at first; one dialog asks.
    await page.locator('dialog.token-dialog input[name="token"]').fill(token)
    expect(await page.locator('dialog').count()).toBe(1)
    await page.locator('dialog.token-dialog button[value="save"]').click()
    await page.locator('#live-state.live').waitFor({ timeout: 10_000 })
    await page.locator('tr[data-strategy="taker"]').waitFor({ timeout: 10_000 })
    expect(await page.locator('dialog').count()).toBe(0)
    expect(streams[first]?.authorized).toBe(false)
    expect(streams.at(-1)?.authorized).toBe(true)
    // The bot has not started: whatever the journal holds now came before the page's stream.
    baseline = session.journal.lastConsoleEventId()
  })

  it('shows a fill that the bot journals after the page was loaded, without a reload', async () => {
    const navigations: string[] = []
    page.on('framenavigated', (frame) => navigations.push(frame.url()))
    await session.bot.start()
    await expect.poll(() => session.journal.fillCount(), { timeout: 30_000 }).toBeGreaterThan(0)
    const [fill] = session.journal.fillPage({ limit: 1 })
    await page.locator(`tr[data-fill="${fill?.id}"]`).waitFor({ timeout: 8_000 })
    await page.locator('#live-feed li[data-kind="fill"]').waitFor({ timeout: 8_000 })
    expect(navigations).toEqual([])
  })

  it('resumes a stream the server cut with Last-Event-ID, losing and repeating nothing', async () => {
    // The taker's order is done once its fill is shown; wait until the feed has every event so far.
    await expect.poll(feedIds, { timeout: 8_000 }).toEqual(journalIds(baseline))
    const before = session.journal.lastConsoleEventId()
    const cut = streams.length
    // The reconnection is held until an action is journaled: only Last-Event-ID can bring that event to the page.
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let reconnected: ((headers: Record<string, string>) => void) | undefined
    const reconnecting = new Promise<Record<string, string>>((resolve) => {
      reconnected = resolve
    })
    let continued: Promise<void> | undefined
    const hold = (route: Route) => {
      reconnected?.(route.request().headers())
      continued ??= held.then(() => route.continue())
      return continued
    }
    await page.route('**/api/events', hold)
    streams.at(-1)?.socket.destroy()
    const headers = await reconnecting
    expect(headers.authorization).toBe(`Bearer ${token}`)
    expect(Number(headers['last-event-id'])).toBe(before)

    const paused = await fetch(`${base}/api/strategies/taker/pause`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'remote-test-pause-1' },
    })
    expect(paused.status).toBe(200)
    expect(session.journal.lastConsoleEventId()).toBeGreaterThan(before)
    release()
    await continued
    await page.unroute('**/api/events', hold)

    await page.locator('#live-state.live').waitFor({ timeout: 10_000 })
    await page.locator('#live-feed li[data-kind="action"]').waitFor({ timeout: 8_000 })
    await page.locator('tr[data-strategy="taker"][data-state="paused"]').waitFor({ timeout: 8_000 })
    expect(streams.length).toBeGreaterThan(cut)
    expect(streams.at(-1)?.lastEventId).toBe(String(before))
    // Every event since the page connected, once each, newest first (the feed shows 15: the test keeps fewer).
    await expect.poll(feedIds, { timeout: 8_000 }).toEqual(journalIds(baseline))
    const ids = await feedIds()
    expect(ids.length).toBeLessThanOrEqual(15)
    expect(ids.some((id) => id > before)).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('asked nothing of another origin, kept the token out of URLs and logs', () => {
    expect(requested.filter((url) => !url.startsWith(`${base}/`))).toEqual([])
    expect(requested.some((url) => url.includes(token))).toBe(false)
    // Chromium logs the reads and the stream refused before the token was typed, and the stream the server cut.
    const expected = (message: string) => message.includes('status of 401') || message.includes('ERR_INCOMPLETE_CHUNKED_ENCODING')
    expect(pageErrors.filter((message) => !expected(message))).toEqual([])
    expect(logLines.some((line) => line.includes(token))).toBe(false)
  })
})
