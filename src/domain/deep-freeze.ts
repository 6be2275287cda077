/** A value no strategy can change: objects and arrays read-only all the way down. */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer Element)[]
    ? readonly DeepReadonly<Element>[]
    : T extends object
      ? { readonly [Key in keyof T]: DeepReadonly<T[Key]> }
      : T

/** Objects deepFreeze has frozen all the way down (a frozen object elsewhere may still hold mutable ones). */
const deeplyFrozen = new WeakSet<object>()

/** Freezes `value` and everything it reaches, in place. */
export function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (typeof value === 'object' && value !== null && !deeplyFrozen.has(value)) {
    // Marked first, so a cycle ends here.
    deeplyFrozen.add(value)
    Object.freeze(value)
    for (const key of Reflect.ownKeys(value)) deepFreeze(Reflect.get(value, key))
  }
  return value as DeepReadonly<T>
}

/** Whether deepFreeze froze `value`: nothing it reaches can change. */
export function isDeeplyFrozen(value: unknown): boolean {
  return typeof value === 'object' && value !== null && deeplyFrozen.has(value)
}
