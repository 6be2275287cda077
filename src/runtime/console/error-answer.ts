import { z } from 'zod'

/** Every refusal and failure of the console: what went wrong, and where for a bad request. */
export const errorAnswerSchema = z.object({
  error: z.string(),
  /** A bad request's problems, each with where (`query.limit`, `body.reason`) and what was expected. */
  issues: z.array(z.object({ where: z.string(), message: z.string() })).optional(),
})

export type ErrorAnswer = z.infer<typeof errorAnswerSchema>

/** A refusal the routes throw: its HTTP status and answer. */
export class ConsoleRefusal extends Error {
  override name = 'ConsoleRefusal' as const
  constructor(
    readonly status: number,
    readonly answer: ErrorAnswer,
    readonly headers: Record<string, string> = {},
  ) {
    super(answer.error)
  }
}
