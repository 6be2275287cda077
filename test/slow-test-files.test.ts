import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { slowTestFiles } from './slow-test-files.js'

describe('the list of slow test files the run starts first', () => {
  it('names test files that exist, once each, longest first', () => {
    const root = fileURLToPath(new URL('..', import.meta.url))
    const files = slowTestFiles.map(([file]) => file)
    expect(files.filter((file) => !existsSync(`${root}${file}`) || !file.endsWith('.test.ts'))).toEqual([])
    expect(new Set(files).size).toBe(files.length)
    const seconds = slowTestFiles.map(([, value]) => value)
    expect(seconds).toEqual([...seconds].sort((a, b) => b - a))
  })
})
