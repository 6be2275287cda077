import { extname } from 'node:path'

/** What `--trades` writes, by the file's extension. */
export const tradesFormats = { '.csv': 'csv', '.jsonl': 'jsonl' } as const
export type TradesFormat = (typeof tradesFormats)[keyof typeof tradesFormats]

/** The format a `--trades` file is written in, by its extension (any case); undefined for any other. */
export function tradesFormatOf(file: string): TradesFormat | undefined {
  const extension = extname(file).toLowerCase()
  return extension === '.csv' || extension === '.jsonl' ? tradesFormats[extension] : undefined
}
