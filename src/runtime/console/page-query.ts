import { z } from 'zod'

/** limit and cursor of every paged list: newest first, `cursor` is the previous page's `nextCursor`. */
export const pageQueryShape = {
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, 'expected the nextCursor of a previous page')
    .optional(),
}

/** The cursor of the page after `rows` (null on the last page). */
export function nextCursorOf(rows: readonly { position: number }[], limit: number): string | null {
  const last = rows.at(-1)
  return rows.length === limit && last !== undefined ? String(last.position) : null
}

export const chainQuery = z.coerce.number().int().positive().optional()
