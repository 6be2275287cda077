import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { parseRequestPart } from '../../server/validate.js'
import type { BridgeFailureMode } from './engine-context.js'

const bridgeControlSchema = z.object({ failures: z.enum(['random', 'always', 'never']) })

/**
 * `/_sandbox/bridge`: how simulated bridge transfers end. `random` (default) fails each with its bridge's failure
 * rate from the seeded random; `always` / `never` force the outcome, to exercise refunds or deliveries on purpose.
 */
export function registerBridgeControlRoute(app: FastifyInstance, control: { mode: BridgeFailureMode }): void {
  app.get('/_sandbox/bridge', async () => ({ failures: control.mode }))
  app.post('/_sandbox/bridge', async (request) => {
    control.mode = parseRequestPart(bridgeControlSchema, request.body, 'body').failures
    return { failures: control.mode }
  })
}
