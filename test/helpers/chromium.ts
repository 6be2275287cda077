import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type Browser, chromium, type Page } from 'playwright-core'
import { findExecutable } from './find-executable.js'

const installHint =
  'Install it: `apt-get install -y chromium` (as root; .ci/run does this in CI), or set CHROMIUM_PATH to a Chromium or Chrome binary.'

/** The Chromium binary: $CHROMIUM_PATH, else `chromium` or `chromium-browser` on PATH. Throws, saying how to install it. */
export function findChromium(): string {
  return findExecutable({ label: 'Chromium', variable: 'CHROMIUM_PATH', names: ['chromium', 'chromium-browser'], installHint })
}

function pidsMentioning(marker: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry))
    } catch {
      // ended while we looked
    }
  }
  return pids
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // already gone
  }
}

export type DumpedPage = {
  /** The serialized DOM after the load event (scripts have run). */
  dom: string
  /** The page's console messages and errors (uncaught exceptions, CSP violations), as Chromium logs them. */
  console: string[]
  /** Chromium processes of this run still alive after the kill; always empty unless the cleanup failed. */
  survivors: number[]
}

/** Runs headless Chromium on `file` with `extra` flags; its process group is killed whole when done or after timeoutMs. */
async function runChromium(
  file: string,
  extra: readonly string[],
  timeoutMs: number,
): Promise<{ stdout: string; console: string[]; survivors: number[] }> {
  const binary = findChromium()
  const profile = mkdtempSync(join(tmpdir(), 'deltaflow-chromium-'))
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-extensions',
    '--disable-background-networking',
    `--user-data-dir=${profile}`,
    '--enable-logging=stderr',
    '--v=0',
    ...extra,
    pathToFileURL(file).href,
  ]
  const child = spawn(binary, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  const pid = child.pid
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (pid !== undefined) killGroup(pid)
        reject(new Error(`Chromium did not finish loading ${file} within ${timeoutMs} ms\n${stderr.slice(-2000)}`))
      }, timeoutMs)
      child.on('error', (error) => {
        clearTimeout(timer)
        reject(error)
      })
      child.on('close', (exitCode) => {
        clearTimeout(timer)
        resolve(exitCode)
      })
    })
    if (code !== 0) throw new Error(`Chromium exited with ${code} loading ${file}\n${stderr.slice(-2000)}`)
  } finally {
    if (pid !== undefined) killGroup(pid)
    // helpers that left the group (none expected) are found by the profile directory only this run uses
    for (const survivor of pidsMentioning(profile)) killGroup(survivor)
  }
  const survivors = await waitUntilGone(profile, 5_000)
  rmSync(profile, { recursive: true, force: true })
  const consoleLines = stderr
    .split('\n')
    .map((line) => /:CONSOLE[:(]\d*\)?\] (.*)$/.exec(line)?.[1])
    .filter((message): message is string => message !== undefined)
  return { stdout, console: consoleLines, survivors }
}

export type ChromiumOptions = {
  timeoutMs?: number
  /** The browser window in CSS pixels (Chromium's default is 800 × 600). */
  windowSize?: { width: number; height: number }
}

function windowFlags(options: ChromiumOptions): string[] {
  return options.windowSize ? [`--window-size=${options.windowSize.width},${options.windowSize.height}`] : []
}

/**
 * Loads `file` in headless Chromium and returns its DOM as `--dump-dom` prints it, with the page's console output.
 * A fresh user-data-dir per call; the browser runs in its own process group, killed whole when it is done or after
 * `timeoutMs`. (With JavaScript disabled `--dump-dom` prints nothing: it reads the DOM through the page's script.)
 */
export async function dumpDom(file: string, options: ChromiumOptions = {}): Promise<DumpedPage> {
  const run = await runChromium(file, [...windowFlags(options), '--dump-dom'], options.timeoutMs ?? 20_000)
  return { dom: run.stdout, console: run.console, survivors: run.survivors }
}

/** Loads `file` in headless Chromium and writes a PNG of its window to `png` (make the window as tall as the page). */
export async function screenshotPage(
  file: string,
  png: string,
  options: ChromiumOptions = {},
): Promise<{ console: string[]; survivors: number[] }> {
  const run = await runChromium(file, [...windowFlags(options), '--hide-scrollbars', `--screenshot=${png}`], options.timeoutMs ?? 20_000)
  return { console: run.console, survivors: run.survivors }
}

async function waitUntilGone(marker: string, timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const alive = pidsMentioning(marker)
    if (alive.length === 0 || Date.now() > deadline) return alive
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export type ChartMarks = {
  /** The `<svg id=...>` element, or undefined when the page has none with this id. */
  svg: string | undefined
  lines: { className: string; d: string; commands: number }[]
  markers: { side: string; count: number }[]
  /** Histogram bars: how many values each holds, and its kind (`better`, `worse`, `neutral`). */
  bars: { count: number; kind: string }[]
  /** Shaded time spans, by kind (`drawdown`, `recovery`). */
  bands: string[]
  /** Filled areas under lines, by the line's name. */
  areas: string[]
  /** Elements the page's script added for the hover readout. */
  readout: boolean
}

function attribute(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1]
}

/** The drawn marks of one chart of a backtest report, read from HTML (as written, or as a browser serialized it). */
export function chartMarks(html: string, id: string): ChartMarks {
  const start = html.indexOf(`<svg id="${id}"`)
  if (start < 0) return { svg: undefined, lines: [], markers: [], bars: [], bands: [], areas: [], readout: false }
  const svg = html.slice(start, html.indexOf('</svg>', start) + '</svg>'.length)
  const tags = (name: string, className: string) =>
    [...svg.matchAll(new RegExp(`<${name}\\b[^>]*>`, 'g'))]
      .map((match) => match[0])
      .filter((tag) => (attribute(tag, 'class') ?? '').split(' ').includes(className))
  return {
    svg,
    lines: tags('path', 'line').map((tag) => {
      const d = attribute(tag, 'd') ?? ''
      return { className: attribute(tag, 'class') ?? '', d, commands: (d.match(/[ML]/g) ?? []).length }
    }),
    markers: tags('path', 'marker').map((tag) => ({
      side: (attribute(tag, 'class') ?? '').replace('marker', '').trim(),
      count: Number(attribute(tag, 'data-count')),
    })),
    bars: tags('rect', 'bar').map((tag) => ({
      count: Number(attribute(tag, 'data-count')),
      kind: (attribute(tag, 'class') ?? '').replace('bar', '').trim(),
    })),
    bands: tags('rect', 'band').map((tag) => (attribute(tag, 'class') ?? '').replace('band', '').trim()),
    areas: tags('path', 'area').map((tag) => (attribute(tag, 'class') ?? '').replace('area', '').trim()),
    readout: tags('g', 'readout').length > 0,
  }
}

/** Headless Chromium driven by playwright-core (the web console's tests), with nothing of its own on the network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: findChromium(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  })
}

/** Records every URL `page` asks for in `requested`, and every error it throws or logs in `errors`. */
export function watchPage(page: Page, requested: string[], errors: string[]): void {
  page.on('request', (request) => requested.push(request.url()))
  page.on('pageerror', (error) => errors.push(error.message))
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
}
