import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance, FastifyReply } from 'fastify'

/**
 * Where the build put the web console (scripts/build.ts bundles src/console-ui/ into dist/console-ui/): beside the
 * built runtime (dist/src/runtime/console/dashboard/ → dist/console-ui/), or, running from source (tests, tsx), in
 * the checkout's dist/.
 */
export function findDashboardAssets(): string | undefined {
  const candidates = ['../../../../console-ui/', '../../../../dist/console-ui/'].map((relative) =>
    fileURLToPath(new URL(relative, import.meta.url)),
  )
  return candidates.find((directory) => existsSync(join(directory, 'index.html')))
}

/** Only the page's own files: no CDN, no inline script or style, no frame, no form posting elsewhere. */
export const dashboardContentSecurityPolicy = [
  "default-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "style-src 'self'",
  "script-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const files = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
} as const

export type RegisterDashboardParameters = {
  /** The built assets (default: findDashboardAssets()). */
  directory?: string | undefined
}

/**
 * Serves the web console on the ops server: GET / and /console → the page, /console/<file> → its script and
 * styles, each with a Content-Security-Policy that lets the page reach nothing but this server. The page reads
 * /api/* like any client (its token, when it has one, only in the Authorization header of its requests). Without a
 * build (a checkout where `npm run build` never ran) the page says how to make one.
 */
export function registerDashboard(app: FastifyInstance, { directory = findDashboardAssets() }: RegisterDashboardParameters = {}): void {
  // Read once: the files are a few hundred kB and do not change while the bot runs.
  const contents = new Map<string, Buffer>()
  if (directory !== undefined) {
    for (const name of Object.keys(files)) {
      const path = join(directory, name)
      if (existsSync(path)) contents.set(name, readFileSync(path))
    }
  }
  const serve = (name: keyof typeof files) => async (_request: unknown, reply: FastifyReply) => {
    const body = contents.get(name)
    reply.header('content-security-policy', dashboardContentSecurityPolicy)
    reply.header('x-content-type-options', 'nosniff')
    reply.header('referrer-policy', 'no-referrer')
    reply.header('cache-control', 'no-cache')
    if (!body) {
      reply.code(503).type('text/plain; charset=utf-8')
      return `The web console is not built: run \`npm run build\` (it bundles src/console-ui/ into dist/console-ui/).\n`
    }
    reply.type(files[name])
    return body
  }
  app.get('/', serve('index.html'))
  app.get('/console', serve('index.html'))
  app.get('/console/', serve('index.html'))
  for (const name of Object.keys(files) as (keyof typeof files)[]) {
    if (name !== 'index.html') app.get(`/console/${name}`, serve(name))
  }
}
