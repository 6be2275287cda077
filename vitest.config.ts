import { defineConfig } from 'vitest/config'

// Most suites wait on anvil, HTTP and child processes rather than the CPU, so three files run at once on two cores.
// The paper-against-backtest comparison and the sandbox's TWAP engine run a sandbox at 120–600 times real time:
// starved of CPU their schedules drift, so they run afterwards, alone. So do the Delta refusals, which once met a
// "No route" on a deep pool under load (see the sandbox README's known issues).
const alone = ['test/backtest/paper-vs-backtest.test.ts', 'test/sandbox/delta-engine-twap.test.ts', 'test/api/delta-refusals.test.ts']

const shared = { testTimeout: 60_000, hookTimeout: 60_000 }

export default defineConfig({
  test: {
    // Runs once for the whole run: compiles the contracts, checks that no anvil outlives it.
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        test: {
          ...shared,
          name: 'concurrent',
          include: ['test/**/*.test.ts'],
          exclude: alone,
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: { ...shared, name: 'alone', include: alone, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
})
