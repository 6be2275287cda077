import Fastify, { type FastifyInstance } from 'fastify'

/** What GET /health answers: 200 while `healthy`, else 503, with the details either way. */
export type HealthReport = { healthy: boolean } & Record<string, unknown>

export type StartOpsServerParameters = {
  host: string
  /** 0 picks a free port. */
  port: number
  /** Prometheus text exposition. */
  metrics: () => Promise<string>
  health: () => HealthReport
  /** Registers more routes (the operator console's /api/*). */
  mount?: ((app: FastifyInstance) => void) | undefined
}

export type OpsServer = { url: string; close: () => Promise<void> }

/** The bot's operations endpoint: GET /metrics for Prometheus and GET /health for a supervisor or load balancer. */
export async function startOpsServer({ host, port, metrics, health, mount }: StartOpsServerParameters): Promise<OpsServer> {
  const app = Fastify({ logger: false, bodyLimit: 4096 })
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
    return metrics()
  })
  app.get('/health', async (_request, reply) => {
    const report = health()
    reply.code(report.healthy ? 200 : 503)
    return { status: report.healthy ? 'ok' : 'unhealthy', ...report }
  })
  mount?.(app)
  const url = await app.listen({ host, port })
  return { url, close: () => app.close() }
}
