import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { BaseError } from '../../errors/base.js'
import type { Clock } from '../../time/clock.js'
import { ApiError, type ApiErrorSpec, commonErrors } from '../server/api-error.js'
import type { SandboxDesk } from '../server/desk.js'
import { parseRequestPart } from '../server/validate.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { createMakerRegistry, MakerRegistrationError, type MakerRegistry } from './maker-registry.js'
import { type MakerRegistrationInput, type MakerTiming, makerRegistrationSchema } from './maker-settings.js'

// Errors of the emulator's own controls: not part of the service's API, so not in /resources/errors.json.
const duplicateMaker: ApiErrorSpec = {
  endpoint: 'POST /_sandbox/makers',
  status: 409,
  message: 'Maker already registered',
  cause: 'Another maker has that name.',
  fix: 'Pick another name, or DELETE /_sandbox/makers/{name} first.',
}
const makerFailed: ApiErrorSpec = {
  endpoint: 'POST /_sandbox/makers',
  status: 502,
  message: 'Maker failed',
  cause: "The maker's /tokens or /pairs failed (unreachable, timeout, error status, non-JSON or invalid payload).",
  fix: 'Check the maker is serving at that URL with those credentials.',
}
const unknownMaker: ApiErrorSpec = {
  endpoint: 'DELETE /_sandbox/makers/:name',
  status: 404,
  message: 'Not found',
  cause: 'No maker has that name.',
  fix: 'GET /_sandbox/makers lists them.',
}

export type MakersDeskOptions = {
  /** Registered when the sandbox starts; a maker that fails then stops the start. */
  makers?: readonly MakerRegistrationInput[] | undefined
  timing?: Partial<MakerTiming> | undefined
  wallClock?: Clock | undefined
}

/**
 * The makers the sandbox consumes like the service does (`/_sandbox/makers`): registration, polling, and the
 * registry Market routing and the transaction builder read.
 */
export function createMakersDesk(venue: SandboxVenue, options: MakersDeskOptions = {}): SandboxDesk & { registry: MakerRegistry } {
  const registry = createMakerRegistry({ venue, timing: options.timing, wallClock: options.wallClock })
  return {
    name: 'makers',
    registry,
    register: (app) => registerMakerRoutes(app, registry),
    start: async () => {
      try {
        for (const [index, input] of (options.makers ?? []).entries()) {
          const parsed = makerRegistrationSchema.safeParse(input)
          if (!parsed.success) {
            const problems = parsed.error.issues.map((issue) => `makers.${index}.${issue.path.join('.')}: ${issue.message}`)
            throw new MakerRegistrationError(`Invalid maker: ${problems.join('; ')}`, 'invalid')
          }
          await registry.register(parsed.data)
        }
      } catch (error) {
        // The sandbox does not start: makers registered so far must stop polling.
        registry.stop()
        throw error
      }
    },
    stop: () => registry.stop(),
  }
}

const nameParamsSchema = z.object({ name: z.string().min(1).max(64) })

function registerMakerRoutes(app: FastifyInstance, registry: MakerRegistry): void {
  app.get('/_sandbox/makers', async () => ({ makers: registry.list() }))
  app.post('/_sandbox/makers', async (request, reply) => {
    const registration = parseRequestPart(makerRegistrationSchema, request.body, 'body')
    try {
      const status = await registry.register(registration)
      return reply.status(201).send({ maker: status })
    } catch (error) {
      if (!(error instanceof MakerRegistrationError)) throw error
      if (error.reason === 'duplicate') throw new ApiError(duplicateMaker, { message: `${duplicateMaker.message}: ${registration.name}` })
      if (error.reason === 'chain')
        throw new ApiError(commonErrors.validation, { message: `Validation failed: body.chainId: ${error.shortMessage}` })
      throw new ApiError(makerFailed, {
        message: `${makerFailed.message}: ${error.cause instanceof BaseError ? error.cause.shortMessage : error.shortMessage}`,
      })
    }
  })
  app.delete('/_sandbox/makers/:name', async (request) => {
    const { name } = parseRequestPart(nameParamsSchema, request.params, 'params')
    if (!registry.remove(name)) throw new ApiError(unknownMaker, { message: `${unknownMaker.message}: no maker named ${name}` })
    return { removed: name }
  })
}
