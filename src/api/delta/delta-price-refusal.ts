// Delta's refusal of an amount whose settlement gas is worth more than the trade. The real service writes
// `{ errorType: "GasCostExceedsTradeAmount", details: "Gas cost exceeds trade amount" }` (as an error, or as the
// `fallbackReason` of a Market answer in mode ALL); the sandbox adds its `{ error }` text, which opens with the same words.

/** The refusal's error type and the opening words of its message. */
export const gasCostExceedsTradeAmountTexts = ['GasCostExceedsTradeAmount', 'Gas cost exceeds trade amount']
const gasCostMessages = gasCostExceedsTradeAmountTexts.map((text) => text.toLowerCase())

/** Whether an error code or message says Delta's settlement gas exceeds the trade. */
export function isGasCostExceedsTradeAmount(text: string | undefined): boolean {
  const lower = text?.trim().toLowerCase()
  return lower !== undefined && gasCostMessages.some((message) => lower.startsWith(message))
}
