export type QueryScalar = string | number | bigint | boolean
export type QueryValue = QueryScalar | readonly QueryScalar[] | undefined
export type QueryValues = Readonly<Record<string, QueryValue>>

/**
 * The query string of a request, `?` included (empty when nothing is set): undefined values and empty lists are left
 * out, bigints are written in decimal, lists comma-separated as the API's list parameters expect.
 */
export function toQueryString(query: QueryValues | undefined): string {
  if (!query) return ''
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue
    if (isList(value)) {
      if (value.length > 0) search.append(name, value.map(String).join(','))
    } else {
      search.append(name, String(value))
    }
  }
  const text = search.toString()
  return text ? `?${text}` : ''
}

function isList(value: QueryScalar | readonly QueryScalar[]): value is readonly QueryScalar[] {
  return Array.isArray(value)
}
