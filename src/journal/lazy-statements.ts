import type { Database, Statement } from 'better-sqlite3'

/**
 * A statement prepared where it is first run. A journal's statement factories prepare every statement they may need
 * (more than a hundred); a journal opened for one short run (a backtest, an optimiser trial) runs a few dozen of them.
 */
class LazyStatement {
  readonly #prepare: () => Statement
  #statement: Statement | undefined
  #pluck: boolean | undefined
  #raw: boolean | undefined

  constructor(prepare: () => Statement) {
    this.#prepare = prepare
  }

  #prepared(): Statement {
    if (this.#statement === undefined) {
      const statement = this.#prepare()
      if (this.#pluck !== undefined) statement.pluck(this.#pluck)
      if (this.#raw !== undefined) statement.raw(this.#raw)
      this.#statement = statement
    }
    return this.#statement
  }

  pluck(toggle = true): this {
    if (this.#statement === undefined) this.#pluck = toggle
    else this.#statement.pluck(toggle)
    return this
  }

  raw(toggle = true): this {
    if (this.#statement === undefined) this.#raw = toggle
    else this.#statement.raw(toggle)
    return this
  }

  run(...parameters: unknown[]) {
    return this.#prepared().run(...parameters)
  }

  get(...parameters: unknown[]) {
    return this.#prepared().get(...parameters)
  }

  all(...parameters: unknown[]) {
    return this.#prepared().all(...parameters)
  }

  iterate(...parameters: unknown[]) {
    return this.#prepared().iterate(...parameters)
  }
}

/**
 * From now until the returned function is called, `db.prepare` gives statements prepared on their first run; then
 * `db` has its own `prepare` back. For in-memory journals, opened for one run: a statement's SQL is then checked when
 * first run, not at open (every statement runs in the journal's tests).
 */
export function prepareLazily(db: Database): () => void {
  const prepare = db.prepare.bind(db)
  Object.defineProperty(db, 'prepare', {
    configurable: true,
    writable: true,
    value: (source: string) => new LazyStatement(() => prepare(source)) as unknown as Statement,
  })
  return () => {
    Reflect.deleteProperty(db, 'prepare')
  }
}
