/** A value JSON gives back as it is: null, a boolean, a string or a finite number. */
export function isJsonPrimitive(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
}
