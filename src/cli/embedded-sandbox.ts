import type { StartEmbeddedVenue } from '../runtime/embedded-venue.js'
import type { RunningSandbox } from '../sandbox/start-sandbox.js'

/** The sandbox as the runtime's embedded venue, loaded only when a config asks for one. */
export const startEmbeddedSandbox: StartEmbeddedVenue<RunningSandbox> = async (options) => {
  const { startSandbox } = await import('../sandbox/start-sandbox.js')
  return startSandbox(options)
}
