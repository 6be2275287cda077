import { defineConfig } from 'vitest/config'

// Most suites wait on anvil, HTTP and child processes rather than the CPU, so three files run at once on two cores.
export default defineConfig({
  test: {
    // Runs once for the whole run: compiles the contracts, checks that no anvil outlives it.
    globalSetup: ['test/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
