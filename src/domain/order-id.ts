/** The local id of an intent's order: one order per intent (a TWAP is one order with slices). */
export function orderIdOf(intentId: string): string {
  return `${intentId}/0`
}
