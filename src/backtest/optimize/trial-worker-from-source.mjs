// The pool's worker entry when deltaflow runs from its TypeScript sources (vitest, `npm run bench`, tsx,
// DELTAFLOW_FROM_SOURCE=1). On Node 20 a worker thread does not inherit its parent's TypeScript loader, so the thread
// registers tsx (its ES module and CommonJS hooks, as `tsx` itself does) before it imports ./trial-worker.ts. The
// compiled package (dist/) loads trial-worker.js directly and never this file.
import { register as registerCommonJs } from 'tsx/cjs/api'
import { register as registerEsm } from 'tsx/esm/api'

registerEsm()
registerCommonJs()
const { default: runTrialInWorker } = await import('./trial-worker.ts')

export default runTrialInWorker
