#!/usr/bin/env node
// Runs the compiled CLI (dist/, made by `npm run build`, which `npm ci` runs). DELTAFLOW_FROM_SOURCE=1 runs
// src/ through tsx's loader instead, so a checkout's tests and scripts see its sources without a build.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

if (process.env.DELTAFLOW_FROM_SOURCE === '1') {
  const { register } = await import('tsx/esm/api')
  register()
  await import('../src/cli/main.ts')
} else {
  const main = new URL('../dist/src/cli/main.js', import.meta.url)
  if (!existsSync(main)) {
    process.stderr.write(
      `deltaflow: the compiled CLI is missing (no ${fileURLToPath(main)}).\n` +
        'Build it with `npm run build` (`npm ci` builds it too), or set DELTAFLOW_FROM_SOURCE=1 to run from src/ in a checkout.\n',
    )
    process.exit(1)
  }
  await import(main.href)
}
