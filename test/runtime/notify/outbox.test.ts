import { EventEmitter } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { parseConfigDocument } from '../../../src/config/load-config.js'
import { notificationsConfigSchema } from '../../../src/config/notifications-schema.js'
import { deltaflowConfigSchema } from '../../../src/config/schema.js'
import { createKillSwitch } from '../../../src/exec/risk/kill-switch.js'
import { type Journal, openJournal } from '../../../src/journal/journal.js'
import { createLogger } from '../../../src/log/logger.js'
import { createBotMetrics } from '../../../src/runtime/bot-metrics.js'
import type { BotStateNow } from '../../../src/runtime/notify/collect-events.js'
import { createNotifier, type Notifier } from '../../../src/runtime/notify/notifier.js'
import { openNotifications } from '../../../src/runtime/notify/open-notifications.js'
import { resolveNotificationTargets } from '../../../src/runtime/notify/resolve-targets.js'
import { openBot } from '../../../src/runtime/open-bot.js'
import { createTokenAmountFormatter, createTokenLabels } from '../../../src/runtime/token-labels.js'
import { ManualClock } from '../../../src/time/clock.js'
import { createTempDirectory } from '../../helpers/temp-directory.js'
import { type Receiver, startReceiver } from './receivers.js'

const directory = createTempDirectory('deltaflow-notify-')
afterAll(() => directory.cleanup())

const telegramToken = '7012345678:AAH-sEcReT-t0ken-of-the-test-bot'
const slackSecretPath = '/services/T000/B000/sl4ck-s3cret'
const jsonSecretPath = '/hooks/js0n-s3cret'
const usdc = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'
const weth = '0xc02aaa39a223f8d8f8f5a62e4a42ad4a0a2f3e6a'
/** 23:00 UTC: an hour before the bot's clock crosses into the next day. */
const startMs = Date.parse('2026-03-01T23:00:00.000Z')

type Harness = {
  journal: Journal
  clock: ManualClock
  notifier: Notifier
  logs: string[]
  state: Omit<BotStateNow, 'now'>
  file: string
}

let receiver: Receiver
beforeAll(async () => {
  receiver = await startReceiver()
})
afterAll(async () => {
  await receiver.close()
})
afterEach(() => {
  receiver.requests.length = 0
  receiver.accepted.length = 0
  receiver.answerWith(() => ({ status: 200, body: { ok: true } }))
})

let journals = 0
const open: Journal[] = []
afterAll(() => {
  for (const journal of open) journal.close()
})

/** A notifier over a real journal file, ticked by hand on a manual clock (also the rate limits' time). */
function createHarness({
  targets,
  file = directory.path(`outbox-${++journals}.sqlite`),
  clock = new ManualClock(startMs),
}: {
  targets: unknown[]
  file?: string
  clock?: ManualClock
}): Harness {
  const journal = openJournal({ file, clock })
  open.push(journal)
  const logs: string[] = []
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => logs.push(line) } })
  const config = notificationsConfigSchema.parse({ targets, backoff: { initialMs: 1_000, maxMs: 60_000 } })
  const env = { SLACK_TEST_URL: `${receiver.url}${slackSecretPath}`, TELEGRAM_TEST_TOKEN: telegramToken }
  const state: Omit<BotStateNow, 'now'> = { strategies: { dca: { paused: false, lastError: undefined } }, killSwitch: undefined }
  const notifier = createNotifier({
    journal,
    targets: resolveNotificationTargets({ config, env, locate: () => 'bot.yaml' }),
    clock,
    backoff: config.backoff,
    formatAmount: createTokenAmountFormatter(createTokenLabels(new Map())),
    botState: () => state,
    logger,
    realNow: () => clock.now(),
  })
  return { journal, clock, notifier, logs, state, file }
}

const jsonTarget = (overrides: Record<string, unknown> = {}) => ({
  type: 'webhook',
  name: 'ops-json',
  url: `${receiver.url}${jsonSecretPath}`,
  perMinute: 600,
  ...overrides,
})
const telegramTarget = (overrides: Record<string, unknown> = {}) => ({
  type: 'telegram',
  name: 'phone',
  tokenEnv: 'TELEGRAM_TEST_TOKEN',
  chatId: -100123,
  baseUrl: receiver.url,
  perMinute: 600,
  ...overrides,
})

