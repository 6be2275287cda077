// The console bench's load, in a process of its own so that its CPU is not the bot's: event-stream clients on
// GET /api/events and reads of the JSON API at a fixed rate. Driven by one JSON command per line on stdin (start,
// stop); answers one JSON line per command on stdout (ready, then the round's figures).

import { get as httpGet, type IncomingMessage } from 'node:http'
import { createInterface } from 'node:readline'
import { z } from 'zod'

/** The argument that makes this module serve commands (the bench starts it with it). */
export const serveFlag = '--serve-console-load'

export const loadCommandSchema = z.discriminatedUnion('command', [
  z.object({
    command: z.literal('start'),
    url: z.string(),
    clients: z.number().int().min(0),
    paths: z.array(z.string()),
    readsPerSecond: z.number().positive(),
    /** The strategy name of the events the bench journals with their send time. */
    probeStrategy: z.string(),
  }),
  /** Starts the measured window: what was read and delivered before it (the warm-up) is forgotten. */
  z.object({ command: z.literal('measure') }),
  /** Ends the round once every client has received event `lastId` (or after `waitMs`). */
  z.object({ command: z.literal('stop'), lastId: z.number().int(), waitMs: z.number().int() }),
])

export type LoadCommand = z.infer<typeof loadCommandSchema>

export const loadAnswerSchema = z.discriminatedUnion('answer', [
  z.object({ answer: z.literal('ready') }),
  z.object({
    answer: z.literal('round'),
    /** ms from sending each read to the end of its answer, by path. */
    reads: z.record(z.string(), z.array(z.number())),
    readErrors: z.number().int(),
    clients: z.array(
      z.object({
        events: z.number().int(),
        duplicates: z.number().int(),
        /** Ids missing between the first and the last one received. */
        gaps: z.number().int(),
        lastId: z.number().int(),
        dropped: z.boolean(),
      }),
    ),
    /** ms from journaling a probe event to its arrival, every client's. */
    deliveries: z.array(z.number()),
    cpuSeconds: z.number(),
    elapsedSeconds: z.number(),
  }),
])

export type LoadAnswer = z.infer<typeof loadAnswerSchema>

/** Unix ms with a fraction, comparable across processes of one machine. */
export const wallNow = () => performance.timeOrigin + performance.now()

const frameSchema = z.object({ kind: z.string(), strategy: z.string().nullish(), event: z.record(z.string(), z.unknown()).nullish() })

type StreamClient = {
  response: IncomingMessage | undefined
  seen: Set<number>
  duplicates: number
  lastId: number
  dropped: boolean
}

type Round = {
  clients: StreamClient[]
  timers: ReturnType<typeof setInterval>[]
  reads: Record<string, number[]>
  readErrors: number
  deliveries: number[]
  cpu: NodeJS.CpuUsage
  started: number
}

let round: Round | undefined

function answer(value: LoadAnswer): void {
  process.stdout.write(`${JSON.stringify(value)}\n`)
}

/** One SSE client: counts ids, repeats and probe latencies; resolves once the stream's headers arrived. */
function connect(url: string, probeStrategy: string, deliveries: number[]): Promise<StreamClient> {
  const client: StreamClient = { response: undefined, seen: new Set(), duplicates: 0, lastId: 0, dropped: false }
  return new Promise((resolve, reject) => {
    httpGet(`${url}/api/events`, { headers: { accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`GET /api/events answered ${response.statusCode}`))
        response.resume()
        return
      }
      client.response = response
      response.setEncoding('utf8')
      let buffered = ''
      response.on('data', (chunk: string) => {
        const arrived = wallNow()
        buffered += chunk
        let end = buffered.indexOf('\n\n')
        while (end >= 0) {
          readFrame(client, buffered.slice(0, end), arrived, probeStrategy, deliveries)
          buffered = buffered.slice(end + 2)
          end = buffered.indexOf('\n\n')
        }
      })
      response.on('error', () => undefined)
      resolve(client)
    }).on('error', reject)
  })
}

