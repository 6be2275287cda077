/**
 * A deep copy of plain data (objects, arrays, strings, numbers, booleans, null, bigints), as a schema's output is:
 * faster than structuredClone or a JSON round trip for the small records strategies keep. Anything else (a Date, a
 * Map, a class instance) is copied by structuredClone.
 */
export function cloneData<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) {
    const copy = new Array(value.length)
    for (let index = 0; index < value.length; index++) copy[index] = cloneData(value[index])
    return copy as T
  }
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(value)
  const copy: Record<string, unknown> = {}
  // for-in rather than Object.keys: no array of keys per object. With Object.prototype or no prototype, for-in sees
  // exactly the own enumerable string keys (Object.prototype has no enumerable properties).
  for (const key in value) copy[key] = cloneData((value as Record<string, unknown>)[key])
  return copy as T
}