let orders = 0
/** An intent, its signed order and one fill of it, through the journal's own API; returns the fill's order id. */
function recordFill(journal: Journal, strategy = 'dca', spent = 1_500_000n, received = 600_000_000_000_000n): string {
  const id = `intent-${++orders}`
  journal.recordIntent({ id, strategy, kind: 'swap', intent: {} })
  const order = journal.recordSignedOrder({
    id: `${id}/0`,
    intentId: id,
    mode: 'delta',
    account: '0x00000000000000000000000000000000000000aa',
    chainId: 1,
    srcToken: usdc,
    destToken: weth,
    srcAmount: spent,
    destAmount: received,
    side: 'SELL',
    signedPayload: {},
  })
  journal.recordFill({
    orderId: order.id,
    chainId: 1,
    txHash: `0x${orders.toString(16).padStart(64, '0')}`,
    spentAmount: spent,
    receivedAmount: received,
    source: 'venue',
  })
  return order.id
}

/** The events of the JSON-format requests, in order. */
const jsonEvents = (requests: readonly { body: unknown }[]) => requests.map((request) => (request.body as { event: string }).event)

describe('the notification outbox', () => {
  it('sends each event once to each target that wants it, shaped as json, Slack, Discord or a Telegram sendMessage', async () => {
    const { journal, notifier, state, clock } = createHarness({
      targets: [
        jsonTarget({
          events: [
            'fill',
            'intent-refused',
            'intent-failed',
            'strategy-paused',
            'kill-switch',
            'reconcile-mismatch',
            'bot-start',
            'bot-stop',
          ],
        }),
        { type: 'webhook', name: 'slack', urlEnv: 'SLACK_TEST_URL', format: 'slack', events: ['fill'] },
        {
          type: 'webhook',
          name: 'discord',
          url: `${receiver.url}/discord/api/webhooks/1/d1sc0rd`,
          format: 'discord',
          events: ['kill-switch'],
        },
        telegramTarget({ events: ['fill', 'intent-failed'] }),
      ],
    })
    notifier.start({ mode: 'paper', strategies: ['dca'] })
    const orderId = recordFill(journal)
    journal.recordIntent({
      id: 'refused-1',
      strategy: 'dca',
      kind: 'swap',
      intent: {},
      refused: { limit: 'dailyBudget', reason: 'over the daily budget' },
    })
    clock.advance(10)
    journal.recordIntent({ id: 'failed-1', strategy: 'dca', kind: 'swap', intent: {} })
    journal.failIntent('failed-1', 'the venue answered 500 at https://venue.example/v2/k3y', 'venue')
    state.strategies = { dca: { paused: true, lastError: 'onQuote threw' } }
    state.killSwitch = 'kill-switch file /tmp/stop exists'
    notifier.reconcileMismatches([{ orderId, txHash: '0xabc', leg: 'received', venue: 10n, chain: 9n }])
    notifier.reconcileMismatches([{ orderId, txHash: '0xabc', leg: 'received', venue: 10n, chain: 9n }])
    clock.advance(1_000)
    await notifier.tick()
    await notifier.stop({ pendingOrders: 0 })
    await notifier.tick()

    const byPath = (prefix: string) => receiver.accepted.filter((request) => request.path.startsWith(prefix))
    const json = byPath(jsonSecretPath)
    expect(jsonEvents(json)).toEqual([
      'bot-start',
      'reconcile-mismatch',
      'fill',
      'intent-refused',
      'intent-failed',
      'strategy-paused',
      'kill-switch',
      'bot-stop',
    ])
    expect(json[2]?.body).toEqual({
      event: 'fill',
      severity: 'info',
      title: `dca: filled 1500000 (raw units of 0xa0b8…eb48) → 600000000000000 (raw units of 0xc02a…3e6a)`,
      lines: [`order ${orderId} (delta, chain 1)`, `transaction 0x${'1'.padStart(64, '0')}`],
      text: expect.stringContaining(`order ${orderId}`),
    })
    expect(json[4]?.body).toMatchObject({
      title: 'dca: swap intent failed (venue)',
      lines: ['intent failed-1', 'reason: the venue answered 500 at https://venue.example'],
    })
    expect(json.every((request) => request.method === 'POST' && request.contentType === 'application/json')).toBe(true)

    const [slack, ...moreSlack] = byPath(slackSecretPath)
    expect(moreSlack).toEqual([])
    expect(slack?.body).toEqual({
      text: expect.stringMatching(/^dca: filled .*\norder /),
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: expect.stringMatching(/^dca: filled/) } },
        { type: 'section', text: { type: 'mrkdwn', text: expect.stringContaining(orderId) } },
      ],
    })
    const [discord, ...moreDiscord] = byPath('/discord/')
    expect(moreDiscord).toEqual([])
    expect(discord?.body).toEqual({
      content: 'kill switch tripped: no new orders',
      embeds: [{ title: 'kill-switch', description: 'reason: kill-switch file /tmp/stop exists', color: expect.any(Number) }],
    })
    const telegram = byPath('/bot')
    expect(telegram.map((request) => request.path)).toEqual([`/bot${telegramToken}/sendMessage`, `/bot${telegramToken}/sendMessage`])
    expect(telegram.map((request) => request.body)).toEqual([
      {
        chat_id: -100123,
        text: expect.stringMatching(/^<b>dca: filled .* → .*<\/b>\norder /),
        parse_mode: 'HTML',
        disable_web_page_preview: true,
      },
      {
        chat_id: -100123,
        text: expect.stringMatching(/^<b>dca: swap intent failed \(venue\)<\/b>/),
        parse_mode: 'HTML',
        disable_web_page_preview: true,
      },
    ])
    expect(receiver.requests).toHaveLength(receiver.accepted.length)
    expect(journal.listNotifications().every((row) => row.status === 'delivered' && row.attempts === 1)).toBe(true)
  })

  it('delays what a receiver answers 500 to for a minute of the clock, then delivers all of it once and in order', async () => {
    const { journal, notifier, clock } = createHarness({ targets: [jsonTarget({ events: ['fill'] })] })
    notifier.start({ mode: 'paper', strategies: ['dca'] })
    receiver.answerWith(() => ({ status: 500, body: { error: 'receiver down' } }))
    const fills = [recordFill(journal), recordFill(journal), recordFill(journal)]
    const failingUntil = clock.now() + 60_000
    while (clock.now() < failingUntil) {
      await notifier.tick()
      clock.advance(500)
    }
    // Backoff from 1 s doubling: attempts at 0, 1, 3, 7, 15, 31 s; the other fills wait behind the first.
    expect(receiver.accepted).toEqual([])
    expect(receiver.requests).toHaveLength(6)
    expect(new Set(receiver.requests.map((request) => JSON.stringify(request.body))).size).toBe(1)
    const [first] = journal.listNotifications()
    expect(first).toMatchObject({ status: 'pending', attempts: 6, lastError: 'HTTP 500: {"error":"receiver down"}' })

    receiver.answerWith(() => ({ status: 200 }))
    const until = clock.now() + 40_000
    while (clock.now() < until) {
      await notifier.tick()
      clock.advance(1_000)
    }
    expect(receiver.accepted.map((request) => (request.body as { lines: string[] }).lines[0])).toEqual(
      fills.map((orderId) => `order ${orderId} (delta, chain 1)`),
    )
    expect(journal.listNotifications().map((row) => row.status)).toEqual(['delivered', 'delivered', 'delivered'])
  })

  it('waits for the Retry-After of a 429, and for the retry_after of a Telegram 429', async () => {
    const { journal, notifier, clock } = createHarness({
      targets: [jsonTarget({ events: ['fill'] }), telegramTarget({ events: ['fill'] })],
    })
    notifier.start({ mode: 'paper', strategies: ['dca'] })
    let limited = true
    receiver.answerWith((request) =>
      !limited
        ? { status: 200 }
        : request.path.startsWith('/bot')
          ? {
              status: 429,
              body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 12', parameters: { retry_after: 12 } },
            }
          : { status: 429, headers: { 'retry-after': '30' }, body: {} },
    )
    recordFill(journal)
    await notifier.tick()
    expect(receiver.requests).toHaveLength(2)
    limited = false
    clock.advance(11_900)
    await notifier.tick()
    expect(receiver.requests).toHaveLength(2)
    clock.advance(100)
    await notifier.tick()
    expect(receiver.accepted.map((request) => request.path)).toEqual([`/bot${telegramToken}/sendMessage`])
    clock.advance(17_900)
    await notifier.tick()
    expect(receiver.accepted).toHaveLength(1)
    clock.advance(100)
    await notifier.tick()
    expect(receiver.accepted.map((request) => request.path)).toEqual([`/bot${telegramToken}/sendMessage`, jsonSecretPath])
  })

  it("sends no more than a target's perMinute, the rest waiting in the outbox", async () => {
    const { journal, notifier, clock } = createHarness({ targets: [jsonTarget({ events: ['fill'], perMinute: 6 })] })
    notifier.start({ mode: 'paper', strategies: ['dca'] })
    for (let index = 0; index < 4; index++) recordFill(journal)
    // 6 a minute, in bursts of 1: one every 10 s of the clock (the rate limits' time in this test).
    const steps: [advanceMs: number, delivered: number][] = [
      [0, 1],
      [9_000, 1],
      [1_000, 2],
      [20_000, 3],
      [10_000, 4],
    ]
    const seen: number[] = []
    for (const [advanceMs] of steps) {
      clock.advance(advanceMs)
      await notifier.tick()
      await notifier.tick()
      seen.push(receiver.accepted.length)
    }
    expect(seen).toEqual(steps.map(([, delivered]) => delivered))
  })

  it('counts a receiver that never answers as a failed attempt after its timeout, and tries it again', async () => {
    const { journal, notifier, clock } = createHarness({ targets: [jsonTarget({ events: ['fill'], timeoutMs: 200 })] })
    notifier.start({ mode: 'paper', strategies: ['dca'] })
    receiver.answerWith(() => 'hold')
    recordFill(journal)
    await notifier.tick()
    expect(journal.listNotifications()).toMatchObject([{ status: 'pending', attempts: 1, lastError: 'no answer before the timeout' }])
    receiver.answerWith(() => ({ status: 200 }))
    clock.advance(1_000)
    await notifier.tick()
    expect(receiver.accepted).toHaveLength(1)
    expect(journal.listNotifications()).toMatchObject([{ status: 'delivered', attempts: 2 }])
  })

  it('sends each notification once across a restart: what was delivered is not sent again, what was not is sent after it', async () => {
    const first = createHarness({ targets: [jsonTarget(), telegramTarget({ events: ['fill'] })] })
    first.notifier.start({ mode: 'paper', strategies: ['dca'] })
    recordFill(first.journal)
    await first.notifier.tick()
    expect(jsonEvents(receiver.accepted.filter((request) => request.path === jsonSecretPath))).toEqual(['bot-start', 'fill'])
    receiver.answerWith(() => ({ status: 503 }))
    recordFill(first.journal)
    await first.notifier.stop({ pendingOrders: 0 })
    first.journal.close()

    receiver.answerWith(() => ({ status: 200 }))
    const clock = new ManualClock(first.clock.now() + 5_000)
    const second = createHarness({ targets: [jsonTarget(), telegramTarget({ events: ['fill'] })], file: first.file, clock })
    second.notifier.start({ mode: 'paper', strategies: ['dca'] })
    await second.notifier.tick()
    await second.notifier.stop({ pendingOrders: 0 })
    await second.notifier.tick()

    const json = receiver.accepted.filter((request) => request.path === jsonSecretPath)
    expect(jsonEvents(json)).toEqual(['bot-start', 'fill', 'fill', 'bot-stop', 'bot-start', 'bot-stop'])
    const fillTitles = json
      .filter((request) => (request.body as { event: string }).event === 'fill')
      .map((request) => JSON.stringify(request.body))
    expect(new Set(fillTitles).size).toBe(2)
    expect(receiver.accepted.filter((request) => request.path.startsWith('/bot'))).toHaveLength(2)
    const keys = second.journal.listNotifications().map((row) => `${row.target} ${row.key}`)
    expect(new Set(keys).size).toBe(keys.length)
    expect(second.journal.listNotifications().every((row) => row.status === 'delivered')).toBe(true)
  })

  it("summarizes each UTC day of the bot's clock once, per strategy, when the clock passes midnight", async () => {
    const { journal, notifier, clock } = createHarness({ targets: [jsonTarget({ events: ['daily-summary'] })] })
    notifier.start({ mode: 'paper', strategies: ['dca', 'ladder'] })
    recordFill(journal, 'dca', 1_000_000n, 400_000_000_000_000n)
    recordFill(journal, 'dca', 2_000_000n, 800_000_000_000_000n)
    recordFill(journal, 'ladder', 5n, 7n)
    journal.recordIntent({
      id: 'refused-day',
      strategy: 'ladder',
      kind: 'limit',
      intent: {},
      refused: { limit: 'maxOpenOrders', reason: 'too many' },
    })
    await notifier.tick()
    expect(receiver.accepted).toEqual([])
    clock.set(Date.parse('2026-03-02T00:00:01.000Z'))
    recordFill(journal, 'dca', 9n, 9n)
    await notifier.tick()
    await notifier.tick()
    expect(receiver.accepted.map((request) => request.body)).toEqual([
      expect.objectContaining({
        event: 'daily-summary',
        title: 'daily summary 2026-03-01 (UTC): 3 fill(s)',
        lines: [
          'dca: 2 fill(s); intents 2 accepted',
          '  spent 3000000 (raw units of 0xa0b8…eb48); received 1200000000000000 (raw units of 0xc02a…3e6a)',
          'ladder: 1 fill(s); intents 1 accepted, 1 refused',
          '  spent 5 (raw units of 0xa0b8…eb48); received 7 (raw units of 0xc02a…3e6a)',
        ],
      }),
    ])
  })

  it('keeps the bot token and the webhook URLs out of logs, the journal and the messages, and drops what a receiver refuses for good', async () => {
    const closed = await startReceiver()
    await closed.close()
    const { journal, notifier, logs, file, clock } = createHarness({
      targets: [
        jsonTarget({ events: ['fill'] }),
        telegramTarget({ events: ['fill'] }),
        { type: 'webhook', name: 'slack', urlEnv: 'SLACK_TEST_URL', format: 'slack', events: ['fill'] },
        // A port nothing listens on any more: a network error naming the address.
        { type: 'webhook', name: 'gone', url: `${closed.url}${jsonSecretPath}/gone`, events: ['fill'] },
      ],
    })
    notifier.start({ mode: 'paper', strategies: ['dca'] })
    // Receivers that echo the path they were called on (the token, the URL's secret) in their error answers.
    receiver.answerWith((request) =>
      request.path.startsWith('/bot')
        ? { status: 502, body: { ok: false, description: `upstream failed for ${receiver.url}${request.path}` } }
        : request.path.startsWith(slackSecretPath)
          ? { status: 404, body: { error: `no hook at ${request.path}` } }
          : { status: 500, body: { error: `failed ${receiver.url}${request.path}` } },
    )
    recordFill(journal)
    await notifier.tick()
    clock.advance(1_000)
    await notifier.tick()
    const rows = journal.listNotifications()
    expect(rows.find((row) => row.target === 'slack')).toMatchObject({ status: 'rejected', attempts: 1 })
    expect(rows.filter((row) => row.target !== 'slack').every((row) => row.status === 'pending' && row.attempts === 2)).toBe(true)
    expect(rows.map((row) => row.lastError)).toEqual([
      'HTTP 500: {"error":"failed [redacted]"}',
      `HTTP 502: upstream failed for ${receiver.url}`,
      'HTTP 404: {"error":"no hook at [redacted]"}',
      `fetch failed: connect ECONNREFUSED ${closed.url.replace('http://', '')}`,
    ])
    const stored = [file, `${file}-wal`]
      .filter((path) => existsSync(path))
      .map((path) => readFileSync(path).toString('latin1'))
      .join('')
    const logText = logs.join('')
    expect(logText).toContain('notification not delivered')
    expect(logText).toContain('notification refused by its receiver')
    const messages = JSON.stringify(receiver.requests.map((request) => request.body))
    for (const secret of [telegramToken, 'AAH-sEcReT', slackSecretPath, 'sl4ck-s3cret', jsonSecretPath, 'js0n-s3cret']) {
      expect(logText).not.toContain(secret)
      expect(stored).not.toContain(secret)
      expect(messages).not.toContain(secret)
    }
  })
})

