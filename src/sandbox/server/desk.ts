import type { FastifyInstance } from 'fastify'

/** One area of the sandbox (Market, Delta, OTC, resources): its routes and its background work. */
export type SandboxDesk = {
  name: string
  register: (app: FastifyInstance) => void
  /** Starts background work (agents, watchers) once the server is listening. */
  start?: () => Promise<void> | void
  /** Stops background work; called before the chains stop. */
  stop?: () => Promise<void> | void
}
