import { rmSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfigDocument } from '../../../src/config/load-config.js'
import { createLogger } from '../../../src/log/logger.js'
import { type BotSession, openBot } from '../../../src/runtime/open-bot.js'
import { developmentAccounts } from '../../../src/sandbox/chains/accounts.js'
import { sandboxToken, useSandbox } from '../../helpers/sandbox.js'
import { createTempDirectory } from '../../helpers/temp-directory.js'
import { type ReceivedRequest, type Receiver, startReceiver } from './receivers.js'

const directory = createTempDirectory('deltaflow-bot-notify-')
afterAll(() => directory.cleanup())

const telegramToken = '6543210987:AAF-b0t-t0ken-never-logged'
const hookPath = '/services/T1/B2/h00k-s3cret'

/** The kind of a Slack or Telegram message, from its title. */
function kindOf(request: ReceivedRequest): string {
  const body = request.body as { text?: string }
  const title = (body.text ?? '').replace(/^<b>/, '').split('\n')[0] ?? ''
  if (title.startsWith('bot started')) return 'bot-start'
  if (title.startsWith('bot stopped')) return 'bot-stop'
  if (title.startsWith('kill switch tripped')) return 'kill-switch-tripped'
  if (title.startsWith('kill switch released')) return 'kill-switch-released'
  if (/^take-profit: filled /.test(title)) return 'fill'
  return `other: ${title}`
}

/** How many messages of each kind reached a target. */
function countsOf(requests: readonly ReceivedRequest[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const request of requests) counts[kindOf(request)] = (counts[kindOf(request)] ?? 0) + 1
  return counts
}

async function until(what: string, accept: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!accept()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('notifications of a paper bot', () => {
  const sandbox = useSandbox({ chainIds: [1] })
  let receiver: Receiver
  const logs: string[] = []
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => logs.push(line) } })
  const killSwitchFile = directory.path('stop-trading')
  const env = {
    NOTIFY_TEST_KEY: developmentAccounts[6]?.privateKey ?? '',
    NOTIFY_TEST_HOOK: '',
    NOTIFY_TEST_TOKEN: telegramToken,
  }

  beforeAll(async () => {
    receiver = await startReceiver()
    env.NOTIFY_TEST_HOOK = `${receiver.url}${hookPath}`
  })
  afterAll(async () => {
    await receiver?.close()
  })

  async function openTestBot(): Promise<BotSession> {
    const running = sandbox()
    const text = [
      'mode: paper',
      `venue: { url: "${running.url}" }`,
      `chains: { "1": { rpcUrls: ["${running.chains[0]?.rpcUrl}"] } }`,
      'wallet: { privateKeyEnv: NOTIFY_TEST_KEY }',
      `db: "${directory.path('bot.sqlite')}"`,
      'feed: { intervalMs: 200 }',
      'reconcile: { intervalMs: 300 }',
      `risk: { killSwitch: { file: "${killSwitchFile}" } }`,
      'notifications:',
      '  intervalMs: 100',
      '  backoff: { initialMs: 100, maxMs: 1000 }',
      '  targets:',
      '    - { type: webhook, name: hooks, urlEnv: NOTIFY_TEST_HOOK, format: slack, perMinute: 600 }',
      `    - { type: telegram, name: phone, tokenEnv: NOTIFY_TEST_TOKEN, chatId: 42, baseUrl: "${receiver.url}", perMinute: 600 }`,
      'strategies:',
      '  - name: take-profit',
      '    use: example',
      `    config: { chainId: 1, srcToken: "${sandboxToken(running, 1, 'USDC').address}", destToken: "${sandboxToken(running, 1, 'WETH').address}", amount: "1000000000", minDestAmount: "1" }`,
    ].join('\n')
    return openBot({ document: parseConfigDocument(text, 'bot.yaml', { env }), live: false, logger, env })
  }

  const hook = () => receiver.accepted.filter((request) => request.path === hookPath)
  const telegram = () => receiver.accepted.filter((request) => request.path === `/bot${telegramToken}/sendMessage`)

  it('tells start, fills, the kill switch and stop to each target once, and repeats none of it after a restart', async () => {
    const first = await openTestBot()
    let fills = 0
    try {
      await first.bot.start()
      await until(
        'fill message at both targets',
        () => hook().some((request) => kindOf(request) === 'fill') && telegram().some((request) => kindOf(request) === 'fill'),
      )
      writeFileSync(killSwitchFile, '')
      await until('kill switch message at both targets', () =>
        [hook(), telegram()].every((requests) => requests.some((request) => kindOf(request) === 'kill-switch-tripped')),
      )
      await first.bot.stop()
      fills = first.journal.fillCount()
    } finally {
      await first.close()
    }
    expect(fills).toBeGreaterThan(0)
    const firstRun = { 'bot-start': 1, fill: fills, 'kill-switch-tripped': 1, 'bot-stop': 1 }
    expect(countsOf(hook())).toEqual(firstRun)
    expect(countsOf(telegram())).toEqual(firstRun)
    expect(hook()[0]?.body).toMatchObject({
      text: 'bot started (paper)\nstrategies: take-profit',
      blocks: [{ type: 'header' }, { type: 'section' }],
    })
    expect(telegram()[0]?.body).toMatchObject({
      chat_id: 42,
      parse_mode: 'HTML',
      text: '<b>bot started (paper)</b>\nstrategies: take-profit',
    })
    // Amounts in token units with the chain's symbols, and the order.
    const fill = hook().find((request) => kindOf(request) === 'fill')?.body as { text: string }
    expect(fill.text).toMatch(
      /^take-profit: filled 1000 USDC → \d+(\.\d+)? WETH\norder \S+ \(delta, chain 1\)\ntransaction 0x[0-9a-f]{64}$/,
    )

    // The same journal: the fill and the trip (the file is still there) are not told again; the release is.
    const second = await openTestBot()
    try {
      await second.bot.start()
      await until('second start message', () => countsOf(telegram())['bot-start'] === 2 && countsOf(hook())['bot-start'] === 2)
      rmSync(killSwitchFile)
      await until('kill switch release at both targets', () =>
        [hook(), telegram()].every((requests) => requests.some((request) => kindOf(request) === 'kill-switch-released')),
      )
      await second.bot.stop()
    } finally {
      await second.close()
    }
    const bothRuns = { 'bot-start': 2, fill: fills, 'kill-switch-tripped': 1, 'kill-switch-released': 1, 'bot-stop': 2 }
    expect(countsOf(hook())).toEqual(bothRuns)
    expect(countsOf(telegram())).toEqual(bothRuns)
    expect(receiver.requests).toHaveLength(receiver.accepted.length)

    const logText = logs.join('')
    expect(logText).toContain('notifications on')
    for (const secret of [telegramToken, hookPath, 'h00k-s3cret']) expect(logText).not.toContain(secret)
    const messages = JSON.stringify(receiver.requests.map((request) => request.body))
    for (const secret of [telegramToken, hookPath, developmentAccounts[6]?.privateKey.slice(2) ?? ''])
      expect(messages).not.toContain(secret)
  }, 60_000)
})