describe('openNotifications (the runtime wiring)', () => {
  it("queues the mismatches of the bot's reconciliation reports, once each, through the bot's own metrics", () => {
    const clock = new ManualClock(startMs)
    const journal = openJournal({ file: directory.path('wiring.sqlite'), clock })
    open.push(journal)
    const config = deltaflowConfigSchema.parse({
      notifications: { targets: [jsonTarget({ events: ['reconcile-mismatch'] })] },
    })
    const killSwitch = createKillSwitch({ signalSource: new EventEmitter() })
    const notifications = openNotifications({
      targets: resolveNotificationTargets({ config: config.notifications, env: {}, locate: () => 'bot.yaml' }),
      config,
      session: { journal, clock, killSwitch },
      labels: createTokenLabels(new Map()),
      strategies: () => ({}),
      logger: createLogger({ level: 'silent' }),
    })
    const metrics = createBotMetrics({ journal, strategies: () => ({}) })
    const observed = notifications.observe(metrics)
    const mismatch = { orderId: 'o-1', txHash: '0xfeed', leg: 'spent' as const, venue: 5n, chain: 4n }
    observed.reconcileReport({ readErrors: [], skipped: { chains: [], orders: 0, transactions: 0 }, mismatches: [mismatch] })
    observed.reconcileReport({ readErrors: [], skipped: { chains: [], orders: 0, transactions: 0 }, mismatches: [mismatch] })
    expect(journal.listNotifications().map((row) => row.key)).toEqual(['reconcile-mismatch:o-1:0xfeed:spent'])
    expect(journal.listNotifications()[0]?.message).toMatchObject({
      event: 'reconcile-mismatch',
      title: expect.stringContaining('order o-1'),
    })
  })
})

