/** A value no strategy can change: objects and arrays read-only all the way down. */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer Element)[]
    ? readonly DeepReadonly<Element>[]
    : T extends object
      ? { readonly [Key in keyof T]: DeepReadonly<T[Key]> }
      : T

/** Freezes `value` and everything it reaches, in place. */
export function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Reflect.ownKeys(value)) deepFreeze(Reflect.get(value, key))
  }
  return value as DeepReadonly<T>
}

/**
 * A deeply frozen copy: what a strategy receives, so a strategy that writes to its input throws (ES modules are
 * strict) and the caller's object stays as it was. structuredClone keeps bigints; plain data only.
 */
export function freezeCopy<T>(value: T): DeepReadonly<T> {
  return deepFreeze(structuredClone(value))
}