function readFrame(client: StreamClient, frame: string, arrived: number, probeStrategy: string, deliveries: number[]): void {
  let id: number | undefined
  let data: string | undefined
  let event: string | undefined
  for (const line of frame.split('\n')) {
    if (line.startsWith('id: ')) id = Number(line.slice(4))
    else if (line.startsWith('data: ')) data = line.slice(6)
    else if (line.startsWith('event: ')) event = line.slice(7)
  }
  if (event === 'dropped') client.dropped = true
  if (id === undefined || data === undefined) return
  if (client.seen.has(id)) client.duplicates += 1
  client.seen.add(id)
  client.lastId = Math.max(client.lastId, id)
  const parsed = frameSchema.parse(JSON.parse(data))
  const sentAt = parsed.event?.sentAt
  if (parsed.kind === 'strategy' && parsed.strategy === probeStrategy && typeof sentAt === 'number') deliveries.push(arrived - sentAt)
}

async function start(command: Extract<LoadCommand, { command: 'start' }>): Promise<void> {
  const deliveries: number[] = []
  const clients = await Promise.all(Array.from({ length: command.clients }, () => connect(command.url, command.probeStrategy, deliveries)))
  const reads: Record<string, number[]> = Object.fromEntries(command.paths.map((path) => [path, []]))
  const current: Round = { clients, timers: [], reads, readErrors: 0, deliveries, cpu: process.cpuUsage(), started: performance.now() }
  // An open loop: each read is sent on time whether the previous one has answered or not.
  for (const path of command.paths) {
    current.timers.push(
      setInterval(() => {
        const sent = performance.now()
        fetch(`${command.url}${path}`)
          .then(async (response) => {
            await response.arrayBuffer()
            if (response.status !== 200) current.readErrors += 1
            else current.reads[path]?.push(performance.now() - sent)
          })
          .catch(() => {
            current.readErrors += 1
          })
      }, 1_000 / command.readsPerSecond),
    )
  }
  round = current
  answer({ answer: 'ready' })
}

function measure(): void {
  const current = round
  if (!current) throw new Error('measure before start')
  for (const path of Object.keys(current.reads)) current.reads[path] = []
  current.readErrors = 0
  current.deliveries.length = 0
  current.cpu = process.cpuUsage()
  current.started = performance.now()
  answer({ answer: 'ready' })
}

async function stop(command: Extract<LoadCommand, { command: 'stop' }>): Promise<void> {
  const current = round
  if (!current) throw new Error('stop before start')
  round = undefined
  for (const timer of current.timers) clearInterval(timer)
  const deadline = performance.now() + command.waitMs
  while (performance.now() < deadline && current.clients.some((client) => client.lastId < command.lastId && !client.dropped)) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const cpu = process.cpuUsage(current.cpu)
  const elapsedSeconds = (performance.now() - current.started) / 1_000
  for (const client of current.clients) client.response?.destroy()
  answer({
    answer: 'round',
    reads: current.reads,
    readErrors: current.readErrors,
    clients: current.clients.map((client) => {
      const ids = [...client.seen]
      const first = Math.min(...ids)
      return {
        events: ids.length,
        duplicates: client.duplicates,
        gaps: ids.length === 0 ? 0 : client.lastId - first + 1 - ids.length,
        lastId: client.lastId,
        dropped: client.dropped,
      }
    }),
    deliveries: current.deliveries,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    elapsedSeconds,
  })
}

// Imported by the bench for its schemas; serves only when started as its load process.
if (process.argv.includes(serveFlag)) {
  let work = Promise.resolve()
  createInterface({ input: process.stdin }).on('line', (line) => {
    const command = loadCommandSchema.parse(JSON.parse(line))
    work = work.then(() => {
      if (command.command === 'start') return start(command)
      if (command.command === 'measure') return measure()
      return stop(command)
    })
    work.catch((error: unknown) => {
      console.error(error)
      process.exit(1)
    })
  })
}