describe('notification targets at start', () => {
  it('refuses to start a bot whose target names a variable that is not set, naming it and its YAML line', async () => {
    const text = [
      'mode: paper',
      `db: "${directory.path('missing-env.sqlite')}"`,
      'notifications:',
      '  targets:',
      '    - { type: webhook, name: ops, url: "https://hooks.example/abc" }',
      '    - type: telegram',
      '      name: phone',
      '      tokenEnv: DELTAFLOW_TEST_MISSING_TOKEN',
      '      chatId: 42',
    ].join('\n')
    const env = {}
    const opening = openBot({
      document: parseConfigDocument(text, 'bot.yaml', { env }),
      live: false,
      logger: createLogger({ level: 'silent' }),
      env,
    })
    await expect(opening).rejects.toThrow(
      /^bot\.yaml:8:\d+ \(notifications\.targets\.1\.tokenEnv\): notification target "phone": environment variable DELTAFLOW_TEST_MISSING_TOKEN is not set/,
    )
    await expect(opening).rejects.toMatchObject({ name: 'NotificationTargetError' })
  })

  it('refuses a webhook with both or neither of url and urlEnv, and an event name it does not know', () => {
    const parse = (target: unknown) => notificationsConfigSchema.safeParse({ targets: [target] })
    expect(parse({ type: 'webhook', name: 'a' }).error?.issues[0]?.message).toBe('expected exactly one of url and urlEnv')
    expect(parse({ type: 'webhook', name: 'a', url: 'https://x.example', urlEnv: 'X' }).error?.issues[0]?.message).toBe(
      'expected exactly one of url and urlEnv',
    )
    expect(parse({ type: 'webhook', name: 'a', url: 'https://x.example', events: ['fills'] }).success).toBe(false)
  })
})
