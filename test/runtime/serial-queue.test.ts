import { describe, expect, it } from 'vitest'
import { createSerialQueue } from '../../src/runtime/serial-queue.js'

describe('createSerialQueue', () => {
  it('runs tasks one at a time in push order and goes on after a failing one', async () => {
    const queue = createSerialQueue()
    const log: string[] = []
    let running = 0
    const task =
      (name: string, fail = false) =>
      async () => {
        running += 1
        expect(running).toBe(1)
        await new Promise((resolve) => setTimeout(resolve, 5))
        log.push(name)
        running -= 1
        if (fail) throw new Error(name)
        return name
      }
    const first = queue.push(task('a'))
    const failing = queue.push(task('b', true))
    const last = queue.push(task('c'))
    expect(queue.pending()).toBe(3)
    await expect(failing).rejects.toThrow('b')
    expect(await first).toBe('a')
    expect(await last).toBe('c')
    await queue.idle()
    expect(log).toEqual(['a', 'b', 'c'])
    expect(queue.pending()).toBe(0)
  })

  it('waits in idle() for tasks pushed while it waits', async () => {
    const queue = createSerialQueue()
    const log: string[] = []
    void queue.push(async () => {
      void queue.push(async () => {
        log.push('second')
      })
      log.push('first')
    })
    await queue.idle()
    expect(log).toEqual(['first', 'second'])
  })
})
