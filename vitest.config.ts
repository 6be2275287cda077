import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { slowTestFiles } from './test/slow-test-files.js'

const knownSeconds = new Map(slowTestFiles.map(([file, seconds]) => [file, seconds]))

/**
 * Longest first: the files vitest has timed before (its cache), else those test/slow-test-files.ts lists, by their
 * duration; then the rest in vitest's own order. On a clean clone vitest knows no durations and would start the
 * largest files first, which left a 34-second file to start last and finish alone.
 */
class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files)
    const secondsOf = (spec: TestSpecification): number | undefined => {
      const file = spec.moduleId.slice(this.ctx.config.root.length + 1)
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`)
      return cached ? cached.duration / 1000 : knownSeconds.get(file)
    }
    const timed = ordered.filter((spec) => secondsOf(spec) !== undefined)
    timed.sort((a, b) => (secondsOf(b) ?? 0) - (secondsOf(a) ?? 0))
    return [...timed, ...ordered.filter((spec) => secondsOf(spec) === undefined)]
  }
}

// Most suites wait on anvil, HTTP and child processes rather than the CPU, so three files run at once on two cores.
// Files share their worker's modules (isolate: false): importing viem, zod and the sources afresh for each of ~200
// files cost about 150 s of CPU per run. A file that changes process-wide state (an environment variable, a spied
// stream, fake timers) restores it in its own hooks.
export default defineConfig({
  test: {
    isolate: false,
    // Runs once for the whole run: compiles the contracts, checks that no anvil outlives it.
    globalSetup: ['test/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    sequence: { sequencer: LongestFirstSequencer },
  },
})
