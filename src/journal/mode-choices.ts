import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import type { Clock } from '../time/clock.js'
import { rethrowMissingIntent } from './journal-errors.js'
import { jsonColumn, toJsonText } from './sql-values.js'

export const modeChoiceRowSchema = z
  .object({
    intent_id: z.string(),
    mode: z.enum(['delta', 'market']).nullable(),
    reason: z.string(),
    explanation: z.string(),
    figures_json: jsonColumn,
    decided_at: z.number().int(),
  })
  .transform((row) => ({
    intentId: row.intent_id,
    mode: row.mode,
    reason: row.reason,
    explanation: row.explanation,
    /** The numbers compared: both modes' figures, the advantage in bps, the preference and any override. */
    figures: row.figures_json,
    decidedAt: row.decided_at,
  }))

export type JournalModeChoice = z.output<typeof modeChoiceRowSchema>

export type RecordModeChoiceParameters = {
  intentId: string
  /** Undefined when neither mode could take the trade. */
  mode: 'delta' | 'market' | undefined
  reason: string
  explanation: string
  figures: unknown
}

/** Statements over `mode_choices`; each function runs inside the caller's transaction. */
export function createModeChoiceStatements(db: Database, clock: Clock) {
  const insert = db.prepare(
    `INSERT INTO mode_choices (intent_id, mode, reason, explanation, figures_json, decided_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (intent_id) DO NOTHING`,
  )
  const select = db.prepare('SELECT * FROM mode_choices WHERE intent_id = ?')

  function getModeChoice(intentId: string): JournalModeChoice | undefined {
    const row = select.get(intentId)
    return row === undefined ? undefined : modeChoiceRowSchema.parse(row)
  }

  /** Stores the choice unless the intent has one (the first choice stands). */
  function insertModeChoice(choice: RecordModeChoiceParameters): void {
    try {
      insert.run(choice.intentId, choice.mode ?? null, choice.reason, choice.explanation, toJsonText(choice.figures), clock.now())
    } catch (error) {
      throw rethrowMissingIntent(error, choice.intentId)
    }
  }

  /** The first choice for an intent stands: a restart that chooses again keeps the stored one and returns it. */
  function recordModeChoice(choice: RecordModeChoiceParameters): JournalModeChoice {
    insertModeChoice(choice)
    return getModeChoice(choice.intentId) as JournalModeChoice
  }

  return { getModeChoice, insertModeChoice, recordModeChoice }
}
