#!/usr/bin/env node
// Loads the TypeScript CLI through tsx's loader, in this same process, so `npx deltaflow` needs no build step.
import { register } from 'tsx/esm/api'

register()
await import('../src/cli/main.ts')
