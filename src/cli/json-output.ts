/** A value as JSON can carry it: bigint as a decimal string (raw units), everything else unchanged. */
export function toJsonValue(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner)))
}
