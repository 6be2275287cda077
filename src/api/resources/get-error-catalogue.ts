import { z } from 'zod'
import type { ApiClient, RequestOptions } from '../client.js'

const catalogueEntrySchema = z.object({
  /** "METHOD /path", or "*" for every endpoint. */
  endpoint: z.string(),
  /** Null for failures that are not HTTP answers (on-chain reverts of built calldata). */
  status: z.number().int().nullable(),
  /** The text the service's message starts with. */
  match: z.string(),
  cause: z.string(),
  fix: z.string(),
  docs: z.string().optional(),
})

export type ErrorCatalogueEntry = z.output<typeof catalogueEntrySchema>

export const errorCatalogueSchema = z
  .object({
    _meta: z.looseObject({ description: z.string().optional(), lastUpdated: z.string().optional() }).optional(),
    errors: z.array(catalogueEntrySchema),
  })
  .transform(({ _meta, errors }) => ({ meta: _meta ?? {}, errors }))

export type ErrorCatalogue = z.output<typeof errorCatalogueSchema>

export type GetErrorCatalogueParameters = RequestOptions

export type GetErrorCatalogueReturnType = ErrorCatalogue

/** GET /resources/errors.json: the service's machine-readable error catalogue. */
export function getErrorCatalogue(
  client: ApiClient,
  { signal, timeoutMs }: GetErrorCatalogueParameters = {},
): Promise<GetErrorCatalogueReturnType> {
  return client.request(
    { method: 'GET', endpoint: 'GET /resources/errors.json', path: '/resources/errors.json', signal, timeoutMs },
    errorCatalogueSchema,
  )
}
